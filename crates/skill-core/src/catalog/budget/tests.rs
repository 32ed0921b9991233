use super::*;
use crate::catalog::{digest_hex, MessageKind};

fn render_with(skills: &[(&str, &str)], max_len: usize, chars: usize, pinned: &[&str]) -> Entries {
    let pinned = pinned.iter().map(|p| p.to_string()).collect();
    Catalog::new(skills.iter().copied(), max_len)
        .expect("valid")
        .with_budget(Some(Budget::new(chars, pinned).expect("budget")))
        .render()
}

fn unbudgeted(skills: &[(&str, &str)], max_len: usize) -> String {
    Catalog::new(skills.iter().copied(), max_len)
        .expect("valid")
        .entries()
}

fn desc(d: &str, cap: usize) -> String {
    let mut s = String::new();
    push_description(&mut s, d, cap);
    s
}

/// A plain recursive glob match (`*`: any run of characters), for the reference.
fn glob_matches(pattern: &[u8], text: &[u8]) -> bool {
    match pattern.split_first() {
        None => text.is_empty(),
        Some((b'*', rest)) => (0..=text.len()).any(|k| glob_matches(rest, &text[k..])),
        Some((c, rest)) => text.first() == Some(c) && glob_matches(rest, &text[1..]),
    }
}

/// The module docs taken literally, without origins (one source).
fn reference(items: &[(&str, &str)], max_len: usize, budget: usize, pinned: &[&str]) -> String {
    let one: Vec<Item<'_>> = items.iter().map(|&(n, d)| (n, d, 0.0, "")).collect();
    reference_shared(&one, max_len, budget, pinned, None)
}

/// A skill for the reference: name, description, rank, group.
type Item<'a> = (&'a str, &'a str, f64, &'a str);

/// The module docs taken literally: every candidate block and line is
/// rendered as a string and measured; the shares are made as the docs say,
/// each source trying the longest common length first.
fn reference_shared(
    items: &[Item<'_>],
    max_len: usize,
    budget: usize,
    pinned: &[&str],
    tool: Option<&str>,
) -> String {
    #[derive(Clone, Copy, PartialEq)]
    enum S {
        Cap(usize),
        Name,
        Out,
    }
    let notice = Notice {
        search_tool: tool.map(str::to_string),
    };
    let mut items = items.to_vec();
    items.sort_by(|a, b| a.0.cmp(b.0));
    let line = |i: usize, s: S| -> Option<String> {
        let (name, d, _, _) = items[i];
        match s {
            S::Cap(cap) => Some(format!("- `{name}`: {}", desc(d, cap))),
            S::Name => Some(format!("- `{name}`")),
            S::Out => None,
        }
    };
    let render = |shapes: &[S]| {
        let mut lines: Vec<String> = (0..items.len())
            .filter_map(|i| line(i, shapes[i]))
            .collect();
        let out = shapes.iter().filter(|s| **s == S::Out).count();
        if out > 0 {
            lines.push(notice.text(out));
        }
        lines.join("\n")
    };
    let fits = |shapes: &[S]| utf16_len(&render(shapes)) <= budget;
    // Units of the lines of `group`, each with its newline.
    let cost = |group: &[usize], shapes: &[S]| -> usize {
        group
            .iter()
            .filter_map(|&i| line(i, shapes[i]))
            .map(|l| utf16_len(&l) + 1)
            .sum()
    };
    let all_full = vec![S::Cap(max_len); items.len()];
    if fits(&all_full) {
        return render(&all_full);
    }
    // Pins: a glob's matches by rank, then name; an exact name's (a plain
    // array may hold it twice) in entry order.
    let mut by_rank: Vec<usize> = (0..items.len()).collect();
    by_rank.sort_by(|&a, &b| items[a].2.partial_cmp(&items[b].2).unwrap().then(a.cmp(&b)));
    let mut first = Vec::new();
    for p in pinned {
        let candidates: Vec<usize> = if p.contains('*') {
            by_rank.clone()
        } else {
            (0..items.len()).collect()
        };
        for i in candidates {
            let name = items[i].0;
            let hit = if p.contains('*') {
                glob_matches(p.as_bytes(), name.as_bytes())
            } else {
                name == *p
            };
            if hit && !first.contains(&i) {
                first.push(i);
            }
        }
    }
    // Sources by group, nearest first (lowest rank, then group), in name order.
    let mut keys: Vec<(f64, &str)> = Vec::new();
    for i in (0..items.len()).filter(|i| !first.contains(i)) {
        let (_, _, rank, group) = items[i];
        match keys.iter_mut().find(|k| k.1 == group) {
            Some(k) => k.0 = k.0.min(rank),
            None => keys.push((rank, group)),
        }
    }
    keys.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap().then(a.1.cmp(b.1)));
    let sources: Vec<Vec<usize>> = keys
        .iter()
        .map(|k| {
            (0..items.len())
                .filter(|i| !first.contains(i) && items[*i].3 == k.1)
                .collect()
        })
        .collect();
    // One source into `room`: shortened, names only (no tool), left out.
    let fit = |shapes: &mut Vec<S>, group: &[usize], room: usize| -> usize {
        if cost(group, shapes) <= room {
            return cost(group, shapes);
        }
        for cap in (MIN_SHORTENED_LENGTH..max_len).rev() {
            let mut trial = shapes.clone();
            for &i in group {
                trial[i] = S::Cap(cap);
            }
            if cost(group, &trial) <= room {
                *shapes = trial;
                return cost(group, shapes);
            }
        }
        if MIN_SHORTENED_LENGTH < max_len {
            for &i in group {
                shapes[i] = S::Cap(MIN_SHORTENED_LENGTH);
            }
        }
        // Names buy reach without a search tool, or when they list every skill.
        let mut named = shapes.clone();
        for &i in group {
            named[i] = S::Name;
        }
        let names = tool.is_none() || cost(group, &named) <= room;
        let ladder: &[S] = if names { &[S::Name, S::Out] } else { &[S::Out] };
        for &step in ladder {
            for &i in group.iter().rev() {
                if cost(group, shapes) <= room {
                    return cost(group, shapes);
                }
                shapes[i] = step;
            }
        }
        cost(group, shapes)
    };
    let shared = |reserve: usize| -> Vec<S> {
        let mut shapes = all_full.clone();
        let room = (budget + 1).checked_sub(cost(&first, &shapes) + reserve);
        let Some(mut left) = room else {
            for &i in sources.iter().flatten() {
                shapes[i] = S::Out;
            }
            return shapes;
        };
        let demands: Vec<usize> = sources.iter().map(|g| cost(g, &shapes)).collect();
        let mut order: Vec<usize> = (0..sources.len()).collect();
        order.sort_by_key(|&k| (demands[k], k));
        let mut over = Vec::new();
        for (n, &k) in order.iter().enumerate() {
            if over.is_empty() && demands[k] * (order.len() - n) <= left {
                left -= demands[k];
            } else {
                over.push(k);
            }
        }
        over.sort();
        for (n, &k) in over.iter().enumerate().rev() {
            left -= fit(&mut shapes, &sources[k], left / (n + 1));
        }
        shapes
    };
    let mut shapes = shared(0);
    if shapes.contains(&S::Out) {
        let sourced: usize = sources.iter().map(Vec::len).sum();
        shapes = shared(notice.text(sourced).len() + 1);
    }
    if fits(&shapes) {
        return render(&shapes);
    }
    // The pinned skills, the last pinned first, once every source is out.
    for &i in sources.iter().flatten() {
        shapes[i] = S::Out;
    }
    for cap in (MIN_SHORTENED_LENGTH..max_len).rev() {
        let mut trial = shapes.clone();
        for &i in &first {
            trial[i] = S::Cap(cap);
        }
        if fits(&trial) {
            return render(&trial);
        }
    }
    if MIN_SHORTENED_LENGTH < max_len {
        for &i in &first {
            shapes[i] = S::Cap(MIN_SHORTENED_LENGTH);
        }
    }
    let mut named = shapes.clone();
    for &i in &first {
        named[i] = S::Name;
    }
    let ladder: &[S] = if tool.is_none() || fits(&named) {
        &[S::Name, S::Out]
    } else {
        &[S::Out]
    };
    for &step in ladder {
        for &i in first.iter().rev() {
            shapes[i] = step;
            if fits(&shapes) {
                return render(&shapes);
            }
        }
    }
    render(&shapes)
}

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

fn render_ranked(
    skills: &[(&str, &str, Origin<'_>)],
    max_len: usize,
    chars: usize,
    pinned: &[&str],
) -> Entries {
    let pinned = pinned.iter().map(|p| p.to_string()).collect();
    Catalog::with_origins(skills.iter().copied(), max_len)
        .expect("valid")
        .with_budget(Some(Budget::new(chars, pinned).expect("budget")))
        .render()
}

use crate::catalog::Origin;

/// The newcomer's corpus in small: the project's own `zz-deploy`, the
/// user's own 25 skills in three user roots, two small custom folders, and a
/// custom folder of 740 templated skills, all with long descriptions.
fn newcomer_corpus() -> Vec<(String, String, &'static str, Option<&'static str>)> {
    let long = |what: &str| {
        format!("{what}: does one careful thing for the person who wrote it, and says when to use it in a sentence or two.")
    };
    let mut out = vec![("zz-deploy".to_string(), long("deploy"), "project-dsh", None)];
    for (source, count) in [("user-dsh", 8), ("user-agents", 8), ("user-claude", 9)] {
        for i in 0..count {
            out.push((format!("{source}-{i}"), long(source), source, None));
        }
    }
    for (folder, count) in [("/c/small-a", 5), ("/c/small-b", 3)] {
        for i in 0..count {
            let name = format!("{}-{i}", &folder[3..]);
            out.push((name, long(folder), "custom", Some(folder)));
        }
    }
    for i in 0..740 {
        let name = format!("app{i:03}-automation");
        let text = format!("Automate App {i} tasks via its toolkit: create, update, search and delete records, always search tools first for current schemas.");
        out.push((name, text, "custom", Some("/c/huge")));
    }
    out
}

fn origins_of<'a>(
    corpus: &'a [(String, String, &'static str, Option<&'static str>)],
) -> Vec<(&'a str, &'a str, Origin<'a>)> {
    corpus
        .iter()
        .map(|(n, d, source, folder)| {
            (
                n.as_str(),
                d.as_str(),
                Origin::of_source(source).in_folder(*folder),
            )
        })
        .collect()
}

#[test]
fn fair_shares_keep_small_sources_whole_before_a_huge_folder_gets_names() {
    let corpus = newcomer_corpus();
    let skills = origins_of(&corpus);
    for tool in [None, Some("skill_search")] {
        let budget = Budget::new(8000, vec![])
            .expect("budget")
            .with_search_tool(tool.map(str::to_string))
            .expect("tool");
        let e = Catalog::with_origins(skills.iter().copied(), 500)
            .expect("valid")
            .with_budget(Some(budget))
            .render();
        assert!(e.report.chars <= 8000);
        // Every skill of the small sources keeps its full description.
        for (name, description, _, folder) in &corpus {
            if *folder != Some("/c/huge") {
                let line = format!("- `{name}`: {description}");
                assert!(e.text.lines().any(|l| l == line), "{tool:?}: {name}");
            }
        }
        let huge: Vec<&str> = e.text.lines().filter(|l| l.starts_with("- `app")).collect();
        assert!(huge.len() > 30, "{tool:?}: {}", huge.len());
        assert!(e.report.omitted > 0);
        let expected: Vec<Item<'_>> = skills
            .iter()
            .map(|s| (s.0, s.1, s.2.rank, s.2.group))
            .collect();
        assert_eq!(e.text, reference_shared(&expected, 500, 8000, &[], tool));
        match tool {
            // No search tool: names buy reach, so the huge folder lists more of its skills by name.
            None => assert!(huge.iter().filter(|l| !l.contains(':')).count() > 100),
            // With one, a left-out skill is found by search: the room keeps descriptions.
            Some(_) => assert!(huge.iter().all(|l| l.contains("`: "))),
        }
    }
    // By rank alone (one folder for the custom roots, as before folders
    // counted), the user's own skills would give way before any custom one.
    let by_label: Vec<(&str, &str, Origin<'_>)> = corpus
        .iter()
        .map(|(n, d, source, _)| (n.as_str(), d.as_str(), Origin::of_source(source)))
        .collect();
    let e = render_ranked(&by_label, 500, 8000, &[]);
    let user = e
        .report
        .by_source
        .iter()
        .find(|s| s.source == "user-dsh")
        .expect("user-dsh");
    assert_eq!((user.total, user.full), (8, 8));
    // Without origins the alphabetical head is kept instead.
    let plain: Vec<(&str, &str)> = skills.iter().map(|s| (s.0, s.1)).collect();
    let alphabetical = render_with(&plain, 500, 8000, &[]);
    assert!(!alphabetical.text.contains("zz-deploy"));
}

#[test]
fn the_report_counts_per_source_label_and_adds_up() {
    let corpus = newcomer_corpus();
    let skills = origins_of(&corpus);
    let e = render_ranked(&skills, 500, 8000, &[]);
    let by_source = &e.report.by_source;
    let sources: Vec<&str> = by_source.iter().map(|s| s.source.as_str()).collect();
    assert_eq!(
        sources,
        [
            "project-dsh",
            "custom",
            "user-dsh",
            "user-agents",
            "user-claude"
        ]
    );
    assert_eq!(
        by_source[0],
        SourceReport {
            source: "project-dsh".into(),
            total: 1,
            full: 1,
            ..SourceReport::default()
        }
    );
    assert_eq!((by_source[1].total, by_source[1].full), (748, 8));
    let sum = |f: fn(&SourceReport) -> usize| by_source.iter().map(f).sum::<usize>();
    assert_eq!(sum(|s| s.total), e.report.total);
    assert_eq!(sum(|s| s.full), e.report.full);
    assert_eq!(sum(|s| s.shortened), e.report.shortened);
    assert_eq!(sum(|s| s.name_only), e.report.name_only);
    assert_eq!(sum(|s| s.omitted), e.report.omitted);
}

#[test]
fn a_source_smaller_than_its_share_gives_the_rest_to_the_others() {
    let d = "d".repeat(80);
    // Two sources: one skill near, 20 far; each line in full is 6 + 4 + 80 + 1.
    let names: Vec<String> = (0..20).map(|i| format!("f-{i:02}")).collect();
    let mut skills: Vec<(&str, &str, Origin<'_>)> = names
        .iter()
        .map(|n| (n.as_str(), d.as_str(), Origin::of_source("bundled")))
        .collect();
    skills.push(("near", d.as_str(), Origin::of_source("project-dsh")));
    let budget = 1000;
    let e = render_ranked(&skills, 500, budget, &[]);
    assert!(e.text.contains(&format!("- `near`: {d}")));
    // The far source takes the whole rest: 1001 - 91 units for 20 lines.
    let far = e
        .report
        .by_source
        .iter()
        .find(|s| s.source == "bundled")
        .expect("far");
    assert_eq!(far.total, 20);
    assert_eq!(far.shortened + far.name_only, 20);
    assert!(e.report.chars > budget - 30, "{}", e.report.chars);
    // Two equal sources share equally, the nearer one first when a unit is left.
    let other: Vec<String> = (0..20).map(|i| format!("g-{i:02}")).collect();
    let mut even: Vec<(&str, &str, Origin<'_>)> = names
        .iter()
        .map(|n| (n.as_str(), d.as_str(), Origin::of_source("bundled")))
        .collect();
    even.extend(
        other
            .iter()
            .map(|n| (n.as_str(), d.as_str(), Origin::of_source("user-dsh"))),
    );
    let e = render_ranked(&even, 500, 2000, &[]);
    // (by_source: the nearer first.) What the farther one leaves of its share goes to the nearer.
    let listed: Vec<(usize, usize)> = e
        .report
        .by_source
        .iter()
        .map(|s| (s.shortened, s.omitted))
        .collect();
    assert!(
        listed[0].0 >= listed[1].0 && listed[0].1 <= listed[1].1,
        "{listed:?}"
    );
    assert!(listed[0].0 - listed[1].0 <= 1, "{listed:?}");
}

#[test]
fn a_budget_that_fits_changes_nothing_with_origins_either() {
    let skills = [
        ("b", "two & <three>", Origin::of_source("bundled")),
        ("a", "one", Origin::of_source("project-dsh")),
        ("c", "four", Origin::of_source("bundled")),
    ];
    let catalog = Catalog::with_origins(skills, 500).expect("valid");
    let plain = Catalog::new(skills.iter().map(|s| (s.0, s.1)), 500).expect("valid");
    assert_eq!(catalog.entries(), plain.entries());
    let len = utf16_len(&plain.entries());
    for chars in [len, usize::MAX] {
        let e = render_ranked(&skills, 500, chars, &["c", "*"]);
        assert_eq!(e.text, plain.entries());
        assert_eq!(e.report, catalog.render().report);
    }
    assert_eq!(
        catalog.render().report.by_source,
        [
            SourceReport {
                source: "project-dsh".into(),
                total: 1,
                full: 1,
                ..SourceReport::default()
            },
            SourceReport {
                source: "bundled".into(),
                total: 2,
                full: 2,
                ..SourceReport::default()
            },
        ]
    );
    assert!(plain.render().report.by_source.is_empty());
}

#[test]
fn glob_pins_keep_their_matches_first() {
    let d = "d".repeat(80);
    let skills: Vec<(&str, &str, Origin<'_>)> =
        ["deploy-a", "deploy-b", "lint", "test", "zz-deploy"]
            .into_iter()
            .map(|n| (n, d.as_str(), Origin::of_source("user-dsh")))
            .collect();
    let full_line = 6 + 8 + 80;
    // Room for the two matches in full and the others by name.
    let e = render_ranked(&skills, 500, 2 * full_line + 8 + 8 + 13 + 4, &["deploy-*"]);
    assert_eq!(
        e.text,
        format!("- `deploy-a`: {d}\n- `deploy-b`: {d}\n- `lint`\n- `test`\n- `zz-deploy`")
    );
    assert_eq!((e.report.full, e.report.name_only), (2, 3));
    // Pin order first: `zz-deploy`, then the glob's matches; the last pinned
    // gives way first.
    let e = render_ranked(&skills, 500, 13 + 1 + notice_len(4), &["zz-deploy", "*-*"]);
    assert_eq!(e.text, format!("- `zz-deploy`\n{}", omitted_notice(4)));
    let e = render_ranked(
        &skills,
        500,
        12 + 1 + 13 + 1 + notice_len(3),
        &["zz-deploy", "*-*"],
    );
    assert_eq!(
        e.text,
        format!("- `deploy-a`\n- `zz-deploy`\n{}", omitted_notice(3))
    );
    // A glob that matches nothing is ignored.
    assert_eq!(
        render_ranked(&skills, 500, 200, &["nothing-*"]).text,
        render_ranked(&skills, 500, 200, &[]).text
    );
}

#[test]
fn matches_the_literal_reference_with_sources_folders_globs_and_a_search_tool() {
    let pool = [
        "word ",
        "two words ",
        "&",
        "<x>",
        "é",
        "😀",
        "x",
        "Use this skill to ",
    ];
    // Long names too: a block of names that outgrows a budget with room for the last line.
    let names = [
        "a",
        "b-c",
        "d",
        "e-f",
        "g",
        "h-i-j",
        "k",
        "lm",
        "n",
        "o-p",
        "quite-a-long-skill-name-for-a-catalog",
        "rather-long-name-of-another-skill-here",
        "s-t-u-v-w-x-y-z-and-then-some-more",
    ];
    let sources = [
        "project-dsh",
        "runtime",
        "custom",
        "user-dsh",
        "bundled",
        "remote",
    ];
    let folders = [None, Some("/f/a"), Some("/f/b")];
    let globs = ["*", "*-*", "a*", "*j", "b-*", "x-*", "h*j", "nope"];
    let mut next = crate::catalog::tests::xorshift(0x51ed_2701_b0a3_c4d5);
    let mut seen = [0usize; 5];
    for round in 0..1600 {
        let count = (next() % 9) as usize;
        let descriptions: Vec<String> = (0..count)
            .map(|_| {
                (0..(next() % 30))
                    .map(|_| pool[(next() % pool.len() as u64) as usize])
                    .collect()
            })
            .collect();
        let skills: Vec<(&str, &str, Origin<'_>)> = (0..count)
            .map(|i| {
                (
                    names[(next() % names.len() as u64) as usize],
                    descriptions[i].as_str(),
                    Origin::of_source(sources[(next() % sources.len() as u64) as usize])
                        .in_folder(folders[(next() % folders.len() as u64) as usize]),
                )
            })
            .collect();
        let max_len = [10, 40, 41, 60, 500][(next() % 5) as usize];
        let tool = next().is_multiple_of(3).then_some("find");
        let ranked: Vec<Item<'_>> = skills
            .iter()
            .map(|s| (s.0, s.1, s.2.rank, s.2.group))
            .collect();
        let plain: Vec<(&str, &str)> = skills.iter().map(|s| (s.0, s.1)).collect();
        let full = utf16_len(&unbudgeted(&plain, max_len));
        // Half the rounds anywhere up to the full length, half where the last line fits.
        let chars = if next().is_multiple_of(2) {
            1 + (next() % (full as u64 + 20)) as usize
        } else {
            150 + (next() % 250) as usize
        };
        let pinned: Vec<&str> = (0..(next() % 3))
            .map(|_| {
                if next().is_multiple_of(2) {
                    globs[(next() % globs.len() as u64) as usize]
                } else {
                    names[(next() % names.len() as u64) as usize]
                }
            })
            .collect();
        let budget = Budget::new(chars, pinned.iter().map(|p| p.to_string()).collect())
            .expect("budget")
            .with_search_tool(tool.map(str::to_string))
            .expect("tool");
        let e = Catalog::with_origins(skills.iter().copied(), max_len)
            .expect("valid")
            .with_budget(Some(budget))
            .render();
        let expected = reference_shared(&ranked, max_len, chars, &pinned, tool);
        assert_eq!(
            e.text, expected,
            "round {round}: {skills:?} max {max_len} budget {chars} pinned {pinned:?} tool {tool:?}"
        );
        let r = &e.report;
        assert_eq!(r.chars, utf16_len(&e.text));
        let total: usize = r.by_source.iter().map(|s| s.total).sum();
        assert_eq!(total, count);
        for s in &r.by_source {
            assert_eq!(s.full + s.shortened + s.name_only + s.omitted, s.total);
        }
        let omitted: usize = r.by_source.iter().map(|s| s.omitted).sum();
        assert_eq!(omitted, r.omitted);
        seen[0] += usize::from(r.omitted > 0 && r.omitted < r.total);
        seen[1] += usize::from(r.by_source.len() > 2);
        seen[2] += usize::from(pinned.iter().any(|p| p.contains('*')) && r.full < r.total);
        seen[3] += usize::from(tool.is_some() && r.omitted > 0 && r.name_only == 0);
        seen[4] += usize::from(r.name_only > 0 && r.omitted > 0);
    }
    for (what, n) in [
        "omitted and listed",
        "several sources",
        "globs under a cut",
        "a search tool",
        "names and omissions",
    ]
    .iter()
    .zip(seen)
    {
        assert!(n > 50, "{what}: {n}");
    }
}

fn skills_of(n: usize) -> Vec<(String, String)> {
    (0..n)
        .map(|i| {
            (
                format!("s-{i:02}"),
                format!("Skill number {i} does one thing well and says so here."),
            )
        })
        .collect()
}

fn render_budget(skills: &[(String, String)], budget: Budget) -> Entries {
    Catalog::new(skills.iter().map(|(n, d)| (n.as_str(), d.as_str())), 500)
        .expect("valid")
        .with_budget(Some(budget))
        .render()
}

#[test]
fn a_search_tool_is_named_in_the_last_line_only_when_skills_are_left_out() {
    let skills = skills_of(30);
    for chars in [100usize, 300, 600, 1200, 5000] {
        let plain = render_budget(&skills, Budget::new(chars, vec![]).expect("budget"));
        let tool = Budget::new(chars, vec![])
            .expect("budget")
            .with_search_tool(Some("skill_search".into()))
            .expect("tool");
        let searched = render_budget(&skills, tool);
        let last = searched
            .text
            .rsplit('\n')
            .next()
            .unwrap_or_default()
            .to_string();
        if plain.report.omitted == 0 {
            // Nothing left out: the very same block.
            assert_eq!(searched, plain, "budget {chars}");
            continue;
        }
        assert!(last.contains("`skill_search` tool"), "{last}");
        assert!(last.starts_with('('), "{last}");
        assert!(ends_with_notice(&searched.text));
        assert!(
            searched.report.chars <= chars.max(last.len()),
            "budget {chars}"
        );
        assert_eq!(searched.report.chars, utf16_len(&searched.text));
        let n = searched.report.omitted;
        let many = format!("({n} more skills are available but not listed here; find one by what it does with the `skill_search` tool, then load it by its exact name with the `skill` tool.)");
        assert_eq!(
            last,
            if n == 1 {
                Notice {
                    search_tool: Some("skill_search".into()),
                }
                .text(1)
            } else {
                many
            }
        );
    }
    let one = Notice {
        search_tool: Some("find".into()),
    };
    assert_eq!(one.text(1), "(1 more skill is available but not listed here; find it by what it does with the `find` tool, then load it by its exact name with the `skill` tool.)");
    assert_eq!(one.len(1), one.text(1).len());
    for bad in ["", "a`b", "two words", "x\n", &"a".repeat(65)] {
        assert_eq!(
            Budget::new(10, vec![])
                .expect("budget")
                .with_search_tool(Some(bad.to_string())),
            Err(CatalogError::SearchTool(bad.to_string()))
        );
    }
    assert!(is_tool_name("skill_search") && is_tool_name("tools.find-skill"));
}

#[test]
fn preferred_skills_give_way_after_every_other_group_and_before_the_pins() {
    let skills = skills_of(30);
    let preferred = vec![
        "s-03".to_string(),
        "s-29".to_string(),
        "not-here".to_string(),
    ];
    let plain = render_budget(
        &skills,
        Budget::new(600, vec!["s-10".into()]).expect("budget"),
    );
    let used = render_budget(
        &skills,
        Budget::new(600, vec!["s-10".into()])
            .expect("budget")
            .with_preferred(preferred),
    );
    let full = |e: &Entries, name: &str| {
        e.text
            .lines()
            .any(|l| l.starts_with(&format!("- `{name}`: Skill")))
    };
    assert!(plain.report.name_only > 0);
    assert!(full(&plain, "s-10") && full(&used, "s-10"));
    assert!(!full(&plain, "s-29") && full(&used, "s-29"));
    assert!(full(&used, "s-03"));
    // Without a preferred name that matches, nothing changes.
    let none = render_budget(
        &skills,
        Budget::new(600, vec!["s-10".into()])
            .expect("budget")
            .with_preferred(vec!["zz".into()]),
    );
    assert_eq!(none, plain);
}
