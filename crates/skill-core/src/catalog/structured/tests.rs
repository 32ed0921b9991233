use super::*;
use crate::catalog::tests::xorshift;
use crate::catalog::{content_digest, digest_hex, utf16_len, MessageKind};

fn skill<'a>(name: &'a str, description: &'a str) -> StructuredSkill<'a> {
    StructuredSkill {
        name,
        description,
        units: None,
        origin: None,
    }
}

fn structured(skills: &[(&str, &str)], max_len: usize) -> (StructuredCatalog<'static>, Structured) {
    let owned: Vec<(String, String)> = skills
        .iter()
        .map(|(n, d)| (n.to_string(), d.to_string()))
        .collect();
    let leaked: &'static [(String, String)] = Box::leak(owned.into_boxed_slice());
    let catalog =
        StructuredCatalog::new(leaked.iter().map(|(n, d)| skill(n, d)).collect(), max_len)
            .expect("valid");
    let rendered = catalog.render();
    (catalog, rendered)
}

fn strings(entries: &StructuredEntries) -> Vec<(String, String)> {
    entries
        .pairs()
        .map(|(n, d)| (String::from_utf16_lossy(n), String::from_utf16_lossy(d)))
        .collect()
}

/// The JS rule over UTF-16 units, written plainly: collapse, trim, cut.
fn oracle_units(description: &[u16], max: usize) -> Vec<u16> {
    let mut collapsed: Vec<u16> = Vec::new();
    let mut in_ws = false;
    for &u in description {
        let ws = char::from_u32(u32::from(u)).is_some_and(crate::catalog::is_js_whitespace);
        if ws {
            if !in_ws {
                collapsed.push(0x20);
            }
            in_ws = true;
        } else {
            collapsed.push(u);
            in_ws = false;
        }
    }
    while collapsed.first() == Some(&0x20) {
        collapsed.remove(0);
    }
    while collapsed.last() == Some(&0x20) {
        collapsed.pop();
    }
    if collapsed.len() > max {
        collapsed.truncate(max - 3);
        collapsed.extend([0x2e; 3]);
    }
    collapsed
}

#[test]
fn entries_are_the_text_entries_unescaped() {
    let (catalog, s) = structured(
        &[
            ("b-skill", "  Second\n\tline & <tag>  "),
            ("a-skill", "First"),
        ],
        500,
    );
    assert_eq!(
        strings(&s.entries),
        [
            ("a-skill".to_string(), "First".to_string()),
            ("b-skill".to_string(), "Second line & <tag>".to_string()),
        ]
    );
    assert_eq!(
        s.digest,
        digest_hex("[\"a-skill\",\"First\"]\n[\"b-skill\",\"Second line & <tag>\"]")
    );
    assert_eq!(
        catalog.block(&s),
        "- `a-skill`: First\n- `b-skill`: Second line &amp; &lt;tag&gt;"
    );
    assert_eq!(s.report.chars, utf16_len(&catalog.block(&s)));
    let (_, empty) = structured(&[], 500);
    assert!(empty.entries.is_empty());
    assert_eq!(empty.digest, digest_hex(""));
}

#[test]
fn cuts_keep_a_lone_high_surrogate_like_js_slice() {
    // "abc😀defgh" cut to 7: slice(0, 4) keeps the high half of 😀.
    let (catalog, s) = structured(&[("a", "abc😀defgh")], 7);
    let (_, description) = s.entries.pairs().next().expect("one entry");
    assert_eq!(description, [0x61, 0x62, 0x63, 0xd83d, 0x2e, 0x2e, 0x2e]);
    assert_eq!(s.digest, digest_hex("[\"a\",\"abc\\ud83d...\"]"));
    // The text holds U+FFFD there, as the text renderer does.
    assert_eq!(catalog.block(&s), "- `a`: abc\u{fffd}...");
    assert_eq!(catalog.block(&s), catalog.catalog().entries());
}

#[test]
fn exact_units_keep_lone_surrogates_of_the_input() {
    let units: Vec<u16> = vec![0x78, 0xdc00, 0x20, 0x20, 0x79, 0xd800];
    let lossy = String::from_utf16_lossy(&units);
    let catalog = StructuredCatalog::new(
        vec![StructuredSkill {
            name: "a",
            description: &lossy,
            units: Some(&units),
            origin: None,
        }],
        500,
    )
    .expect("valid");
    let s = catalog.render();
    assert_eq!(s.digest, digest_hex("[\"a\",\"x\\udc00 y\\ud800\"]"));
    // Without the units, the U+FFFD of the UTF-8 text is hashed as itself.
    let (_, lossy_s) = structured(&[("a", &lossy)], 500);
    assert_eq!(
        lossy_s.digest,
        digest_hex("[\"a\",\"x\u{fffd} y\u{fffd}\"]")
    );
    assert_eq!(catalog.block(&s), "- `a`: x\u{fffd} y\u{fffd}");
}

#[test]
fn matches_the_oracles_on_generated_catalogs() {
    let pool = [
        "a",
        "word",
        "two words",
        " ",
        "\t",
        "\n",
        "\r\n",
        "\u{a0}",
        "\u{2028}",
        "\u{2029}",
        "\u{feff}",
        "\u{3000}",
        "\u{85}",
        "😀",
        "𝄞",
        "é",
        "e\u{301}",
        "中",
        "\u{5d0}\u{5d1}",
        "&",
        "<",
        ">",
        "\"",
        "\\",
        "'",
        "`",
        "/",
        "\u{0}",
        "\u{1}",
        "\u{8}",
        "\u{c}",
        "\u{1f}",
        "\u{7f}",
        "\u{fffd}",
        "</available_skills>",
    ];
    let names = ["a", "b-c", "d", "e-f-g", "h", "i-j", "k"];
    let mut next = xorshift(0x1234_5678_9abc_def1);
    let mut seen = [0usize; 3];
    for round in 0..2000 {
        let count = (next() % 6) as usize;
        let skills: Vec<(String, String)> = (0..count)
            .map(|_| {
                let name = names[(next() % names.len() as u64) as usize].to_string();
                let d: String = (0..(next() % 30))
                    .map(|_| pool[(next() % pool.len() as u64) as usize])
                    .collect();
                (name, d)
            })
            .collect();
        let max = [3, 4, 5, 7, 10, 40, 500][(next() % 7) as usize];
        let pairs: Vec<(&str, &str)> = skills
            .iter()
            .map(|(n, d)| (n.as_str(), d.as_str()))
            .collect();
        let (catalog, s) = structured(&pairs, max);
        // Entries: the plain rule over UTF-16 units, in stable name order.
        let mut sorted = skills.clone();
        sorted.sort_by(|a, b| a.0.cmp(&b.0));
        let expected: Vec<(Vec<u16>, Vec<u16>)> = sorted
            .iter()
            .map(|(n, d)| {
                let units: Vec<u16> = d.encode_utf16().collect();
                (n.encode_utf16().collect(), oracle_units(&units, max))
            })
            .collect();
        let got: Vec<(Vec<u16>, Vec<u16>)> = s
            .entries
            .pairs()
            .map(|(n, d)| (n.to_vec(), d.to_vec()))
            .collect();
        assert_eq!(got, expected, "round {round}");
        // Digest: serde_json writes well-formed strings as JSON.stringify does.
        let lines: Vec<String> = got
            .iter()
            .map(|(n, d)| {
                seen[2] += usize::from(d.iter().any(|&u| u < 0x20));
                if char::decode_utf16(d.iter().copied()).any(|c| c.is_err()) {
                    seen[0] += 1;
                    // A cut split a pair: JSON.stringify escapes the lone half.
                    let mut out = Vec::new();
                    json::push_json_pair(&mut out, n, d);
                    String::from_utf8(out).expect("utf-8")
                } else {
                    serde_json::to_string(&[
                        String::from_utf16_lossy(n),
                        String::from_utf16_lossy(d),
                    ])
                    .expect("json")
                }
            })
            .collect();
        assert_eq!(s.digest, digest_hex(&lines.join("\n")), "round {round}");
        // Text: today's, and the entries rendered as skills give it again.
        let text = catalog.block(&s);
        assert_eq!(text, catalog.catalog().entries(), "round {round}");
        let again: Vec<(String, String)> = strings(&s.entries);
        let rerendered = Catalog::new(again.iter().map(|(n, d)| (n.as_str(), d.as_str())), max)
            .expect("valid")
            .entries();
        assert_eq!(rerendered, text, "round {round}");
        assert_eq!(s.report, catalog.catalog().render().report, "round {round}");
        seen[1] += usize::from(got.iter().any(|(_, d)| d.ends_with(&[0x2e; 3])));
    }
    for (what, n) in ["split pairs", "cuts", "control characters"]
        .iter()
        .zip(seen)
    {
        assert!(n > 50, "{what}: {n}");
    }
}

#[test]
fn budgeted_entries_are_the_pairs_shown() {
    let d = "word ".repeat(30);
    let names: Vec<String> = (0..20).map(|i| format!("s-{i:02}")).collect();
    let pairs: Vec<(&str, &str)> = names.iter().map(|n| (n.as_str(), d.as_str())).collect();
    let owned = StructuredCatalog::new(pairs.iter().map(|&(n, d)| skill(n, d)).collect(), 500)
        .expect("valid");
    let full_len = owned.render().report.chars;
    for chars in [full_len, full_len / 2, 900, 300, 150, 1] {
        let budget = Budget::new(chars, vec!["s-1*".into()]).expect("budget");
        let catalog = owned.clone().with_budget(Some(budget.clone()));
        let s = catalog.render();
        let text = catalog.block(&s);
        let same = Catalog::new(pairs.iter().copied(), 500)
            .expect("valid")
            .with_budget(Some(budget))
            .render();
        assert_eq!(text, same.text, "budget {chars}");
        assert_eq!(s.report, same.report);
        // One entry per listed line, as the line shows it.
        let listed: Vec<&str> = text.lines().filter(|l| l.starts_with("- `")).collect();
        assert_eq!(s.entries.len(), listed.len(), "budget {chars}");
        for ((name, description), line) in strings(&s.entries).iter().zip(&listed) {
            if description.is_empty() {
                assert_eq!(*line, format!("- `{name}`"));
            } else {
                assert_eq!(*line, format!("- `{name}`: {description}"));
            }
        }
        assert_eq!(s.entries.len(), s.report.total - s.report.omitted);
    }
}

#[test]
fn plan_table() {
    let (one, s1) = structured(&[("a", "x")], 500);
    let (empty, _) = structured(&[], 500);
    let d1 = s1.digest.clone();
    let tombstone = digest_hex("");
    let kind = |step: &StructuredStep| match step {
        StructuredStep::None => "none".to_string(),
        StructuredStep::Withdraw { index } => format!("withdraw {index}"),
        StructuredStep::Publish(u) => format!("{} replaces {:?}", u.kind, u.replaces),
    };
    let q = |index, digest| Some(Queued { index, digest });
    /// Catalog, baseline, published, queued, expected step.
    type Case<'c> = (
        &'c StructuredCatalog<'c>,
        Option<&'c str>,
        bool,
        Option<Queued<'c>>,
        &'c str,
    );
    let cases: Vec<Case<'_>> = vec![
        (&empty, None, false, None, "none"),
        (&one, None, false, None, "initial replaces None"),
        (&one, Some(&d1), true, None, "none"),
        (&one, Some("other"), true, None, "replacement replaces None"),
        (&one, None, true, None, "replacement replaces None"),
        (&empty, Some(&d1), false, None, "replacement replaces None"),
        (&empty, Some(&tombstone), true, None, "none"),
        (&empty, None, true, None, "replacement replaces None"),
        // Already queued in this step.
        (&one, None, false, q(3, &d1), "none"),
        (&one, Some("other"), true, q(0, &d1), "none"),
        (
            &one,
            Some("other"),
            true,
            q(2, "older"),
            "replacement replaces Some(2)",
        ),
        (&one, None, false, q(1, "older"), "initial replaces Some(1)"),
        // The history is current again: take the queued one back.
        (&one, Some(&d1), true, q(4, "older"), "withdraw 4"),
        (&empty, None, false, q(0, "older"), "withdraw 0"),
    ];
    for (catalog, baseline, published, queued, expected) in cases {
        let step = plan_structured_step(catalog, baseline, published, queued);
        assert_eq!(kind(&step), expected, "{baseline:?} {published} {queued:?}");
        if let StructuredStep::Publish(update) = step {
            assert_eq!(
                content_digest(&update.text),
                Some(catalog.catalog().digest())
            );
            assert_eq!(
                update.text,
                catalog.catalog().message(update.kind).text,
                "today's message text"
            );
            assert_eq!(update.structured, catalog.render());
        }
    }
    assert_eq!(MessageKind::Replacement.as_str(), "replacement");
}
