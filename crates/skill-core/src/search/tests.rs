use super::*;

/// The items of `(name, description)` pairs, ids in order, rank 1.
pub(super) fn items_of<S: AsRef<str>>(pairs: &[(S, S)]) -> impl Iterator<Item = Item<'_>> {
    pairs
        .iter()
        .enumerate()
        .map(|(i, (name, description))| Item {
            id: i as u32,
            name: name.as_ref(),
            description: description.as_ref(),
            extra: "",
            rank: 1.0,
        })
}

fn index(items: &[(&'static str, &'static str, f64)]) -> Index {
    Index::build(
        items
            .iter()
            .enumerate()
            .map(|(i, &(name, description, rank))| Item {
                id: i as u32,
                name,
                description,
                extra: "",
                rank,
            }),
    )
}

fn names(
    index: &Index,
    items: &[(&'static str, &'static str, f64)],
    query: &str,
) -> Vec<&'static str> {
    index
        .search(query, 10)
        .hits
        .iter()
        .map(|h| items[h.id as usize].0)
        .collect()
}

const SKILLS: &[(&str, &str, f64)] = &[
    (
        "pdf-forms",
        "Fill in PDF forms and extract the values of their fields.",
        400.0,
    ),
    (
        "k8s-deploy",
        "Deploy a service to a Kubernetes cluster and wait for the rollout.",
        100.0,
    ),
    (
        "code-review",
        "Review a pull request: correctness, tests, naming and style.",
        400.0,
    ),
    (
        "release-notes",
        "Write release notes from the commits since the last tag.",
        400.0,
    ),
    (
        "deploy-docs",
        "Publish the documentation site after a release.",
        500.0,
    ),
    (
        "cafe-menu",
        "Génère le menu du café à partir des recettes.",
        600.0,
    ),
    (
        "db-migrate",
        "Create and apply database schema migrations safely.",
        300.0,
    ),
    (
        "lint-fix",
        "Run the linters and fix what they report.",
        200.0,
    ),
];

#[test]
fn stop_words_are_sorted() {
    assert!(score::STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
}

#[test]
fn exact_name_first_then_relevance() {
    let idx = index(SKILLS);
    // The name, in any spelling, comes first even when others mention it more.
    assert_eq!(names(&idx, SKILLS, "Deploy Docs")[0], "deploy-docs");
    assert_eq!(names(&idx, SKILLS, "deploy-docs")[0], "deploy-docs");
    let hits = idx.search("k8s-deploy", 10).hits;
    assert!(hits[0].exact);
    assert!(!hits[1..].iter().any(|h| h.exact));
    // Inflected and other words for the same purpose.
    assert_eq!(
        names(&idx, SKILLS, "deploying my service on kubernetes")[0],
        "k8s-deploy"
    );
    assert_eq!(
        names(&idx, SKILLS, "reviewing pull requests")[0],
        "code-review"
    );
    assert_eq!(names(&idx, SKILLS, "migrating the schema")[0], "db-migrate");
    assert_eq!(names(&idx, SKILLS, "linting")[0], "lint-fix");
}

#[test]
fn name_words_weigh_more_than_description_words() {
    let items: &[(&str, &str, f64)] = &[
        ("notes", "Keeps a journal of meetings.", 400.0),
        ("journal", "Writes notes about meetings.", 400.0),
    ];
    let idx = index(items);
    assert_eq!(names(&idx, items, "journal"), ["journal", "notes"]);
    assert_eq!(names(&idx, items, "notes"), ["notes", "journal"]);
}

#[test]
fn prefixes_case_diacritics_and_typos_match() {
    let idx = index(SKILLS);
    assert_eq!(names(&idx, SKILLS, "kube")[0], "k8s-deploy");
    assert_eq!(names(&idx, SKILLS, "KUBERNETES")[0], "k8s-deploy");
    assert_eq!(names(&idx, SKILLS, "genere cafe")[0], "cafe-menu");
    assert_eq!(names(&idx, SKILLS, "CAFÉ recette")[0], "cafe-menu");
    assert_eq!(names(&idx, SKILLS, "kubernets")[0], "k8s-deploy");
    assert_eq!(names(&idx, SKILLS, "documantation")[0], "deploy-docs");
    // A query word that is a word of the catalog matches only that word
    // (not every longer word it starts); one that is not matches the words
    // it starts, the shorter ones first.
    let items: &[(&str, &str, f64)] = &[
        ("p", "Testcontainers setup.", 1.0),
        ("q", "Test setup.", 1.0),
    ];
    let idx = index(items);
    assert_eq!(names(&idx, items, "test"), ["q"]);
    assert_eq!(names(&idx, items, "testcont"), ["p"]);
    let items: &[(&str, &str, f64)] = &[
        ("a", "Deployment of things.", 1.0),
        ("b", "Deploy things.", 1.0),
        ("c", "Depth.", 1.0),
    ];
    let idx = index(items);
    assert_eq!(names(&idx, items, "deploy"), ["b", "a"]);
    assert_eq!(names(&idx, items, "dep"), ["c", "b", "a"]);
}

#[test]
fn name_weight_only_for_whole_name_words() {
    // "build" starts the name word "buildkite" but is a word of the catalog:
    // the workbook skill that says "build" wins, and "buildkite" does not
    // match at all; "buil" (no such word) reaches both, neither by the
    // name's weight.
    let items: &[(&str, &str, f64)] = &[
        ("buildkite-automation", "Automate Buildkite tasks.", 1.0),
        ("xlsx", "Build a workbook with formulas.", 1.0),
    ];
    let idx = index(items);
    assert_eq!(names(&idx, items, "build a workbook"), ["xlsx"]);
    let hits = idx.search("buil", 10).hits;
    assert_eq!(hits.len(), 2);
    assert!(hits[0].score < 2.0 * hits[1].score, "{hits:?}");
}

#[test]
fn templated_descriptions_weigh_little() {
    // Forty skills share a template that holds the query's words; one
    // skill holds them in its own words, once each as well, in a longer
    // description and with a name that loses ties. Only the template's
    // lower weight puts that skill first: counted in full, the shorter
    // templated descriptions would win.
    let mut items: Vec<(String, String)> = (0..40)
        .map(|i| {
            (
                format!("app{i}-automation"),
                format!("Automate App{i} tasks via Rube MCP. Always search tools first for current schemas."),
            )
        })
        .collect();
    items.push((
        "finder".into(),
        "Search for the right tools across a large project and explain each one briefly here."
            .into(),
    ));
    let idx = Index::build(items_of(&items));
    let hits = idx.search("search tools", 10).hits;
    assert_eq!(items[hits[0].id as usize].0, "finder", "{hits:?}");
    assert_eq!(hits.len(), 10);
    // What is the skill's own (the app's name) keeps its weight.
    let hits = idx.search("app7", 10).hits;
    assert_eq!(items[hits[0].id as usize].0, "app7-automation");
}

#[test]
fn extra_text_weighs_less_than_the_description() {
    // Each skill's extra text is the other's description: the same words,
    // the same lengths. The one that has the query's word in its extra
    // text wins ties (better rank, first name); only the lower weight of
    // the extra text puts the other first.
    let items: &[(&str, &str, f64)] = &[("a", "Tidy folders.", 1.0), ("b", "Sort receipts.", 2.0)];
    let idx = Index::build(
        items
            .iter()
            .enumerate()
            .map(|(i, &(name, description, rank))| Item {
                id: i as u32,
                name,
                description,
                extra: items[1 - i].1,
                rank,
            }),
    );
    assert_eq!(names(&idx, items, "receipts"), ["b", "a"]);
    assert_eq!(names(&idx, items, "tidy"), ["a", "b"]);
}

#[test]
fn a_cancelled_search_or_build_gives_up() {
    let cancel = crate::cancel::CancelToken::new();
    cancel.cancel();
    let idx = index(SKILLS);
    assert_eq!(idx.search_until("deploy", 5, &cancel), Err(Cancelled));
    let many: Vec<(String, String)> = (0..5000)
        .map(|i| (format!("s{i}"), format!("Skill number {i}.")))
        .collect();
    let built = Index::build_until(items_of(&many), &cancel);
    assert!(built.is_err());
}

#[test]
fn ties_go_by_rank_then_name_and_results_are_deterministic() {
    let items: &[(&str, &str, f64)] = &[
        ("zeta", "Format the code.", 400.0),
        ("alpha", "Format the code.", 400.0),
        ("beta", "Format the code.", 100.0),
    ];
    let idx = index(items);
    let hits = idx.search("format", 10);
    assert_eq!(hits.total, 3);
    assert_eq!(
        hits.hits
            .iter()
            .map(|h| items[h.id as usize].0)
            .collect::<Vec<_>>(),
        ["beta", "alpha", "zeta"]
    );
    assert_eq!(hits.hits[0].score, hits.hits[1].score);
    assert_eq!(idx.search("format", 10), hits);
    // The limit keeps the best, in the same order.
    let two = idx.search("format", 2);
    assert_eq!(two.total, 3);
    assert_eq!(two.hits, hits.hits[..2]);
}

#[test]
fn nothing_matches_and_suggestions() {
    let idx = index(SKILLS);
    assert_eq!(
        idx.search("spreadsheet", 10),
        Results {
            hits: vec![],
            total: 0
        }
    );
    assert_eq!(idx.search("", 10).total, 0);
    assert_eq!(idx.search("  ,, ", 10).total, 0);
    // Stop words count only when nothing else is asked.
    assert!(idx.search("the", 10).total >= 4);
    assert_eq!(idx.search("the deploy", 10), idx.search("deploy", 10));
    // A typo one edit away matches; a word that matches nothing is corrected.
    assert_eq!(names(&idx, SKILLS, "relaese")[0], "release-notes");
    assert_eq!(
        idx.suggest("databse migrashuns").as_deref(),
        Some("database migrations")
    );
    assert_eq!(idx.suggest("deploy kube"), None);
    assert_eq!(idx.suggest("zzzzqqq"), None);
    assert_eq!(Index::default().search("x", 10).total, 0);
}

#[test]
fn cjk_text_is_searchable() {
    let items: &[(&str, &str, f64)] = &[
        ("zh-deploy", "把应用部署到生产环境。", 400.0),
        ("zh-review", "审查代码并给出修改建议。", 400.0),
    ];
    let idx = index(items);
    assert_eq!(names(&idx, items, "部署应用"), ["zh-deploy"]);
    assert_eq!(names(&idx, items, "代码审查")[0], "zh-review");
}

#[test]
fn hostile_queries_stay_cheap_and_total() {
    let idx = index(SKILLS);
    let long = "deploy ".repeat(100_000);
    assert_eq!(
        idx.search(&long, 3).hits.len(),
        3.min(idx.search("deploy", 3).hits.len())
    );
    let garbage: String = (0..200).map(|i| format!("w{i}x ")).collect();
    let _ = idx.search(&garbage, 5);
    let _ = idx.search(&"é".repeat(10_000), 5);
    assert_eq!(score::distance(b"kitten", b"sitting", 3), Some(3));
    assert_eq!(score::distance(b"ab", b"ba", 1), Some(1));
    assert_eq!(score::distance(b"abc", b"xyz", 2), None);
}
