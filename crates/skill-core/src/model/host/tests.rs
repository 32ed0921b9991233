//! Unit tests of the host-value rules.

use super::*;
use serde_json::{json, Value};

fn candidate_json(extra: Value) -> Value {
    let mut base = json!({
        "name": "alpha",
        "description": "Does alpha",
        "invocation": { "modelInvocable": true, "userInvocable": false },
        "source": "remote",
        "provider": "p",
        "rank": 10,
    });
    if let (Some(base), Some(extra)) = (base.as_object_mut(), extra.as_object()) {
        for (k, v) in extra {
            if v.is_null() && k.starts_with('-') {
                base.remove(&k[1..]);
            } else {
                base.insert(k.clone(), v.clone());
            }
        }
    }
    base
}

fn list(values: Vec<Value>) -> Result<HostListing, ValidationError> {
    let (head, owned) = OwnedRecords::from_list_json(&Value::Array(values));
    owned.records().check().expect("well formed");
    validate_listing("p", &head, &owned.records())
}

#[test]
fn valid_candidate_keeps_what_the_merge_needs() {
    let (head, owned) = OwnedRecords::from_list_json(&json!([
        candidate_json(json!({})),
        candidate_json(json!({"name": "beta", "rank": 2.5}))
    ]));
    let records = owned.records();
    let listing = validate_listing("p", &head, &records).expect("valid");
    assert!(listing.complete);
    let [a, b] = listing.candidates.as_slice() else {
        panic!("two candidates")
    };
    assert_eq!(a.name.of(records.text), "alpha");
    assert_eq!(b.name.of(records.text), "beta");
    assert!(!a.invocation.user_invocable);
    assert_eq!(records.strings[a.source as usize], "remote");
    assert_eq!((a.rank, b.rank), (10.0, 2.5));
}

#[test]
fn every_bad_field_is_named() {
    let cases: Vec<(Value, &str)> = vec![
        (
            json!({"name": "Bad Name"}),
            "\"name\" must be a kebab-case skill name (got \"Bad Name\")",
        ),
        (
            json!({"name": 1}),
            "\"name\" must be a kebab-case string (got number 1)",
        ),
        (
            json!({"name": ""}),
            "\"name\" must be a kebab-case skill name (got \"\")",
        ),
        (
            json!({"description": ""}),
            "\"description\" must be a non-empty string (got an empty string)",
        ),
        (
            json!({"description": null}),
            "\"description\" must be a non-empty string (got null)",
        ),
        (
            json!({"whenToUse": true}),
            "\"whenToUse\" must be a string when present (got boolean true)",
        ),
        (
            json!({"-invocation": null}),
            "\"invocation\" must be an object { modelInvocable, userInvocable } (got undefined)",
        ),
        (
            json!({"invocation": [true, true]}),
            "\"invocation\" must be an object { modelInvocable, userInvocable } (got array)",
        ),
        (
            json!({"invocation": {"modelInvocable": "yes", "userInvocable": true}}),
            "\"invocation.modelInvocable\" must be a boolean (got string)",
        ),
        (
            json!({"source": 3}),
            "\"source\" must be a non-empty string (got number 3)",
        ),
        (
            json!({"provider": "other"}),
            "\"provider\" must be \"p\" (got \"other\")",
        ),
        (
            json!({"-provider": null}),
            "\"provider\" must be \"p\" (got undefined)",
        ),
        (
            json!({"rank": "1"}),
            "\"rank\" must be a finite number (got string)",
        ),
        (
            json!({"rank": null}),
            "\"rank\" must be a finite number (got null)",
        ),
        (
            json!({"path": 1}),
            "\"path\" must be a string when present (got number 1)",
        ),
        (
            json!({"metadata": "x"}),
            "\"metadata\" must be an object when present (got string)",
        ),
        (
            json!({"metadata": []}),
            "\"metadata\" must be an object when present (got array)",
        ),
        (
            json!({"resourceBase": "x"}),
            "\"resourceBase\" must be an object when present (got string)",
        ),
        (
            json!({"resourceBase": {"kind": "url"}}),
            "\"resourceBase.url\" must be a string (got undefined)",
        ),
        (
            json!({"resourceBase": {"kind": "directory", "path": 4}}),
            "\"resourceBase.path\" must be a string (got number 4)",
        ),
        (
            json!({"resourceBase": {"kind": "opaque"}}),
            "\"resourceBase.description\" must be a string (got undefined)",
        ),
    ];
    for (extra, needle) in cases {
        let err = list(vec![candidate_json(extra.clone())])
            .expect_err(&format!("{extra} must fail"))
            .to_string();
        assert!(
            err.starts_with("skill provider \"p\" returned an invalid candidate at index 0: "),
            "{err}"
        );
        assert!(err.ends_with(needle), "{err}\n  should end with {needle}");
    }
    let err = list(vec![candidate_json(json!({})), json!(null)]).expect_err("null");
    assert!(
        err.to_string()
            .ends_with("index 1: must be an object (got null)"),
        "{err}"
    );
    let err = list(vec![json!(42)]).expect_err("number");
    assert!(err.to_string().ends_with("(got number 42)"), "{err}");
    let err = list(vec![json!([])]).expect_err("array");
    assert!(err.to_string().ends_with("(got array)"), "{err}");
}

#[test]
fn non_finite_ranks_and_host_only_types_are_reported() {
    let (head, mut owned) = OwnedRecords::from_list_json(&json!([candidate_json(json!({}))]));
    for (rank, found) in [
        (f64::INFINITY, "number Infinity"),
        (f64::NEG_INFINITY, "number -Infinity"),
        (f64::NAN, "number NaN"),
    ] {
        owned.set(0, Field::Rank, Tag::Number, Some(rank));
        let err = validate_listing("p", &head, &owned.records()).expect_err("non-finite");
        assert!(
            err.to_string()
                .ends_with(&format!("\"rank\" must be a finite number (got {found})")),
            "{err}"
        );
    }
    owned.set(0, Field::Rank, Tag::Number, Some(1.0));
    owned.set(0, Field::Description, Tag::Function, None);
    let err = validate_listing("p", &head, &owned.records()).expect_err("function");
    assert!(err.to_string().ends_with("(got function)"), "{err}");
    owned.set(0, Field::Description, Tag::Symbol, None);
    let err = validate_listing("p", &head, &owned.records()).expect_err("symbol");
    assert!(err.to_string().ends_with("(got symbol)"), "{err}");
}

#[test]
fn whitespace_descriptions_are_non_empty_strings() {
    let listing = list(vec![candidate_json(json!({"description": " \n\t "}))]).expect("valid");
    assert_eq!(listing.candidates.len(), 1);
}

#[test]
fn unknown_resource_base_kinds_pass_for_providers_and_registrations() {
    for base in [
        json!({"kind": "ftp", "host": "x"}),
        json!({"kind": 3}),
        json!({}),
    ] {
        let c = candidate_json(json!({ "resourceBase": base }));
        assert!(list(vec![c.clone()]).is_ok(), "{c}");
        let mut definition = c.clone();
        definition["content"] = json!("body");
        let owned = OwnedRecords::from_json(&[definition]);
        assert_eq!(
            validate_definition("p", &owned.records()).as_deref(),
            Ok("alpha")
        );
        let registration =
            json!({"name": "rt", "description": "d", "content": "", "resourceBase": base});
        let owned = OwnedRecords::from_json(&[registration]);
        let skill = validate_registration(&owned.records()).expect("registration");
        assert_eq!(skill.name, "rt");
    }
    // A known kind still needs its field, in a registration too.
    let registration = json!({"name": "rt", "description": "d", "content": "",
        "resourceBase": {"kind": "url"}});
    let owned = OwnedRecords::from_json(&[registration]);
    let err = validate_registration(&owned.records()).expect_err("url without url");
    assert!(
        err.to_string()
            .ends_with("\"resourceBase.url\" must be a string (got undefined)"),
        "{err}"
    );
}

#[test]
fn the_shape_is_checked_first_complete_before_candidates() {
    let head = |value: Value| OwnedRecords::from_list_json(&value).0;
    // Both wrong: `complete` is reported.
    let err = validate_list_head("p", &head(json!({"candidates": 1})), 0).expect_err("both");
    assert!(
        err.to_string()
            .ends_with("invalid list() result: \"complete\" must be a boolean (got undefined)"),
        "{err}"
    );
    let err = validate_list_head("p", &head(json!({"complete": false})), 0).expect_err("no array");
    assert!(
        err.to_string()
            .ends_with("\"candidates\" must be an array (got undefined)"),
        "{err}"
    );
    assert_eq!(
        validate_list_head("p", &head(json!({"candidates": [], "complete": false})), 3),
        Ok(false)
    );
    assert_eq!(validate_list_head("p", &head(json!([])), 3), Ok(true));
}

#[test]
fn a_result_holds_at_most_a_million_candidates() {
    let array = OwnedRecords::from_list_json(&json!([])).0;
    assert_eq!(
        validate_list_head("p", &array, MAX_LIST_CANDIDATES),
        Ok(true)
    );
    let err = validate_list_head("p", &array, 10_000_000).expect_err("too many");
    assert_eq!(
        err.to_string(),
        "skill provider \"p\" returned an invalid list() result: 10000000 candidates, more than the 1000000 one list() result may hold"
    );
    let object = OwnedRecords::from_list_json(&json!({"candidates": [], "complete": true})).0;
    let err = validate_list_head("p", &object, MAX_LIST_CANDIDATES + 1).expect_err("too many");
    assert_eq!(
        err.to_string(),
        "skill provider \"p\" returned an invalid list() result: \"candidates\" has 1000001 items, more than the 1000000 candidates one list() result may hold"
    );
    // The shape comes first.
    let bad = OwnedRecords::from_list_json(&json!({"candidates": []})).0;
    let err = validate_list_head("p", &bad, 10_000_000).expect_err("no complete");
    assert!(
        err.to_string().contains("\"complete\" must be a boolean"),
        "{err}"
    );
}

#[test]
fn the_first_invalid_candidate_is_the_one_reported() {
    let err = list(vec![
        candidate_json(json!({})),
        json!(null),
        candidate_json(json!({"name": "Bad"})),
        json!(7),
    ])
    .expect_err("invalid");
    assert!(
        err.to_string()
            .ends_with("invalid candidate at index 1: must be an object (got null)"),
        "{err}"
    );
    let err = list(vec![candidate_json(json!({"rank": "1"})), json!(null)]).expect_err("invalid");
    assert!(err.to_string().contains("at index 0: \"rank\""), "{err}");
}

#[test]
fn list_results() {
    let obs = json!({"candidates": [candidate_json(json!({}))], "complete": false});
    let (head, owned) = OwnedRecords::from_list_json(&obs);
    let listing = validate_listing("p", &head, &owned.records()).expect("observation");
    assert!(!listing.complete);
    assert_eq!(listing.candidates.len(), 1);
    for (bad, needle) in [
        (json!(42), "returned an invalid list() result: expected an array of candidates or { candidates, complete } (got number 42)"),
        (json!(null), "(got null)"),
        (json!("x"), "(got string)"),
        (json!({"candidates": "x", "complete": true}), "\"candidates\" must be an array (got string)"),
        (json!({"candidates": [], "complete": "yes"}), "\"complete\" must be a boolean (got string)"),
        (json!({"candidates": [], "complete": 1}), "\"complete\" must be a boolean (got number 1)"),
        (json!({"complete": true}), "\"candidates\" must be an array (got undefined)"),
    ] {
        let (head, owned) = OwnedRecords::from_list_json(&bad);
        let err = validate_listing("p", &head, &owned.records())
            .expect_err("must fail")
            .to_string();
        assert!(err.contains("\"p\"") && err.ends_with(needle), "{err}\n  should end with {needle}");
    }
}

#[test]
fn registration_defaults_and_rules() {
    let owned =
        OwnedRecords::from_json(&[json!({"name": "rt", "description": "d", "content": "body"})]);
    let skill = validate_registration(&owned.records()).expect("valid");
    assert_eq!(skill.provider, RUNTIME_PROVIDER);
    assert_eq!(skill.source, RUNTIME_SOURCE);
    assert_eq!(skill.invocation, InvocationPolicy::default());
    let owned = OwnedRecords::from_json(&[json!({
        "name": "rt", "description": " ", "content": "", "source": "s", "provider": "q",
        "invocation": {"modelInvocable": false, "userInvocable": true},
        "resourceBase": {"kind": "url", "url": "https://x"}
    })]);
    let skill = validate_registration(&owned.records()).expect("valid");
    assert_eq!((skill.source.as_str(), skill.provider.as_str()), ("s", "q"));
    assert!(!skill.invocation.model_invocable);
    for (bad, needle) in [
        (
            json!({"name": "rt", "description": "d"}),
            "\"content\" must be a string (got undefined)",
        ),
        (
            json!({"name": "rt", "description": "", "content": ""}),
            "\"description\" must be a non-empty string",
        ),
        (
            json!({"name": "rt", "description": "d", "content": "", "source": ""}),
            "\"source\" must be a non-empty string",
        ),
        (
            json!({"name": "Rt", "description": "d", "content": ""}),
            "\"name\" must be a kebab-case skill name",
        ),
        (
            json!("rt"),
            "an invalid runtime skill: must be an object (got string)",
        ),
    ] {
        let owned = OwnedRecords::from_json(std::slice::from_ref(&bad));
        let err = validate_registration(&owned.records())
            .expect_err("must fail")
            .to_string();
        assert!(err.contains(needle), "{bad}: {err}");
    }
}

#[test]
fn definitions_need_content() {
    let owned = OwnedRecords::from_json(&[candidate_json(json!({}))]);
    let err = validate_definition("p", &owned.records()).expect_err("no content");
    assert!(
        err.to_string()
            .contains("definition from get(): \"content\" must be a string"),
        "{err}"
    );
    let owned = OwnedRecords::from_json(&[json!(7)]);
    let err = validate_definition("p", &owned.records()).expect_err("number");
    assert!(
        err.to_string()
            .ends_with("must be an object or undefined (got number 7)"),
        "{err}"
    );
}

#[test]
fn malformed_packing_is_detected() {
    let owned = OwnedRecords::from_json(&[candidate_json(json!({}))]);
    let good = owned.records();
    assert_eq!(good.check(), Ok(()));
    let bad_tags = [99u8; Field::COUNT];
    for broken in [
        Records { ranks: &[], ..good },
        Records {
            tags: &bad_tags,
            ..good
        },
        Records {
            spans: &[0, 99],
            ..good
        },
        Records {
            refs: &[7, 7, 7],
            ..good
        },
        Records {
            numbers: &[1.0],
            ..good
        },
    ] {
        assert!(broken.check().is_err());
    }
}
