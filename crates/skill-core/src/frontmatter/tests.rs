use super::*;

fn doc(front: &str, body: &str) -> String {
    format!("---\n{front}\n---\n{body}")
}

fn ok(text: &str) -> ParsedSkill {
    parse(text).unwrap_or_else(|e| panic!("{text:?} should parse: {e}"))
}

fn err(text: &str) -> FrontmatterError {
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
    for bad in [
        "description: \"\"",
        "description: \"   \"",
        "description: 5",
        "description:",
        "",
    ] {
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

/// A small deterministic generator (xorshift64*), so failures reproduce.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }
    pub(crate) fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    pub(crate) fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
    pub(crate) fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

const KEYS: &[&str] = &[
    "name",
    "description",
    "whenToUse",
    "metadata",
    "disable-model-invocation",
    "user-invocable",
    "owner",
    "b_c",
    "x.y",
    "1",
    "01",
    "true",
    "null",
    "k-1",
    "version",
];
const WORDS: &[&str] = &[
    "my-skill",
    "Does things",
    "yes",
    "no",
    "true",
    "False",
    "1",
    "0",
    "1.5",
    "0x1F",
    "0o17",
    "-3",
    ".inf",
    "-.Inf",
    ".nan",
    "~",
    "null",
    "",
    "a b  c",
    "C#",
    "a #b",
    "http://x.y/z",
    "é ü 字",
    "a:b",
    "-a",
    "+1",
    "1e3",
    "12345678901234567890",
    ".",
    "1.",
    "[x]",
    "a,b",
    "{a}",
    "x]",
    "'q'",
    "\"d\"",
    "it's",
    "a \\n b",
    "2001-12-14",
    "- a",
    "? x",
    ": y",
    "a: b",
    "%x",
    "@x",
    "`x`",
    "!x",
    "&a",
    "*a",
    "|",
    ">",
    "#c",
    "007",
    "0.0",
    "-0",
    "1_000",
    "😀",
];

/// Plain words of everyday frontmatter; [`WORDS`] adds the tricky ones.
const EVERYDAY: &[&str] = &[
    "my-skill",
    "Does things",
    "Review code before merging",
    "team",
    "3",
    "1.5",
    "true",
    "false",
    "yes",
    "é ü 字",
    "C#",
    "http://x.y/z",
    "a-b",
    "null",
    "v1.2.3",
    "It works",
];

fn gen_word(rng: &mut Rng) -> &'static str {
    if rng.chance(30) {
        rng.pick(WORDS)
    } else {
        rng.pick(EVERYDAY)
    }
}

/// `n` distinct keys, sometimes with a repeat.
fn gen_keys(rng: &mut Rng, n: usize) -> Vec<&'static str> {
    let mut keys: Vec<&str> = Vec::new();
    while keys.len() < n {
        let k = rng.pick(KEYS);
        if !keys.contains(&k) || rng.chance(3) {
            keys.push(k);
        }
    }
    keys
}

fn gen_inline(rng: &mut Rng) -> String {
    let w = gen_word(rng);
    match rng.below(6) {
        0 => format!("'{}'", w.replace('\'', "''")),
        1 => {
            let escaped = w.replace('\\', "\\\\").replace('"', "\\\"");
            let extra = rng.pick(&[
                "", "\\n", "\\t", "\\u00e9", "\\x41", "\\\"", "\\/", "\\ ", "\\N", "\\ud83d",
            ]);
            format!("\"{escaped}{extra}\"")
        }
        _ => w.to_string(),
    }
}

fn gen_value(rng: &mut Rng, top: bool, eol: &str) -> String {
    let comment = if rng.chance(10) { " # note" } else { "" };
    let gap = rng.pick(&[" ", " ", "  "]);
    match rng.below(if top { 9 } else { 6 }) {
        0..=2 => format!("{gap}{}{comment}{eol}", gen_inline(rng)),
        3 => {
            let n = rng.below(4);
            let items: Vec<String> = (0..n).map(|_| gen_inline(rng)).collect();
            format!(
                "{gap}[{}]{comment}{eol}",
                items.join(rng.pick(&[", ", ",", " , "]))
            )
        }
        4 => format!("{comment}{eol}"),
        5 if top => {
            let header = rng.pick(&["|", "|-", "|+", ">", ">-", ">+", "|2", "> "]);
            let ind = " ".repeat(1 + rng.below(3));
            let mut s = format!("{gap}{header}{eol}");
            if rng.chance(20) {
                s.push_str(eol);
            }
            for _ in 0..1 + rng.below(4) {
                let line_ind = if rng.chance(10) {
                    format!("{ind}  ")
                } else {
                    ind.clone()
                };
                s.push_str(&format!("{line_ind}{}{eol}", gen_word(rng)));
                if rng.chance(20) {
                    s.push_str(eol);
                }
            }
            s
        }
        _ if top => {
            let ind = " ".repeat(1 + rng.below(3));
            let mut s = format!("{comment}{eol}");
            if rng.chance(50) {
                for _ in 0..1 + rng.below(4) {
                    s.push_str(&format!("{ind}-{}", gen_value(rng, false, eol)));
                }
            } else {
                let n = 1 + rng.below(4);
                for key in gen_keys(rng, n) {
                    s.push_str(&format!("{ind}{key}:{}", gen_value(rng, false, eol)));
                }
            }
            s
        }
        _ => format!("{gap}{}{eol}", gen_inline(rng)),
    }
}

/// A frontmatter of the common shape, with random values and layout.
pub(crate) fn gen_frontmatter(rng: &mut Rng) -> String {
    let eol = if rng.chance(10) { "\r\n" } else { "\n" };
    let mut s = String::new();
    let n = 1 + rng.below(7);
    for key in gen_keys(rng, n) {
        if rng.chance(5) {
            s.push_str(&format!("# comment{eol}"));
        }
        if rng.chance(5) {
            s.push_str(eol);
        }
        s.push_str(key);
        s.push(':');
        s.push_str(&gen_value(rng, true, eol));
    }
    s
}

const NOISE: &[&str] = &[
    " ", "  ", "\t", "\n", "\r", ":", "-", "#", "'", "\"", "|", ">", "[", "]", "{", "}", ",", "&a",
    "*a", "!!str ", "%", "@", "`", "\\", "?", "\u{85}", "\u{2028}", "\u{feff}", "---", "...", "a",
];

/// Apply a few random edits (insert noise, delete, duplicate a line).
pub(crate) fn mutate(rng: &mut Rng, text: &str) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for _ in 0..1 + rng.below(3) {
        let at = rng.below(chars.len() + 1);
        match rng.below(3) {
            0 => {
                let noise: Vec<char> = rng.pick(NOISE).chars().collect();
                chars.splice(at..at, noise);
            }
            1 if at < chars.len() => {
                chars.remove(at);
            }
            _ => {
                let s: String = chars.iter().collect();
                let lines: Vec<&str> = s.split_inclusive('\n').collect();
                if !lines.is_empty() {
                    let i = rng.below(lines.len());
                    let mut out: Vec<&str> = lines.clone();
                    out.insert(i, lines[i]);
                    chars = out.concat().chars().collect();
                }
            }
        }
    }
    chars.into_iter().collect()
}

#[test]
fn fast_reader_agrees_with_composer() {
    let mut rng = Rng::new(11);
    let (mut fast_clean, mut clean, mut fast_mutated) = (0usize, 0usize, 0usize);
    for i in 0..20_000 {
        let base = gen_frontmatter(&mut rng);
        let mutated = i % 2 == 1;
        let yaml = if mutated {
            mutate(&mut rng, &base)
        } else {
            base
        };
        let full = compose::compose(&yaml, 1);
        if let Some(fast) = fast::parse(&yaml) {
            match &full {
                Ok(v) => assert_eq!(&fast, v, "fast and full readers differ on {yaml:?}"),
                Err(e) => panic!("fast reader accepted what the composer refuses ({e}): {yaml:?}"),
            }
            if mutated {
                fast_mutated += 1;
            } else {
                fast_clean += 1;
            }
        }
        if !mutated {
            clean += 1;
        }
    }
    // Both sides of the fast path are exercised (the generator also writes
    // many values the fast reader leaves to the composer).
    eprintln!("fast path: {fast_clean} of {clean} generated, {fast_mutated} mutated");
    assert!(
        fast_clean > 3000,
        "fast path taken for {fast_clean} of {clean}"
    );
    assert!(
        fast_mutated > 700,
        "fast path taken for {fast_mutated} mutated inputs"
    );
}

#[test]
fn everyday_frontmatter_takes_the_fast_path() {
    for yaml in [
        "name: code-review\ndescription: Review code before merging.\n",
        "name: a\ndescription: \"Quoted: with \\\"escapes\\\" and \\u00e9\"\nwhenToUse: 'it''s fine'\n",
        "name: a\r\ndescription: >-\r\n  folded\r\n  text\r\n\r\n  next\r\n",
        "# comment\nname: a\ndescription: |\n  line 1\n    indented\n\n  line 3\ndisable-model-invocation: true\nuser-invocable: no\n",
        "name: a\ndescription: d\nmetadata:\n  owner: platform-team\n  version: 3\n  tags: [review, quality]\n",
        "name: a\ndescription: d # trailing comment\nmetadata:\n  - a\n  - b\n",
    ] {
        let fast = fast::parse(yaml).unwrap_or_else(|| panic!("fast path not taken for {yaml:?}"));
        assert_eq!(Ok(fast), compose::compose(yaml, 1), "{yaml:?}");
    }
}
