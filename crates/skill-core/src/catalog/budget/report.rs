//! How each model-invocable skill appears in the entries block, in total and
//! per source.

use super::Shape;
use crate::catalog::Catalog;
use std::collections::HashMap;

/// How each model-invocable skill appears in the entries block.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CatalogReport {
    /// Model-invocable skills in the catalog (`full + shortened + name_only + omitted`).
    pub total: usize,
    /// Entries shown exactly as without a budget (`maxLength` still applies).
    pub full: usize,
    /// Entries whose description the budget cut shorter.
    pub shortened: usize,
    /// Entries shown by name only.
    pub name_only: usize,
    /// Skills left out (counted by the last line).
    pub omitted: usize,
    /// Length of the entries block in UTF-16 units.
    pub chars: usize,
    /// The same counts per source label, nearest source first (by the lowest
    /// rank among its skills, then by label). Empty for a catalog without
    /// origins ([`Catalog::new`]).
    pub by_source: Vec<SourceReport>,
}

/// How the model-invocable skills of one source appear in the entries block.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceReport {
    /// The source label.
    pub source: String,
    /// Skills of this source (`full + shortened + name_only + omitted`).
    pub total: usize,
    /// Entries shown exactly as without a budget.
    pub full: usize,
    /// Entries whose description the budget cut shorter.
    pub shortened: usize,
    /// Entries shown by name only.
    pub name_only: usize,
    /// Skills left out.
    pub omitted: usize,
}

/// Counts of entries by shape: full, shortened, name-only, left out.
type Counts = [usize; 4];

fn add(counts: &mut Counts, shape: Shape) {
    counts[match shape {
        Shape::Full => 0,
        Shape::Cut(_) => 1,
        Shape::NameOnly => 2,
        Shape::Omitted => 3,
    }] += 1;
}

impl CatalogReport {
    /// The report of `catalog`'s entries shaped as `shapes` (one per entry),
    /// for a block of `chars` units.
    pub(super) fn of(catalog: &Catalog<'_>, shapes: &[Shape], chars: usize) -> Self {
        let mut counts = Counts::default();
        for &shape in shapes {
            add(&mut counts, shape);
        }
        let [full, shortened, name_only, omitted] = counts;
        CatalogReport {
            total: shapes.len(),
            full,
            shortened,
            name_only,
            omitted,
            chars,
            by_source: by_source(catalog, shapes),
        }
    }

    /// The report of `catalog` with every entry in full.
    pub(in crate::catalog) fn unbudgeted(catalog: &Catalog<'_>, chars: usize) -> Self {
        Self::of(catalog, &vec![Shape::Full; catalog.len()], chars)
    }
}

/// Per-source counts of `shapes`, nearest source first.
fn by_source(catalog: &Catalog<'_>, shapes: &[Shape]) -> Vec<SourceReport> {
    // (source, lowest rank, counts), in order of first appearance.
    let mut sources: Vec<(&str, f64, Counts)> = Vec::new();
    let mut at: HashMap<&str, usize> = HashMap::new();
    // The label seen last and its place (neighbours mostly share a label).
    let mut last: Option<(&str, usize)> = None;
    for (origin, &shape) in catalog.origins().iter().zip(shapes) {
        let i = match last {
            Some((source, i)) if std::ptr::eq(source, origin.source) => i,
            _ => *at.entry(origin.source).or_insert_with(|| {
                sources.push((origin.source, origin.rank, Counts::default()));
                sources.len() - 1
            }),
        };
        last = Some((origin.source, i));
        let (_, lowest, counts) = &mut sources[i];
        if origin.rank < *lowest {
            *lowest = origin.rank;
        }
        add(counts, shape);
    }
    sources.sort_by(|a, b| a.1.total_cmp(&b.1).then_with(|| a.0.cmp(b.0)));
    sources
        .into_iter()
        .map(
            |(source, _, [full, shortened, name_only, omitted])| SourceReport {
                source: source.to_string(),
                total: full + shortened + name_only + omitted,
                full,
                shortened,
                name_only,
                omitted,
            },
        )
        .collect()
}
