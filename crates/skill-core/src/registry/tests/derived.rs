//! Search and usage on merged catalogs.

use super::*;

fn spans(bounds: &[(u32, u32)]) -> Vec<Span> {
    bounds
        .iter()
        .map(|&(start, end)| Span { start, end })
        .collect()
}

#[test]
fn search_reads_the_merged_model_facing_entries_once_descriptions_are_known() {
    let r = Registry::new(4).expect("registry");
    r.register_provider("js", None).expect("js");
    let fake = Arc::new(Fake::default());
    r.register_provider("fake", Some(fake)).expect("fake");
    assert!(r.register_runtime(runtime("middle")).is_some());
    let (cat, _) = done(r.collect(None, 0).finish(vec![
        host("js", &[("hidden-one", 1.0), ("zulu", 1.0)], true),
        listed(vec![cand("alpha", "fake", 1.0)]),
    ]));
    // Host-held descriptions first.
    assert!(cat.search("zulu", 10).is_none());
    assert!(cat.fingerprint().is_none());
    let text = "hidden onemiddle from runtimezulu from js".to_string();
    cat.supply_descriptions(text, spans(&[(0, 10), (10, 29), (29, 41)]))
        .expect("fits");
    let found = cat.search("from", 10).expect("searchable");
    // Positions in the catalog; the model-disabled skill is not searched;
    // equal scores go by rank (the runtime skill's 250 last), then name.
    let found_names: Vec<&str> = found
        .hits
        .iter()
        .map(|h| cat.name(&cat.entries()[h.id as usize]))
        .collect();
    assert_eq!(found.total, 3);
    assert_eq!(found_names, ["alpha", "zulu", "middle"]);
    let zulu = cat.search("zulu", 10).expect("searchable");
    assert!(zulu.hits[0].exact);
    assert_eq!(cat.name(&cat.entries()[zulu.hits[0].id as usize]), "zulu");
    assert_eq!(cat.search("hidden", 10).expect("searchable").total, 0);
    // The index is built once and kept with the catalog.
    let a = cat.search_index().expect("built") as *const _;
    let b = cat.search_index().expect("built") as *const _;
    assert_eq!(a, b);
}

#[test]
fn usage_is_per_view_and_frozen_per_catalog_entries() {
    let r = Registry::new(4).expect("registry");
    let fake = Arc::new(Fake::default());
    r.register_provider("fake", Some(fake)).expect("fake");
    let (one, _) = done(r.collect(Some("/p"), 0).finish(vec![listed(vec![
        cand("alpha", "fake", 1.0),
        cand("beta", "fake", 1.0),
    ])]));
    let book = r.usage();
    one.record_use(&book, "beta");
    assert_eq!(&*one.preferred(&book), ["beta"]);
    one.record_use(&book, "alpha");
    one.record_use(&book, "alpha");
    // Frozen while the entries stay the same, even in a new catalog.
    r.invalidate(1);
    let (same, _) = done(r.collect(Some("/p/."), 0).finish(vec![listed(vec![
        cand("alpha", "fake", 1.0),
        cand("beta", "fake", 1.0),
    ])]));
    assert_ne!(same.id, one.id);
    assert_eq!(same.fingerprint(), one.fingerprint());
    assert_eq!(&*same.preferred(&book), ["beta"]);
    // Read again when they changed.
    let (changed, _) = done(r.collect(Some("/p"), 0).finish(vec![listed(vec![
        cand("alpha", "fake", 1.0),
        cand("beta", "fake", 1.0),
        cand("gamma", "fake", 1.0),
    ])]));
    assert_ne!(changed.fingerprint(), one.fingerprint());
    assert_eq!(&*changed.preferred(&book), ["alpha", "beta"]);
    // Another cwd is another view.
    let (other, _) = done(
        r.collect(Some("/q"), 0)
            .finish(vec![listed(vec![cand("alpha", "fake", 1.0)])]),
    );
    assert!(other.preferred(&book).is_empty());
}
