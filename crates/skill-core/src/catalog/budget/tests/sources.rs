//! Sources, folders and glob pins sharing the room (fair shares).

use super::*;

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
