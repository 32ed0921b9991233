//! One source: measures, water filling, names only, pins, the reference.

use super::*;

#[test]
fn measures_escapes_at_every_offset() {
    for text in ["abc", "&amp;", "&lt;x&gt;", "é&amp;", "😀&lt;"] {
        for lead in 0..20 {
            for tail in [0, 1, 7, 8, 9] {
                let rendered = format!("{}{text}{}", "x".repeat(lead), "y".repeat(tail));
                let mut escapes = Vec::new();
                let desc = measure(&rendered, &mut escapes);
                // Naive: normalised units count an escape as one unit.
                let plain = rendered
                    .replace("&amp;", "&")
                    .replace("&lt;", "<")
                    .replace("&gt;", ">");
                assert_eq!(desc.units, utf16_len(&rendered), "{rendered:?}");
                assert_eq!(desc.norm, utf16_len(&plain), "{rendered:?}");
                assert_eq!(desc.ascii, rendered.is_ascii());
                let mut expected = Vec::new();
                let mut units = 0;
                let mut rest = rendered.as_str();
                while let Some(c) = rest.chars().next() {
                    let len = ["&amp;", "&lt;", "&gt;"]
                        .iter()
                        .find(|e| rest.starts_with(**e))
                        .map_or(c.len_utf8(), |e| e.len());
                    if len > c.len_utf8() {
                        expected.push((units, len - 1));
                        units += 1;
                    } else {
                        units += c.len_utf16();
                    }
                    rest = &rest[len..];
                }
                assert_eq!(escapes, expected, "{rendered:?}");
            }
        }
    }
}

#[test]
fn a_budget_that_fits_changes_nothing() {
    let skills = [("b-skill", "Second & <last>"), ("a-skill", "First  one")];
    let full = unbudgeted(&skills, 500);
    let len = utf16_len(&full);
    for chars in [len, len + 1, usize::MAX] {
        let e = render_with(&skills, 500, chars, &[]);
        assert_eq!(e.text, full);
        assert_eq!(
            e.report,
            CatalogReport {
                total: 2,
                full: 2,
                chars: len,
                ..CatalogReport::default()
            }
        );
    }
    // Without a budget the report is the same.
    let plain = Catalog::new(skills, 500).expect("valid");
    assert_eq!(
        plain.render().report,
        CatalogReport::unbudgeted(&plain, len)
    );
    assert_eq!(
        plain.render().report,
        render_with(&skills, 500, len, &[]).report
    );
}

#[test]
fn water_filling_cuts_the_longest_to_a_common_length() {
    let long = "x".repeat(100);
    let medium = "y".repeat(60);
    let short = "z".repeat(10);
    let skills = [
        ("a", long.as_str()),
        ("b", medium.as_str()),
        ("c", short.as_str()),
    ];
    // Lines: "- `a`: " is 7 units; with a common length of 50 the block is
    // 7 + 50 + 1 + 7 + 50 + 1 + 7 + 10.
    let e = render_with(&skills, 500, 133, &[]);
    let expected = format!(
        "- `a`: {}...\n- `b`: {}...\n- `c`: {short}",
        "x".repeat(47),
        "y".repeat(47)
    );
    assert_eq!(e.text, expected);
    assert_eq!(
        e.report,
        CatalogReport {
            total: 3,
            full: 1,
            shortened: 2,
            chars: 133,
            ..CatalogReport::default()
        }
    );
    // One unit more: only the longest is cut further... no, the common
    // length rises to 51 only when both fit: 135 units.
    assert_eq!(render_with(&skills, 500, 134, &[]).text, expected);
    assert!(render_with(&skills, 500, 135, &[])
        .text
        .starts_with(&format!("- `a`: {}...", "x".repeat(48))));
    // Room for the medium one in full: only the longest is cut.
    let e = render_with(&skills, 500, 7 + 70 + 1 + 7 + 60 + 1 + 7 + 10, &[]);
    assert_eq!(
        e.text,
        format!(
            "- `a`: {}...\n- `b`: {medium}\n- `c`: {short}",
            "x".repeat(67)
        )
    );
    assert_eq!((e.report.full, e.report.shortened), (2, 1));
}

#[test]
fn lengths_count_escapes_and_utf16_units() {
    // Escapes count as written (`&amp;` is 5 units); a non-BMP character is 2.
    let d = format!("{}&<>😀{}", "a".repeat(40), "b".repeat(60));
    let skills = [("a", d.as_str())];
    for chars in 20..150 {
        let e = render_with(&skills, 500, chars, &[]);
        assert_eq!(utf16_len(&e.text), e.report.chars);
        assert_eq!(
            e.text,
            reference(&skills, 500, chars, &[]),
            "budget {chars}"
        );
    }
}

/// `count` skills `s-00`, `s-01`, ... with 80-character descriptions.
fn many(count: usize) -> (Vec<String>, String) {
    let names = (0..count).map(|i| format!("s-{i:02}")).collect();
    (names, "d".repeat(80))
}

fn pairs<'a>(names: &'a [String], d: &'a str) -> Vec<(&'a str, &'a str)> {
    names.iter().map(|n| (n.as_str(), d)).collect()
}

#[test]
fn names_only_then_omission_lowest_priority_first() {
    let d = "d".repeat(80);
    let skills = [("a", d.as_str()), ("b", d.as_str()), ("c", d.as_str())];
    // Each at the floor: 7 + 40 = 47 units; name-only: 5.
    let e = render_with(&skills, 500, 47 + 1 + 47 + 1 + 5, &[]);
    let cut = format!("{}...", "d".repeat(37));
    assert_eq!(e.text, format!("- `a`: {cut}\n- `b`: {cut}\n- `c`"));
    assert_eq!((e.report.shortened, e.report.name_only), (2, 1));
    let e = render_with(&skills, 500, 17, &[]);
    assert_eq!(e.text, "- `a`\n- `b`\n- `c`");
    assert_eq!(e.report.name_only, 3);

    // 30 name-only lines take 30 * 8 + 29 = 269 units.
    let (names, d) = many(30);
    let skills = pairs(&names, &d);
    let e = render_with(&skills, 500, 269, &[]);
    assert_eq!(e.report.name_only, 30);
    let e = render_with(&skills, 500, 268, &[]);
    // Room is kept for the last line at its longest (30 left out), with its
    // newline; the names take the rest, 9 units each with theirs.
    let k = (268 + 1 - (notice_len(30) + 1)) / 9;
    assert!(k > 5 && k < 25, "{k}");
    let listed: Vec<String> = names[..k].iter().map(|n| format!("- `{n}`")).collect();
    assert_eq!(
        e.text,
        format!("{}\n{}", listed.join("\n"), omitted_notice(30 - k))
    );
    assert_eq!(
        e.report,
        CatalogReport {
            total: 30,
            name_only: k,
            omitted: 30 - k,
            chars: k * 9 + notice_len(30 - k),
            ..CatalogReport::default()
        }
    );
    assert!(e.report.chars <= 268 && e.report.chars + 9 + 2 > 268);
    // Nothing fits but the notice: it stays, longer than the budget.
    let e = render_with(&skills, 500, 1, &[]);
    assert_eq!(e.text, omitted_notice(30));
    assert_eq!(e.report.omitted, 30);
    assert!(e
        .text
        .starts_with("(30 more skills are available but not listed here;"));
    let e = render_with(&skills[..1], 500, 1, &[]);
    assert_eq!(e.text, NOTICE_ONE);
}

#[test]
fn pinned_skills_keep_their_description_until_the_others_are_gone() {
    let (names, d) = many(30);
    let skills = pairs(&names, &d);
    let pinned_line = format!("- `s-29`: {d}");
    // Names only, but s-29 in full.
    let e = render_with(
        &skills,
        500,
        29 * 9 + pinned_line.len(),
        &["s-29", "not-here"],
    );
    assert_eq!(e.report.name_only, 29);
    assert!(e.text.ends_with(&format!("- `s-28`\n{pinned_line}")));
    // The unpinned skills are left out first.
    let e = render_with(
        &skills,
        500,
        pinned_line.len() + 1 + notice_len(29),
        &["s-29"],
    );
    assert_eq!(e.text, format!("{pinned_line}\n{}", omitted_notice(29)));
    // Then the pinned ones go the same way, the last pinned first.
    let e = render_with(&skills, 500, 20 + notice_len(28), &["s-10", "s-05"]);
    assert_eq!(
        e.text,
        format!("- `s-05`\n- `s-10`\n{}", omitted_notice(28))
    );
    let e = render_with(&skills, 500, 12 + notice_len(29), &["s-10", "s-05"]);
    assert_eq!(e.text, format!("- `s-10`\n{}", omitted_notice(29)));
    // A pinned entry keeps its place in name order.
    let e = render_with(&skills, 500, 29 * 9 + pinned_line.len(), &["s-00"]);
    assert!(e.text.starts_with(&format!("- `s-00`: {d}\n- `s-01`\n")));
}

#[test]
fn deterministic_and_digest_follows_the_text() {
    let skills = [("b", "two words here"), ("a", "one & more"), ("c", "x")];
    let a = render_with(&skills, 500, 30, &["c"]);
    let b = render_with(&skills, 500, 30, &["c"]);
    assert_eq!(a, b);
    let catalog = Catalog::new(skills, 500)
        .expect("valid")
        .with_budget(Some(Budget::new(30, vec!["c".into()]).expect("budget")));
    assert_eq!(catalog.digest(), digest_hex(&a.text));
    assert_eq!(
        catalog.message(MessageKind::Initial).digest,
        digest_hex(&a.text)
    );
}

#[test]
fn replacement_prose_does_not_call_unlisted_skills_gone() {
    let (names, d) = many(30);
    let skills = pairs(&names, &d);
    let budgeted = |chars| {
        Catalog::new(skills.iter().copied(), 500)
            .expect("valid")
            .with_budget(Some(Budget::new(chars, vec![]).expect("budget")))
    };
    let cut = budgeted(200).message(MessageKind::Replacement);
    assert!(cut.report.omitted > 0);
    assert!(cut
        .text
        .contains("its last line counts the available skills it does not show"));
    assert!(!cut.text.contains("no longer available"));
    let whole = budgeted(100_000).message(MessageKind::Replacement);
    assert!(whole
        .text
        .contains("a skill that is not listed here is no longer available"));
    assert_eq!(
        whole.text,
        Catalog::new(skills.iter().copied(), 500)
            .expect("valid")
            .message(MessageKind::Replacement)
            .text
    );
}

#[test]
fn rejects_a_zero_budget() {
    assert_eq!(
        Budget::new(0, vec![]),
        Err(CatalogError::Budget("0".into()))
    );
    assert_eq!(crate::catalog::budget_from_f64(1.0), Ok(1));
    for bad in [0.0, -1.0, 1.5, f64::NAN, f64::INFINITY] {
        assert!(crate::catalog::budget_from_f64(bad).is_err(), "{bad}");
    }
    assert_eq!(
        crate::catalog::budget_from_f64(0.5).map_err(|e| e.to_string()),
        Err("budget must be a positive integer (got 0.5)".into())
    );
}

#[test]
fn matches_the_literal_reference_on_generated_catalogs() {
    let pool = [
        "word ",
        "a",
        "two words ",
        "  ",
        "\n",
        "&",
        "<",
        ">",
        "é",
        "中",
        "😀",
        "𝄞",
        "\u{a0}",
        "x",
        "Use this skill to ",
        "\u{fffd}",
    ];
    let names = ["a", "b", "c-d", "e", "f-g-h", "i", "j", "k", "lm", "n"];
    let mut next = crate::catalog::tests::xorshift(0x2545_f491_4f6c_dd1d);
    let mut seen = [0usize; 4];
    for round in 0..1500 {
        let count = (next() % 8) as usize;
        let descriptions: Vec<String> = (0..count)
            .map(|_| {
                let parts = (next() % 40) as usize;
                (0..parts)
                    .map(|_| pool[(next() % pool.len() as u64) as usize])
                    .collect()
            })
            .collect();
        let skills: Vec<(&str, &str)> = (0..count)
            .map(|i| {
                (
                    names[(next() % names.len() as u64) as usize],
                    descriptions[i].as_str(),
                )
            })
            .collect();
        let max_len = [3, 10, 39, 40, 41, 60, 120, 500][(next() % 8) as usize];
        let full = utf16_len(&unbudgeted(&skills, max_len));
        let chars = 1 + (next() % (full as u64 + 20)) as usize;
        let pinned: Vec<&str> = (0..(next() % 3))
            .map(|_| names[(next() % names.len() as u64) as usize])
            .collect();
        let e = render_with(&skills, max_len, chars, &pinned);
        let expected = reference(&skills, max_len, chars, &pinned);
        assert_eq!(
            e.text, expected,
            "round {round}: {skills:?} max {max_len} budget {chars} pinned {pinned:?}"
        );
        let r = e.report;
        assert_eq!(r.chars, utf16_len(&e.text));
        assert_eq!(r.total, count);
        assert_eq!(r.full + r.shortened + r.name_only + r.omitted, r.total);
        assert!(r.chars <= chars || e.text == omitted_notice(count));
        assert_eq!(ends_with_notice(&e.text), r.omitted > 0);
        seen[0] += usize::from(r.shortened > 0);
        seen[1] += usize::from(r.name_only > 0);
        seen[2] += usize::from(r.omitted > 0);
        seen[3] += usize::from(r.full == r.total);
    }
    for (what, n) in ["shortened", "name-only", "omitted", "whole"]
        .iter()
        .zip(seen)
    {
        assert!(n > 50, "{what}: {n}");
    }
}
