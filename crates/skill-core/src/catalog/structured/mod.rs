//! Structured catalogs: the `{ name, description }` pairs a catalog message
//! publishes (the harness's `skill-catalog` message source), their digest, and
//! step planning against the pairs recorded in a history.
//!
//! - **Entries**: the model-invocable skills in name order (the entries of
//!   [`Catalog`]), each description normalised and cut exactly as for the text
//!   (every run of JS whitespace becomes one space, trimmed, cut to `maxLength`
//!   UTF-16 code units with `...` replacing the last 3) but **not** escaped.
//!   Descriptions are JS strings, kept as UTF-16 code units: a cut that splits a
//!   surrogate pair keeps the lone high surrogate JavaScript's `slice` keeps, and
//!   a description that is not well-formed UTF-16 stays exactly as it is when its
//!   code units are given ([`StructuredSkill::units`]).
//! - **Digest** ([`json::entries_digest`]): lowercase hex SHA-256 of the entries,
//!   each written as `JSON.stringify([name, description])`, joined with `\n`.
//! - **Text**: the catalog text of the same skills, as [`Catalog`] renders it
//!   (escaping happens only there). Rendering the entries as skills gives that
//!   text again: normalising and cutting a normalised, cut description changes
//!   nothing.
//! - **Budget**: with a [`Budget`], the text is the budgeted block and the
//!   entries are the pairs it shows: a shortened description as cut, a
//!   name-only entry with the description `""`, skills left out absent.

pub mod json;
mod plan;

pub use plan::{plan_structured_step, Queued, StructuredStep, StructuredUpdate};

use super::budget::{self, Shape};
use super::{is_js_whitespace, render_message, render_update, Budget, Catalog, CatalogError};
use super::{CatalogReport, MessageKind, Origin};

/// One skill of a structured catalog.
#[derive(Clone, Copy, Debug)]
pub struct StructuredSkill<'a> {
    /// Kebab-case skill name.
    pub name: &'a str,
    /// Its description (a lone surrogate of a JS string reads as U+FFFD here).
    pub description: &'a str,
    /// The description's exact UTF-16 code units, when known (a JS string);
    /// `None`: those of `description`.
    pub units: Option<&'a [u16]>,
    /// Source and rank, for a budget's priority and the report.
    pub origin: Option<Origin<'a>>,
}

/// Structured entries, packed: names and descriptions back to back.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StructuredEntries {
    /// UTF-16 code units of every name and description, in entry order.
    pub units: Vec<u16>,
    /// Units of each name and description: `[name0, description0, name1, ...]`.
    pub lengths: Vec<u32>,
}

impl StructuredEntries {
    /// Number of entries.
    pub fn len(&self) -> usize {
        self.lengths.len() / 2
    }

    /// Whether there is no entry.
    pub fn is_empty(&self) -> bool {
        self.lengths.is_empty()
    }

    /// The `(name, description)` code units of each entry.
    pub fn pairs(&self) -> impl Iterator<Item = (&[u16], &[u16])> + '_ {
        let mut at = 0usize;
        self.lengths.chunks_exact(2).map(move |pair| {
            let name_end = at + pair[0] as usize;
            let end = name_end + pair[1] as usize;
            let out = (&self.units[at..name_end], &self.units[name_end..end]);
            at = end;
            out
        })
    }

    /// Appends one entry.
    fn push(&mut self, name: &str, description: impl FnOnce(&mut Vec<u16>)) {
        let start = self.units.len();
        self.units.extend(name.encode_utf16());
        let name_end = self.units.len();
        description(&mut self.units);
        self.lengths.push(units_u32(name_end - start));
        self.lengths.push(units_u32(self.units.len() - name_end));
    }

    /// The digest of these entries.
    pub fn digest(&self) -> String {
        json::entries_digest(self.pairs())
    }
}

fn units_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Whether a UTF-16 code unit is JS whitespace (`\s`; every one is in the BMP).
#[inline]
fn is_whitespace_unit(unit: u16) -> bool {
    if (0x21..0x7f).contains(&unit) {
        return false;
    }
    char::from_u32(u32::from(unit)).is_some_and(is_js_whitespace)
}

/// Appends the description whose code units are `units`, normalised and cut
/// to `max_len` units (at least 3): the JS
/// `d.replace(/\s+/g, ' ').trim()`, then `.slice(0, max_len - 3) + '...'` when
/// longer. Returns the units its escaping adds in the text (`&` 4, `<` `>` 3).
pub fn push_normalized(
    out: &mut Vec<u16>,
    units: impl IntoIterator<Item = u16>,
    max_len: usize,
) -> usize {
    let max_len = max_len.max(super::MIN_MAX_LENGTH);
    let start = out.len();
    let mut pending_space = false;
    for unit in units {
        if is_whitespace_unit(unit) {
            pending_space = out.len() > start;
            continue;
        }
        if pending_space {
            pending_space = false;
            out.push(u16::from(b' '));
        }
        out.push(unit);
        if out.len() - start > max_len {
            // Longer than the limit: the first `max_len - 3` units, then `...`.
            out.truncate(start + max_len - 3);
            out.extend([u16::from(b'.'); 3]);
            break;
        }
    }
    out[start..]
        .iter()
        .map(|&u| match u {
            0x26 => 4,
            0x3c | 0x3e => 3,
            _ => 0,
        })
        .sum()
}

/// Skills checked and put in name order, ready to give their structured
/// entries, digest, text and report.
#[derive(Clone, Debug)]
pub struct StructuredCatalog<'a> {
    catalog: Catalog<'a>,
    /// Exact code units of each entry's description, when known.
    units: Vec<Option<&'a [u16]>>,
}

/// Structured entries, their digest and how each skill appears.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Structured {
    /// The published pairs.
    pub entries: StructuredEntries,
    /// Their digest.
    pub digest: String,
    /// How each skill appears (as [`Catalog::render`] reports it).
    pub report: CatalogReport,
    /// The text entries block, when already rendered (under a budget).
    block: Option<String>,
}

impl<'a> StructuredCatalog<'a> {
    /// Checks names and `max_len` and sorts by name (stable, as
    /// [`Catalog::new`] does). Origins are used when every skill has one.
    pub fn new(skills: Vec<StructuredSkill<'a>>, max_len: usize) -> Result<Self, CatalogError> {
        let mut skills = skills;
        if !skills.windows(2).all(|w| w[0].name <= w[1].name) {
            skills.sort_by(|a, b| a.name.cmp(b.name));
        }
        let units = skills.iter().map(|s| s.units).collect();
        let catalog = if !skills.is_empty() && skills.iter().all(|s| s.origin.is_some()) {
            Catalog::with_origins(
                skills.iter().map(|s| {
                    (
                        s.name,
                        s.description,
                        s.origin.unwrap_or(Origin::of_source("")),
                    )
                }),
                max_len,
            )?
        } else {
            Catalog::new(skills.iter().map(|s| (s.name, s.description)), max_len)?
        };
        Ok(Self { catalog, units })
    }

    /// Fits the published entries into `budget` (see [`super::budget`]).
    pub fn with_budget(mut self, budget: Option<Budget>) -> Self {
        self.catalog = self.catalog.with_budget(budget);
        self
    }

    /// The text catalog of the same skills.
    pub fn catalog(&self) -> &Catalog<'a> {
        &self.catalog
    }

    /// Number of skills (listed or not).
    pub fn len(&self) -> usize {
        self.catalog.len()
    }

    /// Whether there is no model-invocable skill.
    pub fn is_empty(&self) -> bool {
        self.catalog.is_empty()
    }

    /// Appends the description of entry `i` normalised and cut to `max_len`.
    fn push_description(&self, out: &mut Vec<u16>, i: usize, max_len: usize) -> usize {
        match self.units[i] {
            Some(units) => push_normalized(out, units.iter().copied(), max_len),
            None => push_normalized(out, self.catalog.items[i].1.encode_utf16(), max_len),
        }
    }

    /// The published entries, their digest and the report.
    pub fn render(&self) -> Structured {
        let max_len = self.catalog.max_len;
        let mut entries = StructuredEntries {
            units: Vec::with_capacity(self.catalog.size_hint()),
            lengths: Vec::with_capacity(self.len() * 2),
        };
        let Some(budget) = &self.catalog.budget else {
            // Every entry in full; the text's length follows from the entries.
            let mut chars = self.len().saturating_sub(1);
            for (i, (name, _)) in self.catalog.items.iter().enumerate() {
                let mut escapes = 0;
                entries.push(name, |out| escapes = self.push_description(out, i, max_len));
                let description = entries.lengths.last().copied().unwrap_or(0) as usize;
                chars += 6 + name.len() + description + escapes;
            }
            let report = CatalogReport::unbudgeted(&self.catalog, chars);
            return Structured {
                digest: entries.digest(),
                entries,
                report,
                block: None,
            };
        };
        let (block, shapes) = budget::render_shaped(&self.catalog, budget);
        for (i, ((name, _), shape)) in self.catalog.items.iter().zip(shapes).enumerate() {
            match shape {
                Shape::Full => entries.push(name, |out| {
                    self.push_description(out, i, max_len);
                }),
                Shape::Cut(cap) => entries.push(name, |out| {
                    self.push_description(out, i, cap);
                }),
                Shape::NameOnly => entries.push(name, |_| {}),
                Shape::Omitted => {}
            }
        }
        Structured {
            digest: entries.digest(),
            entries,
            report: block.report,
            block: Some(block.text),
        }
    }

    /// The text entries block of `structured` (this catalog's [`render`](Self::render)).
    pub fn block(&self, structured: &Structured) -> String {
        match &structured.block {
            Some(block) => block.clone(),
            None => self.catalog.entries(),
        }
    }

    /// The catalog message of `kind` for `structured`: today's message text.
    pub fn message(&self, structured: &Structured, kind: MessageKind) -> String {
        let block = self.block(structured);
        match kind {
            MessageKind::Initial => render_message(&block),
            MessageKind::Replacement => render_update(&block),
        }
    }
}

#[cfg(test)]
mod tests;
