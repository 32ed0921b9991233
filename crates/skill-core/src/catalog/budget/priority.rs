//! Who keeps a full description longest when a budget must cut: the
//! priority groups of the budget's steps (see the [`super`] docs).
//!
//! 1. **Pinned** skills, in the order of the pins: a pin is a skill name, or a
//!    glob where `*` stands for any run of characters (the glob rule of the
//!    registry overrides, [`Glob`]). The skills one glob matches come in the
//!    order of step 2. A pin that matches nothing is ignored; a skill two pins
//!    match takes the place of the first.
//! 2. **Preferred** skills ([`super::Budget::with_preferred`]), in the order
//!    given, as one group of their own: exact names, pinned ones and names
//!    the catalog does not hold ignored.
//! 3. **The others by rank**, lower rank (nearer source) first, one group per
//!    rank, each in name order. Ranks are the registry's (an array the
//!    registry returned) or stand in for the source label
//!    ([`super::super::source_rank`]); a catalog without origins has one rank.

use crate::catalog::Catalog;
use crate::overrides::Glob;

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

/// Entry indices of a catalog in priority groups, highest priority first.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Groups {
    /// Pinned entries, in pin order.
    pub pinned: Vec<usize>,
    /// The other entries, one group per rank (lowest rank first), each in
    /// name order.
    pub ranks: Vec<Vec<usize>>,
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
/// `preferred` names (the first group of [`Groups::ranks`] when any matches).
pub(super) fn groups(catalog: &Catalog<'_>, pins: &[Pin], preferred: &[String]) -> Groups {
    let items = &catalog.items;
    let origins = catalog.origins();
    // Entry indices by rank, then name (the entry order; the sort is stable).
    let mut order: Vec<usize> = (0..items.len()).collect();
    if !origins.is_empty() {
        order.sort_by(|&a, &b| origins[a].rank.total_cmp(&origins[b].rank));
    }
    let mut is_pinned = vec![false; items.len()];
    let mut pinned = Vec::new();
    for pin in pins {
        match pin {
            Pin::Exact(name) => take_named(items, name, &mut is_pinned, &mut pinned),
            Pin::Glob(glob) => {
                for &i in &order {
                    if !is_pinned[i] && glob.matches(items[i].0) {
                        is_pinned[i] = true;
                        pinned.push(i);
                    }
                }
            }
        }
    }
    let mut ranks: Vec<Vec<usize>> = Vec::new();
    let mut first = Vec::new();
    for name in preferred {
        take_named(items, name, &mut is_pinned, &mut first);
    }
    if !first.is_empty() {
        ranks.push(first);
    }
    let preferred_groups = ranks.len();
    let mut last_rank = None;
    for &i in order.iter().filter(|&&i| !is_pinned[i]) {
        let rank = origins.get(i).map(|o| o.rank);
        let same_group =
            ranks.len() > preferred_groups && rank.map(f64::to_bits) == last_rank.map(f64::to_bits);
        match ranks.last_mut() {
            Some(group) if same_group => group.push(i),
            _ => ranks.push(vec![i]),
        }
        last_rank = rank;
    }
    Groups { pinned, ranks }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Origin;

    fn pins(list: &[&str]) -> Vec<Pin> {
        list.iter().map(|p| Pin::new(p)).collect()
    }

    #[test]
    fn without_origins_the_unpinned_entries_are_one_group_in_name_order() {
        let catalog = Catalog::new([("c", "x"), ("a", "x"), ("b", "x")], 500).expect("valid");
        assert_eq!(
            groups(&catalog, &pins(&["c", "not-here"]), &[]),
            Groups {
                pinned: vec![2],
                ranks: vec![vec![0, 1]]
            }
        );
        let empty = Catalog::new([], 500).expect("valid");
        assert_eq!(
            groups(&empty, &[], &[]),
            Groups {
                pinned: vec![],
                ranks: vec![]
            }
        );
    }

    #[test]
    fn preferred_names_come_right_after_the_pins_as_one_group() {
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
                ranks: vec![vec![3, 2], vec![0]]
            }
        );
        assert_eq!(
            groups(&catalog, &[], &["zz".to_string()]),
            groups(&catalog, &[], &[])
        );
    }

    #[test]
    fn ranks_then_names_and_globs_in_that_order() {
        let at = |source, rank| Origin { source, rank };
        let catalog = Catalog::with_origins(
            [
                ("zz-deploy", "x", at("project-dsh", 100.0)),
                ("a-user", "x", at("user-dsh", 400.0)),
                ("b-user", "x", at("user-dsh", 400.0)),
                ("m-runtime", "x", at("runtime", 250.0)),
                ("deploy-b", "x", at("bundled", 600.0)),
                ("deploy-a", "x", at("user-dsh", 400.0)),
            ],
            500,
        )
        .expect("valid");
        // Entry order: a-user 0, b-user 1, deploy-a 2, deploy-b 3, m-runtime 4, zz-deploy 5.
        assert_eq!(
            groups(&catalog, &[], &[]),
            Groups {
                pinned: vec![],
                ranks: vec![vec![5], vec![4], vec![0, 1, 2], vec![3]]
            }
        );
        // A glob's matches come by rank, then name; a second match keeps the
        // first place.
        assert_eq!(
            groups(
                &catalog,
                &pins(&["b-user", "deploy-*", "*-deploy", "b-*"]),
                &[]
            ),
            Groups {
                pinned: vec![1, 2, 3, 5],
                ranks: vec![vec![4], vec![0]]
            }
        );
        assert_eq!(
            groups(&catalog, &pins(&["*"]), &[]).pinned,
            vec![5, 4, 0, 1, 2, 3]
        );
        assert_eq!(
            groups(&catalog, &pins(&["x-*", "*-y"]), &[]).pinned,
            Vec::<usize>::new()
        );
    }
}
