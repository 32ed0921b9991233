use super::*;

mod agreement;
mod generate;
mod js_corners;
mod lines;

pub(crate) use generate::{gen_frontmatter, mutate, Rng};

pub(super) fn doc(front: &str, body: &str) -> String {
    format!("---\n{front}\n---\n{body}")
}

pub(super) fn ok(text: &str) -> ParsedSkill {
    parse(text).unwrap_or_else(|e| panic!("{text:?} should parse: {e}"))
}

pub(super) fn err(text: &str) -> FrontmatterError {
    match parse(text) {
        Ok(p) => panic!("{text:?} should fail, got {p:?}"),
        Err(e) => e,
    }
}

const BASE: &str = "name: my-skill\ndescription: Does things";

#[test]
fn minimal_skill() {
    let p = ok(&doc(BASE, "\n\n  # Body\n\nText.  \n\n"));
    assert_eq!(p.name, "my-skill");
    assert_eq!(p.description, "Does things");
    assert_eq!(p.when_to_use, None);
    assert_eq!(p.metadata, None);
    assert_eq!(p.invocation, InvocationPolicy::default());
    assert_eq!(p.body, "# Body\n\nText.");
}

#[test]
fn crlf_files() {
    let text = "---\r\nname: crlf\r\ndescription: Windows file\r\n---\r\n\r\nBody line\r\n";
    let p = ok(text);
    assert_eq!(p.name, "crlf");
    assert_eq!(p.description, "Windows file");
    assert_eq!(p.body, "Body line");
}

#[test]
fn bom_is_tolerated() {
    let p = ok(&format!("\u{feff}{}", doc(BASE, "b")));
    assert_eq!(p.name, "my-skill");
}

#[test]
fn first_line_must_be_exactly_the_delimiter() {
    for text in [
        "".to_string(),
        "no frontmatter".to_string(),
        format!(" ---\n{BASE}\n---\n"),
        format!("----\n{BASE}\n---\n"),
        format!("--- \n{BASE}\n---\n"),
        format!("\n---\n{BASE}\n---\n"),
        format!("---x\n{BASE}\n---\n"),
    ] {
        assert_eq!(err(&text), FrontmatterError::Missing, "{text:?}");
    }
}

#[test]
fn closing_line_must_be_exactly_the_delimiter() {
    assert_eq!(
        err(&format!("---\n{BASE}\n")),
        FrontmatterError::Unterminated
    );
    assert_eq!(
        err(&format!("---\n{BASE}\n--- \nbody")),
        FrontmatterError::Unterminated
    );
    assert_eq!(err("---"), FrontmatterError::Unterminated);
    assert_eq!(err("---\n"), FrontmatterError::Unterminated);
    // A closing line at the very end without a newline still closes.
    let p = ok(&format!("---\n{BASE}\n---"));
    assert_eq!(p.body, "");
}

#[test]
fn dashes_inside_a_value_do_not_close() {
    let text =
        "---\nname: dashes\ndescription: \"a --- b\"\nwhenToUse: |\n  ---x\n---\nbody\n---\nmore";
    let p = ok(text);
    assert_eq!(p.description, "a --- b");
    assert_eq!(p.when_to_use.as_deref(), Some("---x\n"));
    // The first closing line wins; later `---` lines belong to the body.
    assert_eq!(p.body, "body\n---\nmore");
}

#[test]
fn quoted_multiline_value_containing_a_delimiter_line_closes_early() {
    // The delimiter is purely line-based: a `---` line ends the frontmatter
    // even inside a quoted scalar, leaving invalid YAML behind.
    let text = "---\nname: q\ndescription: \"first\n---\nrest\"\n---\nbody";
    assert!(matches!(err(text), FrontmatterError::Yaml(_)));
}

#[test]
fn yaml_must_be_a_mapping() {
    assert_eq!(err("---\n---\nbody"), FrontmatterError::NotMapping("null"));
    assert_eq!(
        err("---\n- a\n- b\n---\n"),
        FrontmatterError::NotMapping("a sequence")
    );
    assert_eq!(
        err("---\njust text\n---\n"),
        FrontmatterError::NotMapping("a string")
    );
    assert_eq!(
        err("---\n42\n---\n"),
        FrontmatterError::NotMapping("a number")
    );
}

#[test]
fn invalid_yaml_and_duplicate_keys() {
    assert!(matches!(
        err(&doc("name: [unclosed", "")),
        FrontmatterError::Yaml(_)
    ));
    let e = err(&doc("name: a\ndescription: x\nname: b", ""));
    match &e {
        FrontmatterError::Yaml(m) => assert!(m.contains("duplicate"), "{m}"),
        other => panic!("{other:?}"),
    }
    assert!(e.to_string().starts_with("invalid YAML frontmatter"));
}

#[test]
fn name_rules() {
    for bad in [
        "name: My-Skill",
        "name: my_skill",
        "name: \"\"",
        "name: 123",
        "name: [a]",
        "name:",
        "name: -a",
        "name: a--b",
    ] {
        let e = err(&doc(&format!("{bad}\ndescription: d"), ""));
        assert!(
            matches!(e, FrontmatterError::Field { field: "name", .. }),
            "{bad}: {e:?}"
        );
    }
    let e = err(&doc("description: d", ""));
    assert_eq!(e.to_string(), "frontmatter field `name` is required");
    // Quoted digits are a string and a valid kebab-case name.
    assert_eq!(ok(&doc("name: \"123\"\ndescription: d", "")).name, "123");
}

#[test]
fn description_rules() {
    for bad in ["description: \"\"", "description: 5", "description:", ""] {
        let e = err(&doc(&format!("name: a\n{bad}"), ""));
        assert!(
            matches!(
                e,
                FrontmatterError::Field {
                    field: "description",
                    ..
                }
            ),
            "{bad}: {e:?}"
        );
    }
    let p = ok(&doc("name: a\ndescription: >\n  folded\n  text", ""));
    assert_eq!(p.description, "folded text\n");
    // Only whitespace is still a non-empty string (the registry accepts such a
    // description from any provider): kept as written.
    for (yaml, description) in [
        ("description: \"   \"", "   "),
        ("description: \"\\t\\n\"", "\t\n"),
        ("description: \"\u{3000}\"", "\u{3000}"),
    ] {
        let p = ok(&doc(&format!("name: a\n{yaml}"), ""));
        assert_eq!(p.description, description, "{yaml}");
        assert_eq!(
            p,
            parse_with_full_reader(&doc(&format!("name: a\n{yaml}"), "")).expect("full reader")
        );
    }
}

#[test]
fn yaml_12_scalars() {
    // `yes`, `on`, `no` are strings in YAML 1.2.
    let p = ok(&doc("name: a\ndescription: yes", ""));
    assert_eq!(p.description, "yes");
    let e = err(&doc("name: a\ndescription: true", ""));
    assert!(matches!(
        e,
        FrontmatterError::Field {
            field: "description",
            ..
        }
    ));
}

#[test]
fn optional_fields() {
    let p = ok(&doc(
            "name: a\ndescription: d\nwhenToUse: When asked\nmetadata:\n  owner: team\n  tags: [x, y]\n  n: 3\n  nested: {k: v}",
            "",
        ));
    assert_eq!(p.when_to_use.as_deref(), Some("When asked"));
    let m = p.metadata.expect("metadata");
    assert_eq!(m["owner"], Json::from("team"));
    assert_eq!(m["tags"], serde_json::json!(["x", "y"]));
    assert_eq!(m["n"], Json::from(3));
    assert_eq!(m["nested"], serde_json::json!({"k": "v"}));

    for ignored in [
        "whenToUse: \"\"",
        "whenToUse: 3",
        "whenToUse: [a]",
        "whenToUse:",
    ] {
        let p = ok(&doc(&format!("name: a\ndescription: d\n{ignored}"), ""));
        assert_eq!(p.when_to_use, None, "{ignored}");
    }
    for ignored in [
        "metadata: text",
        "metadata: [1]",
        "metadata:",
        "metadata: 3",
    ] {
        let p = ok(&doc(&format!("name: a\ndescription: d\n{ignored}"), ""));
        assert_eq!(p.metadata, None, "{ignored}");
    }
}

#[test]
fn metadata_keys_are_stringified_like_js() {
    let p = ok(&doc(
            "name: a\ndescription: d\nmetadata:\n  1: one\n  true: t\n  ~: n\n  1.5: f\n  big: 12345678901234567890\n  float: 2.50",
            "",
        ));
    let m = p.metadata.expect("metadata");
    assert_eq!(m["1"], Json::from("one"));
    assert_eq!(m["true"], Json::from("t"));
    assert_eq!(m[""], Json::from("n"));
    assert_eq!(m["1.5"], Json::from("f"));
    assert_eq!(m["float"], Json::from(2.5));
    assert_eq!(m["big"].as_f64(), Some(12345678901234567890.0));
}

fn invocation(front: &str) -> Result<InvocationPolicy, FrontmatterError> {
    parse(&doc(&format!("name: a\ndescription: d\n{front}"), "")).map(|p| p.invocation)
}

#[test]
fn accepted_invocation_spellings() {
    let truthy = [
        "true", "True", "TRUE", "1", "1.0", "0x1", "\"1\"", "'1'", "yes", "Yes", "YES", "on", "On",
        "ON", "\"true\"", "\"tRuE\"", "'yes'", "!!str on",
    ];
    let falsy = [
        "false",
        "False",
        "FALSE",
        "0",
        "0.0",
        "-0",
        "\"0\"",
        "no",
        "No",
        "NO",
        "off",
        "Off",
        "OFF",
        "\"false\"",
        "'nO'",
        "\"oFF\"",
    ];
    for v in truthy {
        let p = invocation(&format!(
            "disable-model-invocation: {v}\nuser-invocable: {v}"
        ))
        .unwrap_or_else(|e| panic!("{v}: {e}"));
        assert_eq!(
            p,
            InvocationPolicy {
                model_invocable: false,
                user_invocable: true
            },
            "{v}"
        );
    }
    for v in falsy {
        let p = invocation(&format!(
            "disable-model-invocation: {v}\nuser-invocable: {v}"
        ))
        .unwrap_or_else(|e| panic!("{v}: {e}"));
        assert_eq!(
            p,
            InvocationPolicy {
                model_invocable: true,
                user_invocable: false
            },
            "{v}"
        );
    }
    // Defaults: both surfaces allowed.
    assert_eq!(invocation(""), Ok(InvocationPolicy::default()));
    assert_eq!(
        invocation("user-invocable: false").expect("valid"),
        InvocationPolicy {
            model_invocable: true,
            user_invocable: false
        }
    );
}

#[test]
fn rejected_invocation_values_drop_the_skill() {
    let bad = [
        "2", "-1", "0.5", "\"2\"", "\"\"", "\" yes\"", "y", "n", "enabled", "truee", "null", "~",
        "", "[true]", "{a: 1}", "\"1.0\"", ".inf", ".nan",
    ];
    for key in [DISABLE_MODEL_INVOCATION, USER_INVOCABLE] {
        for v in bad {
            match invocation(&format!("{key}: {v}")) {
                Err(FrontmatterError::Field { field, problem }) => {
                    assert_eq!(field, key);
                    assert!(problem.contains("must be a boolean"), "{problem}");
                }
                other => panic!("{key}: {v} should be rejected, got {other:?}"),
            }
        }
    }
}

#[test]
fn legacy_keys_drop_the_skill() {
    for key in LEGACY_INVOCATION_KEYS {
        for v in ["true", "false"] {
            assert_eq!(
                invocation(&format!("{key}: {v}")),
                Err(FrontmatterError::LegacyKey(key)),
                "{key}"
            );
        }
    }
    let text = FrontmatterError::LegacyKey("userInvocable").to_string();
    assert!(
        text.contains("userInvocable") && text.contains("user-invocable"),
        "{text}"
    );
}

#[test]
fn deep_flow_nesting_is_refused_quickly() {
    let deep = format!(
        "---\nname: a\ndescription: d\nk: {}{}\n---\n",
        "[".repeat(200_000),
        "]".repeat(200_000)
    );
    let started = std::time::Instant::now();
    let err = parse(&deep).expect_err("too deep");
    assert!(err.to_string().contains("nest deeper"), "{err}");
    assert!(started.elapsed() < std::time::Duration::from_secs(2));
    // Ordinary nesting and brackets inside quoted strings still parse.
    let ok =
        "---\nname: a\ndescription: \"[[[[ not nesting\"\nmetadata: { a: [1, [2, [3]]] }\n---\n";
    assert!(parse(ok).is_ok());
}

#[test]
fn js_trim_matches_ecmascript() {
    assert_eq!(js_trim("\u{feff}\u{a0} x \u{3000}\n"), "x");
    // U+0085 (NEL) is not JS whitespace.
    assert_eq!(js_trim("\u{85}x"), "\u{85}x");
    assert_eq!(js_trim("\u{200b}x"), "\u{200b}x");
}

#[test]
fn tagged_top_level_mapping_is_a_mapping() {
    let p = ok("---\n!!map\nname: a\ndescription: d\n---\n");
    assert_eq!(p.name, "a");
}

fn meta(front: &str) -> Map<String, Json> {
    ok(&doc(
        &format!("name: a\ndescription: d\nmetadata:\n{front}"),
        "",
    ))
    .metadata
    .expect("metadata")
}

#[test]
fn integers_beyond_64_bits_keep_their_value() {
    let m = meta("  big: 123456789012345678901234567890\n  neg: -99999999999999999999\n  hex: 0xffffffffffffffffffff\n  list: [340282366920938463463374607431768211457]");
    assert_eq!(m["big"].as_f64(), Some(1.2345678901234568e29));
    assert_eq!(m["neg"].as_f64(), Some(-1e20));
    assert_eq!(m["hex"].as_f64(), Some(1.2089258196146292e24));
    assert_eq!(m["list"][0].as_f64(), Some(3.402823669209385e38));
    // Safe integers stay integers; -0 stays -0.
    let m = meta("  n: 9007199254740991\n  z: -0");
    assert_eq!(m["n"], Json::from(9_007_199_254_740_991_i64));
    assert!(m["z"]
        .as_f64()
        .is_some_and(|z| z == 0.0 && z.is_sign_negative()));
}

#[test]
fn line_separators_in_quoted_scalars_are_kept() {
    for (yaml, want) in [
        ("\"a\u{2028}b\"", "a\u{2028}b"),
        ("'a\u{2029}b'", "a\u{2029}b"),
        ("\"a\u{85}b\"", "a\u{85}b"),
        ("\"a\\Lb\\Pc\\Nd\"", "a\u{2028}b\u{2029}c\u{85}d"),
        ("a\u{85}b", "a\u{85}b"),
    ] {
        let p = ok(&doc(&format!("name: a\ndescription: {yaml}"), ""));
        assert_eq!(p.description, want, "{yaml:?}");
    }
    // NEL is not a line break: the name keeps it and is no longer kebab-case.
    for name in ["a1\u{85}", "a1\u{2028}", "\"a1\u{2029}\""] {
        let e = err(&doc(&format!("name: {name}\ndescription: d"), ""));
        assert!(
            matches!(e, FrontmatterError::Field { field: "name", .. }),
            "{name:?}: {e:?}"
        );
    }
}

#[test]
fn characters_the_scanner_handles_differently_read_like_the_js_package() {
    // U+FEFF after the start, a lone CR, and a tab after `:` are content or
    // separation exactly as the JS package reads them.
    let p = ok(&doc(
        "name: a\ndescription: x\u{feff}y\nwhenToUse: \"q\u{feff}\"",
        "",
    ));
    assert_eq!(p.description, "x\u{feff}y");
    assert_eq!(p.when_to_use.as_deref(), Some("q\u{feff}"));
    let p = ok(&doc("name: a\ndescription: x\ry", ""));
    assert_eq!(p.description, "x\ry");
    let p = ok(&doc("name:\ta\ndescription:\t\td\nmetadata:\n  k:\tv", ""));
    assert_eq!((p.name.as_str(), p.description.as_str()), ("a", "d"));
    assert_eq!(p.metadata.expect("metadata")["k"], Json::from("v"));
    // A tab after a colon inside a scalar is content.
    let p = ok(&doc(
        "name: a\ndescription: \"k:\tv\"\nwhenToUse: |\n  k:\tv",
        "",
    ));
    assert_eq!(p.description, "k:\tv");
    assert_eq!(p.when_to_use.as_deref(), Some("k:\tv\n"));
}

#[test]
fn documents_and_directives() {
    assert!(ok(&doc("name: a\ndescription: d\n...", "")).name == "a");
    for bad in [
        "name: a\ndescription: d\n...\n...",
        "name: a\ndescription: d\n--- \nname: b",
        "%YAML 1.1\n--- \nname: a\ndescription: d",
    ] {
        assert!(
            matches!(err(&doc(bad, "")), FrontmatterError::Yaml(_)),
            "{bad:?}"
        );
    }
    let p = ok(&doc("%YAML 1.2\n--- \nname: a\ndescription: yes", ""));
    assert_eq!(p.description, "yes");
}

#[test]
fn duplicate_keys_compare_resolved_values() {
    for dup in [
        "1: a\n  01: b",
        "1: a\n  1.0: b",
        "~: a\n  null: b",
        "true: a\n  True: b",
        "a: 1\n  'a': 2",
    ] {
        let e = err(&doc(
            &format!("name: a\ndescription: d\nmetadata:\n  {dup}"),
            "",
        ));
        assert!(
            e.to_string().contains("duplicate mapping key"),
            "{dup}: {e}"
        );
    }
    // A string and a number are different keys (the later one wins the JS
    // property); NaN never equals NaN.
    let m = meta("  1: a\n  '1': b\n  .nan: c\n  .NaN: d");
    assert_eq!(m["1"], Json::from("b"));
    assert_eq!(m["NaN"], Json::from("d"));
    // Keys keep document order; a JS object lists integer keys first, which
    // the JS side does on its own.
    let m = meta("  b: 1\n  a: 2\n  c: 3");
    assert_eq!(m.keys().collect::<Vec<_>>(), ["b", "a", "c"]);
}

#[test]
fn nesting_counts_structure_only() {
    let deep = "[".repeat(129);
    for yaml in [
        format!("description: \"{deep}\""),
        format!("description: '{deep}'"),
        format!("description: |\n  {deep}"),
        format!("description: a{deep}"),
    ] {
        let p = ok(&doc(&format!("name: a\n{yaml}"), ""));
        assert!(p.description.contains(&deep), "{yaml}");
    }
    assert!(parse(&doc(&format!("name: a\ndescription: d # {deep}"), "")).is_ok());
    let nested = |n: usize| {
        format!(
            "name: a\ndescription: d\nk: {}{}",
            "[".repeat(n),
            "]".repeat(n)
        )
    };
    assert!(parse(&doc(&nested(127), "")).is_ok());
    let e = err(&doc(&nested(128), ""));
    assert!(e.to_string().contains("nest deeper than 128"), "{e}");
    // Block nesting counts too.
    let mut block = String::from("name: a\ndescription: d\n");
    for i in 0..130 {
        block.push_str(&format!("{}k:\n", " ".repeat(i)));
    }
    let e = err(&doc(&block, ""));
    assert!(e.to_string().contains("nest deeper than 128"), "{e}");
}

#[test]
fn alias_expansion_is_bounded() {
    // The reported attack: 1,000 items, aliased 100 times, aliased 100 times.
    let mut yaml = format!(
        "name: a\ndescription: d\na: &a [{}]\n",
        vec!["x"; 1000].join(", ")
    );
    yaml.push_str(&format!("b: &b [{}]\n", vec!["*a"; 100].join(", ")));
    yaml.push_str(&format!("c: [{}]\n", vec!["*b"; 100].join(", ")));
    let started = std::time::Instant::now();
    let e = err(&doc(&yaml, ""));
    assert!(started.elapsed() < std::time::Duration::from_secs(2));
    assert!(
        e.to_string()
            .contains("frontmatter expands to more than 20000 nodes"),
        "{e}"
    );
    // Within the budget, aliases expand (in metadata too), and the JS
    // package's own limit (100 uses of an anchor, nested uses multiplied)
    // applies.
    let m = meta("  a: &x [1, 2]\n  b: *x\n  c: {k: *x}");
    assert_eq!(m["b"], serde_json::json!([1, 2]));
    assert_eq!(m["c"], serde_json::json!({"k": [1, 2]}));
    let uses = |n: usize| {
        format!(
            "name: a\ndescription: d\na: &a x\nb: [{}]",
            vec!["*a"; n].join(", ")
        )
    };
    assert!(parse(&doc(&uses(99), "")).is_ok());
    let e = err(&doc(&uses(100), ""));
    assert!(e.to_string().contains("excessive alias count"), "{e}");
    // An alias inside the collection it names expands forever.
    let e = err(&doc("name: a\ndescription: d\nk: &a [*a]", ""));
    assert!(matches!(e, FrontmatterError::Expands(_)), "{e}");
}

#[test]
fn node_budget_refuses_huge_documents_quickly() {
    let mut yaml = String::from("name: a\ndescription: d\n");
    for i in 0..12_000 {
        yaml.push_str(&format!("k{i}: {i}\n"));
    }
    let e = err(&doc(&yaml, ""));
    assert_eq!(
        e.to_string(),
        "frontmatter expands to more than 20000 nodes"
    );
    assert_eq!(parse_with_full_reader(&doc(&yaml, "")), Err(e));
}

#[test]
fn errors_name_the_file_line() {
    let e = err("---\nname: a\ndescription: [unclosed\n---\n");
    assert!(e.to_string().contains("line 4"), "{e}");
    let e = err("---\nname: a\ndescription: d\nname: b\n---\n");
    assert!(
        e.to_string()
            .contains("duplicate mapping key \"name\" at line 4 column 1"),
        "{e}"
    );
}

#[test]
fn implicit_keys_longer_than_1024_characters_are_refused() {
    let long = "k".repeat(1025);
    for text in [
        doc(&format!("name: a\ndescription: d\n{long}: v"), ""),
        doc(
            &format!("name: a\ndescription: d\nmetadata:\n  {long}: v"),
            "",
        ),
    ] {
        assert!(
            matches!(err(&text), FrontmatterError::Yaml(_)),
            "{}",
            &text[..40]
        );
    }
    let ok_key = "k".repeat(1000);
    let m = meta(&format!("  {ok_key}: v"));
    assert_eq!(m[&ok_key], Json::from("v"));
}

#[test]
fn a_raw_nul_is_content_as_in_the_js_package() {
    // The scanner takes U+0000 for the end of the input; the JS package reads
    // it as an ordinary character, in a comment as in any scalar.
    let p = ok(&doc(
        "# a comment with \u{0}\nname: a\ndescription: \"x\u{0}y\"\nwhenToUse: plain \u{0} text\nmetadata:\n  lit: |\n    a\u{0}b\n  single: 'q\u{0}'",
        "",
    ));
    assert_eq!(p.description, "x\u{0}y");
    assert_eq!(p.when_to_use.as_deref(), Some("plain \u{0} text"));
    let m = p.metadata.expect("metadata");
    assert_eq!(m["lit"], Json::from("a\u{0}b\n"));
    assert_eq!(m["single"], Json::from("q\u{0}"));
    // Private-use characters around it keep their value.
    let p = ok(&doc("name: a\ndescription: \"\u{e000}\u{0}\u{e001}\"", ""));
    assert_eq!(p.description, "\u{e000}\u{0}\u{e001}");
    // A NUL in a name is still not kebab-case.
    assert!(matches!(
        err(&doc("name: a\u{0}b\ndescription: d", "")),
        FrontmatterError::Field { field: "name", .. }
    ));
}

#[test]
fn a_document_end_line_before_the_content_is_a_second_document() {
    // The JS package ends an empty document at a leading `...` line and then
    // refuses the one that follows.
    for yaml in [
        "...\nname: a\ndescription: d",
        "# comment\n...\nname: a\ndescription: d",
        "... # comment\nname: a\ndescription: d",
    ] {
        let e = err(&doc(yaml, ""));
        assert!(
            e.to_string().contains("more than one YAML document"),
            "{yaml:?}: {e}"
        );
    }
    // Alone (or before comments only) it is an empty document: not a mapping.
    assert!(matches!(
        err(&doc("...\n# comment", "")),
        FrontmatterError::NotMapping(_)
    ));
    // After the content it ends the document, as before.
    assert_eq!(ok(&doc("name: a\ndescription: d\n...", "")).name, "a");
    // Not a marker: part of the text.
    assert_eq!(
        ok(&doc("name: a\ndescription: d\nwhenToUse: x\n  ...more", ""))
            .when_to_use
            .as_deref(),
        Some("x ...more")
    );
}

#[test]
fn implicit_keys_over_1024_characters_in_flow_collections() {
    let long = "k".repeat(1100);
    // In a flow mapping the JS package accepts them: so does this reader.
    for (yaml, key) in [
        (format!("  m: {{\"{long}\": v}}"), long.clone()),
        (format!("  m: {{{long}: v, b: c}}"), long.clone()),
    ] {
        let p = ok(&doc(
            &format!("name: a\ndescription: d\nmetadata:\n{yaml}"),
            "",
        ));
        let m = p.metadata.expect("metadata");
        assert_eq!(m["m"][key.as_str()], Json::from("v"), "{yaml}");
    }
    // In a flow sequence it refuses them (`KEY_OVER_1024_CHARS`): so does this
    // reader. A long entry that is not a key is fine.
    assert!(matches!(
        err(&doc(
            &format!("name: a\ndescription: d\nx: [\"{long}\": v]"),
            ""
        )),
        FrontmatterError::Yaml(_)
    ));
    let p = ok(&doc(
        &format!("name: a\ndescription: d\nmetadata:\n  x: [\"{long}\", v]"),
        "",
    ));
    assert_eq!(p.metadata.expect("metadata")["x"][1], Json::from("v"));
}

/// How many characters the YAML scanner reads before the parser hands out
/// `events` events (or fails).
fn read_ahead(yaml: &str, events: usize) -> usize {
    use saphyr_parser::Parser;
    use std::cell::Cell;
    let read = Cell::new(0usize);
    let chars = yaml.chars().inspect(|_| read.set(read.get() + 1));
    let mut parser = Parser::new_from_iter(chars);
    for _ in 0..events {
        match parser.next_event() {
            Some(Ok(_)) => {}
            _ => break,
        }
    }
    read.get()
}

#[test]
fn the_scanner_does_not_queue_a_whole_flow_collection_behind_a_possible_key() {
    // `x: [[a, a, ...]]`, `- [a, a, ...]`, `[a, a, ...]` at the top: a key
    // saved before a flow collection used to stay possible until the
    // collection closed, every token inside it queued first (1 MiB of them:
    // 180-260 MB before the composer saw an event). Implicit keys go stale
    // after 1024 characters (YAML 1.2; crates/saphyr-parser/PATCHES.md), so
    // events come after reading about that much.
    let body = "a,".repeat(100_000);
    for yaml in [
        format!("x: [[{body}a]]"),
        format!("- [{body}a]"),
        format!("[{body}a]"),
        format!("x: {{[{body}a]: v}}"),
        format!("x: [&a [{body}a]]"),
    ] {
        let read = read_ahead(&yaml, 20);
        assert!(
            read < 4096,
            "{}...: {read} characters read for 20 events",
            &yaml[..12]
        );
    }
}

#[test]
fn a_flow_collection_after_a_possible_key_is_refused_by_the_node_budget() {
    let mut yaml = String::from("name: a\ndescription: d\nx: [[");
    while yaml.len() < 1 << 20 {
        yaml.push_str("a,");
    }
    yaml.push_str("a]]");
    for shape in [
        yaml.clone(),
        yaml.replacen("x: [[", "x: {[", 1).replace("a]]", "a]: v}"),
    ] {
        let e = err(&doc(&shape, ""));
        assert!(
            matches!(e, FrontmatterError::Expands(_)),
            "{}: {e}",
            &shape[..40]
        );
    }
}

#[test]
fn directives_are_bounded() {
    let tags = |n: usize| {
        (0..n)
            .map(|i| format!("%TAG !t{i}! tag:example.com,2000:\n"))
            .collect::<String>()
    };
    let within = format!(
        "{}--- \nname: a\ndescription: d",
        tags(super::compose::MAX_DIRECTIVES)
    );
    assert_eq!(ok(&doc(&within, "")).name, "a");
    let beyond = format!(
        "{}--- \nname: a\ndescription: d",
        tags(super::compose::MAX_DIRECTIVES + 1)
    );
    let e = err(&doc(&beyond, ""));
    assert!(e.to_string().contains("more than 1000 directives"), "{e}");
    // `%` lines inside the document are text, not directives.
    let text = format!(
        "name: a\ndescription: d\nwhenToUse: |\n{}",
        "  %x\n".repeat(super::compose::MAX_DIRECTIVES + 5)
    );
    assert!(ok(&doc(&text, "")).when_to_use.is_some());
}
