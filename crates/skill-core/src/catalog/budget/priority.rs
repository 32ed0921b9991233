//! The priority groups of a budget's steps (see the [`super`] docs): who is
//! kept ahead of the shares, and the sources that share the rest.
//!
//! 1. **Pinned** skills, in the order of the pins: a pin is a skill name, or a
//!    glob where `*` stands for any run of characters (the glob rule of the
//!    registry overrides, [`Glob`]). The skills one glob matches come by
//!    rank, then name. A pin that matches nothing is ignored; a skill two pins
//!    match takes the place of the first.
//! 2. **Preferred** skills ([`super::Budget::with_preferred`]), in the order
//!    given: exact names, pinned ones and names the catalog does not hold
//!    ignored.
//! 3. **The sources**: the other skills by their origin's group (the folder
//!    they were found in, else their source label), nearest first (the lowest
//!    rank among a source's skills, then the group's name), each in name
//!    order. A catalog without origins is one source.

use crate::catalog::Catalog;
use crate::overrides::Glob;
use std::collections::HashMap;

/// One pin: an exact name or a glob.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Pin {
    Exact(String),
    Glob(Glob),
}

impl Pin {
    /// `text` as a pin: a glob when it holds a `*`.
    pub(super) fn new(text: &str) -> Self {
        if text.contains('*') {
            Pin::Glob(Glob::new(text))
        } else {
            Pin::Exact(text.to_string())
        }
    }
}

/// Entry indices of a catalog in priority groups.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Groups {
    /// Pinned entries, in pin order.
    pub pinned: Vec<usize>,
    /// Preferred entries, in the order given.
    pub preferred: Vec<usize>,
    /// The other entries, one group per source (nearest first), each in
    /// name order.
    pub sources: Vec<Vec<usize>>,
}

/// Moves the entries named `name` that are not taken yet into `group`
/// (items are sorted by name; a plain array may hold a name twice).
fn take_named(items: &[(&str, &str)], name: &str, taken: &mut [bool], group: &mut Vec<usize>) {
    let start = items.partition_point(|(n, _)| *n < name);
    for (i, (n, _)) in items.iter().enumerate().skip(start) {
        if *n != name {
            break;
        }
        if !taken[i] {
            taken[i] = true;
            group.push(i);
        }
    }
}

/// The priority groups of `catalog`'s entries under `pins`, then the
/// `preferred` names, then the sources.
pub(super) fn groups(catalog: &Catalog<'_>, pins: &[Pin], preferred: &[String]) -> Groups {
    let items = &catalog.items;
    let origins = catalog.origins();
    let mut taken = vec![false; items.len()];
    let mut pinned = Vec::new();
    for pin in pins {
        match pin {
            Pin::Exact(name) => take_named(items, name, &mut taken, &mut pinned),
            Pin::Glob(glob) => {
                // A glob's matches by rank, then name (the entry order; the sort is stable).
                let mut matches: Vec<usize> = (0..items.len())
                    .filter(|&i| !taken[i] && glob.matches(items[i].0))
                    .collect();
                if !origins.is_empty() {
                    matches.sort_by(|&a, &b| origins[a].rank.total_cmp(&origins[b].rank));
                }
                for i in matches {
                    taken[i] = true;
                    pinned.push(i);
                }
            }
        }
    }
    let mut first = Vec::new();
    for name in preferred {
        take_named(items, name, &mut taken, &mut first);
    }
    // (group, lowest rank, entries), in order of first appearance.
    let mut sources: Vec<(&str, f64, Vec<usize>)> = Vec::new();
    let mut at: HashMap<&str, usize> = HashMap::new();
    // The group seen last and its place (neighbours mostly share a group).
    let mut last: Option<(&str, usize)> = None;
    for i in (0..items.len()).filter(|&i| !taken[i]) {
        let (group, rank) = origins.get(i).map_or(("", 0.0), |o| (o.group, o.rank));
        let k = match last {
            Some((seen, k)) if std::ptr::eq(seen, group) || seen == group => k,
            _ => *at.entry(group).or_insert_with(|| {
                sources.push((group, rank, Vec::new()));
                sources.len() - 1
            }),
        };
        last = Some((group, k));
        let source = &mut sources[k];
        if rank < source.1 {
            source.1 = rank;
        }
        source.2.push(i);
    }
    sources.sort_by(|a, b| a.1.total_cmp(&b.1).then_with(|| a.0.cmp(b.0)));
    Groups {
        pinned,
        preferred: first,
        sources: sources.into_iter().map(|(_, _, entries)| entries).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Origin;

    fn pins(list: &[&str]) -> Vec<Pin> {
        list.iter().map(|p| Pin::new(p)).collect()
    }

    #[test]
    fn without_origins_the_unpinned_entries_are_one_source_in_name_order() {
        let catalog = Catalog::new([("c", "x"), ("a", "x"), ("b", "x")], 500).expect("valid");
        assert_eq!(
            groups(&catalog, &pins(&["c", "not-here"]), &[]),
            Groups {
                pinned: vec![2],
                preferred: vec![],
                sources: vec![vec![0, 1]]
            }
        );
        let empty = Catalog::new([], 500).expect("valid");
        assert_eq!(
            groups(&empty, &[], &[]),
            Groups {
                pinned: vec![],
                preferred: vec![],
                sources: vec![]
            }
        );
    }

    #[test]
    fn preferred_names_come_right_after_the_pins() {
        let catalog =
            Catalog::new([("c", "x"), ("a", "x"), ("b", "x"), ("d", "x")], 500).expect("valid");
        let preferred = [
            "d".to_string(),
            "zz".to_string(),
            "c".to_string(),
            "b".to_string(),
        ];
        assert_eq!(
            groups(&catalog, &pins(&["b"]), &preferred),
            Groups {
                pinned: vec![1],
                preferred: vec![3, 2],
                sources: vec![vec![0]]
            }
        );
        assert_eq!(
            groups(&catalog, &[], &["zz".to_string()]),
            groups(&catalog, &[], &[])
        );
    }

    #[test]
    fn sources_by_folder_nearest_first_and_globs_by_rank() {
        let at = |source, rank| Origin::new(source, rank);
        let catalog = Catalog::with_origins(
            [
                ("zz-deploy", "x", at("project-dsh", 100.0)),
                ("a-user", "x", at("user-dsh", 400.0)),
                ("b-user", "x", at("user-dsh", 400.0)),
                ("m-runtime", "x", at("runtime", 250.0)),
                ("deploy-b", "x", at("bundled", 600.0)),
                ("deploy-a", "x", at("user-dsh", 400.0)),
                ("team-b", "x", at("custom", 300.0).in_folder(Some("/t/b"))),
                ("team-a", "x", at("custom", 300.0).in_folder(Some("/t/a"))),
                ("team-c", "x", at("custom", 300.0).in_folder(Some("/t/a"))),
            ],
            500,
        )
        .expect("valid");
        // Entry order: a-user 0, b-user 1, deploy-a 2, deploy-b 3, m-runtime 4,
        // team-a 5, team-b 6, team-c 7, zz-deploy 8. Two custom folders of one
        // rank: two sources, by folder name.
        assert_eq!(
            groups(&catalog, &[], &[]),
            Groups {
                pinned: vec![],
                preferred: vec![],
                sources: vec![
                    vec![8],
                    vec![4],
                    vec![5, 7],
                    vec![6],
                    vec![0, 1, 2],
                    vec![3]
                ]
            }
        );
        // A glob's matches come by rank, then name; a second match keeps the
        // first place.
        let g = groups(
            &catalog,
            &pins(&["b-user", "deploy-*", "*-deploy", "b-*"]),
            &[],
        );
        assert_eq!(g.pinned, vec![1, 2, 3, 8]);
        assert_eq!(g.sources, vec![vec![4], vec![5, 7], vec![6], vec![0]]);
        assert_eq!(
            groups(&catalog, &pins(&["*"]), &[]).pinned,
            vec![8, 4, 5, 6, 7, 0, 1, 2, 3]
        );
        assert_eq!(
            groups(&catalog, &pins(&["x-*", "*-y"]), &[]).pinned,
            Vec::<usize>::new()
        );
    }
}
