use super::*;
use crate::test_rng::Rng;

fn units(text: &str) -> Vec<u16> {
    text.encode_utf16().collect()
}

/// Entries from `(name, description)` strings, in the order given.
fn entries(pairs: &[(&str, &str)]) -> StructuredEntries {
    let pairs: Vec<(Vec<u16>, Vec<u16>)> =
        pairs.iter().map(|(n, d)| (units(n), units(d))).collect();
    StructuredEntries::from_pairs(pairs.iter().map(|(n, d)| (&n[..], &d[..])))
}

fn names(entries: &StructuredEntries) -> Vec<String> {
    entries
        .pairs()
        .map(|(n, _)| String::from_utf16_lossy(n))
        .collect()
}

#[test]
fn diff_lists_added_changed_and_removed_in_name_order() {
    let before = entries(&[
        ("alpha", "A."),
        ("beta", "B."),
        ("delta", "D."),
        ("gamma", "G."),
    ]);
    let after = entries(&[
        ("alpha", "A."),
        ("beta", "B, now."),
        ("cobra", "C."),
        ("gamma", "G."),
        ("zeta", "Z."),
    ]);
    let delta = diff(&before, &after);
    assert_eq!(names(&delta.added), ["cobra", "zeta"]);
    assert_eq!(delta.changed, entries(&[("beta", "B, now.")]));
    assert_eq!(names(&delta.removed), ["delta"]);
    assert!(delta.removed.pairs().all(|(_, d)| d.is_empty()));
    assert_eq!(apply(&before, &delta), Some(after.clone()));
    assert!(diff(&after, &after).is_empty());
    assert_eq!(diff(&StructuredEntries::default(), &after).added, after);
    assert_eq!(
        names(&diff(&after, &StructuredEntries::default()).removed),
        names(&after)
    );
}

#[test]
fn keeps_lone_surrogates_and_name_only_entries_exactly() {
    let lone = [0x78u16, 0xd83d];
    let before = entries(&[("a", "x"), ("b", "")]);
    let mut after = StructuredEntries::default();
    after.push_units(&units("a"), &lone);
    after.push_units(&units("b"), &units("now full"));
    let delta = diff(&before, &after);
    assert_eq!(delta.changed, after);
    assert_eq!(apply(&before, &delta), Some(after));
}

#[test]
fn apply_refuses_a_delta_that_does_not_fit() {
    let base = entries(&[("alpha", "A."), ("beta", "B.")]);
    let added_twice = Delta {
        added: entries(&[("alpha", "again")]),
        ..Delta::default()
    };
    let change_missing = Delta {
        changed: entries(&[("cobra", "C.")]),
        ..Delta::default()
    };
    let remove_missing = Delta {
        removed: entries(&[("cobra", "")]),
        ..Delta::default()
    };
    let named_twice = Delta {
        changed: entries(&[("alpha", "x")]),
        removed: entries(&[("alpha", "")]),
        ..Delta::default()
    };
    let added_dup = Delta {
        added: entries(&[("cobra", "1"), ("cobra", "2")]),
        ..Delta::default()
    };
    for delta in [
        added_twice,
        change_missing,
        remove_missing,
        named_twice,
        added_dup,
    ] {
        assert_eq!(apply(&base, &delta), None, "{delta:?}");
    }
    // Added entries come in any order and land in name order.
    let unordered = Delta {
        added: entries(&[("zeta", "Z."), ("aardvark", "0.")]),
        ..Delta::default()
    };
    let applied = apply(&base, &unordered).expect("fits");
    assert_eq!(names(&applied), ["aardvark", "alpha", "beta", "zeta"]);
    assert!(in_name_order(&applied));
}

#[test]
fn name_order_is_strict() {
    assert!(in_name_order(&entries(&[])));
    assert!(in_name_order(&entries(&[("a", ""), ("b", "")])));
    assert!(!in_name_order(&entries(&[("b", ""), ("a", "")])));
    assert!(!in_name_order(&entries(&[("a", "1"), ("a", "2")])));
}

/// Random catalogs: the delta of any two rebuilds the second from the first,
/// and names each skill in at most one of its lists.
#[test]
fn apply_of_diff_gives_the_second_catalog() {
    let mut rng = Rng::new(0xde17a);
    let pool: Vec<String> = (0..60).map(|i| format!("skill-{i:02}")).collect();
    let random = |rng: &mut Rng| {
        let mut chosen: Vec<(&str, String)> = Vec::new();
        for name in &pool {
            if rng.chance(50) {
                chosen.push((name.as_str(), format!("d{}", rng.below(4))));
            }
        }
        let pairs: Vec<(&str, &str)> = chosen.iter().map(|(n, d)| (*n, d.as_str())).collect();
        entries(&pairs)
    };
    for _ in 0..500 {
        let before = random(&mut rng);
        let after = random(&mut rng);
        let delta = diff(&before, &after);
        assert_eq!(apply(&before, &delta).as_ref(), Some(&after));
        let mut seen = names(&delta.added);
        seen.extend(names(&delta.changed));
        seen.extend(names(&delta.removed));
        let count = seen.len();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), count);
    }
}
