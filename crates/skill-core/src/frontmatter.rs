//! Skill file parsing: `---` frontmatter splitting, YAML to fields, invocation policy.
//!
//! A skill file starts with a line that is exactly `---` (a trailing `\r` is
//! tolerated, and so is a leading UTF-8 byte order mark); the frontmatter ends at
//! the first later line that is exactly `---`. The YAML between them is parsed
//! with `serde_yaml_ng` (YAML 1.2 scalars: `yes` is a string, duplicate keys are
//! an error) and must be a mapping. The body is the text after the closing line,
//! trimmed as JS `String.prototype.trim` trims.
//!
//! Every failure is a [`FrontmatterError`] value with a human-readable reason;
//! the local provider turns it into a warning and a `doctor` record.

use crate::model::{is_skill_name, InvocationPolicy};
use serde_json::{Map, Value as Json};
use serde_yaml_ng::Value as Yaml;

/// Frontmatter key that hides a skill from the model when true.
pub const DISABLE_MODEL_INVOCATION: &str = "disable-model-invocation";
/// Frontmatter key that hides a skill from users when false.
pub const USER_INVOCABLE: &str = "user-invocable";
/// Keys of an older spelling that are rejected (the whole skill is dropped) so
/// that a skill meant to be hidden never leaks by accident.
pub const LEGACY_INVOCATION_KEYS: [&str; 3] =
    ["disableModelInvocation", "modelInvocable", "userInvocable"];

/// Why a skill file was not accepted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FrontmatterError {
    /// The first line is not exactly `---`.
    #[error("missing frontmatter: the first line must be exactly `---`")]
    Missing,
    /// No later line is exactly `---`.
    #[error("unterminated frontmatter: no closing `---` line")]
    Unterminated,
    /// The YAML does not parse (syntax error, duplicate key, ...).
    #[error("invalid YAML frontmatter: {0}")]
    Yaml(String),
    /// The YAML parsed but is not a mapping.
    #[error("frontmatter must be a YAML mapping (got {0})")]
    NotMapping(&'static str),
    /// A required or typed field is wrong.
    #[error("frontmatter field `{field}` {problem}")]
    Field {
        /// Key name.
        field: &'static str,
        /// What is wrong with it.
        problem: String,
    },
    /// A legacy invocation key is present.
    #[error("frontmatter key `{0}` is no longer supported (use `disable-model-invocation` / `user-invocable`)")]
    LegacyKey(&'static str),
}

/// The accepted content of a skill file.
#[derive(Clone, Debug, PartialEq)]
pub struct ParsedSkill {
    /// Kebab-case name.
    pub name: String,
    /// Non-empty description (as written).
    pub description: String,
    /// Optional routing guidance (non-empty strings only).
    pub when_to_use: Option<String>,
    /// Resolved invocation controls.
    pub invocation: InvocationPolicy,
    /// The `metadata` mapping converted to JSON, when it is a mapping.
    pub metadata: Option<Map<String, Json>>,
    /// Markdown body after the closing `---`, trimmed.
    pub body: String,
}

/// Split `text` into the YAML between the delimiters and the raw text after the
/// closing line.
pub fn split(text: &str) -> Result<(&str, &str), FrontmatterError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let (first, mut rest) = match text.find('\n') {
        Some(i) => (&text[..i], &text[i + 1..]),
        None => (text, ""),
    };
    if !is_delimiter(first) {
        return Err(FrontmatterError::Missing);
    }
    let yaml_start = rest;
    let mut offset = 0usize;
    loop {
        if rest.is_empty() {
            return Err(FrontmatterError::Unterminated);
        }
        let (line, next) = match rest.find('\n') {
            Some(i) => (&rest[..i], &rest[i + 1..]),
            None => (rest, ""),
        };
        if is_delimiter(line) {
            return Ok((&yaml_start[..offset], next));
        }
        offset += rest.len() - next.len();
        rest = next;
    }
}

fn is_delimiter(line: &str) -> bool {
    line == "---" || line == "---\r"
}

/// JS `String.prototype.trim`.
pub fn js_trim(s: &str) -> &str {
    s.trim_matches(crate::catalog::is_js_whitespace)
}

/// Deepest flow-collection nesting accepted in frontmatter. The YAML parser
/// gives up at 128 levels anyway, but only after work that grows with the
/// square of the depth (minutes for a file of `[` at the size cap), so
/// anything deeper is refused up front.
const MAX_FLOW_DEPTH: usize = 128;

/// Upper bound of the flow nesting depth: counts `[`/`{` against `]`/`}`
/// ignoring quoting (so it can only over-estimate), in one linear pass.
fn flow_depth_exceeds(yaml: &str, limit: usize) -> bool {
    let mut depth = 0usize;
    for b in yaml.bytes() {
        match b {
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// Parse a whole skill file.
pub fn parse(text: &str) -> Result<ParsedSkill, FrontmatterError> {
    let (yaml, body) = split(text)?;
    if flow_depth_exceeds(yaml, MAX_FLOW_DEPTH) {
        return Err(FrontmatterError::Yaml(format!(
            "collections nest deeper than {MAX_FLOW_DEPTH} levels"
        )));
    }
    let value: Yaml =
        serde_yaml_ng::from_str(yaml).map_err(|e| FrontmatterError::Yaml(e.to_string()))?;
    let mapping = match value {
        Yaml::Mapping(m) => m,
        Yaml::Tagged(t) => match t.value {
            Yaml::Mapping(m) => m,
            other => return Err(FrontmatterError::NotMapping(kind(&other))),
        },
        other => return Err(FrontmatterError::NotMapping(kind(&other))),
    };
    let field = |key: &str| mapping.get(key).map(untag);

    for legacy in LEGACY_INVOCATION_KEYS {
        if mapping.contains_key(legacy) {
            return Err(FrontmatterError::LegacyKey(legacy));
        }
    }
    let name = match field("name") {
        Some(Yaml::String(s)) if is_skill_name(s) => s.clone(),
        Some(Yaml::String(s)) if s.is_empty() => {
            return Err(field_error("name", "must be a non-empty string".into()))
        }
        Some(Yaml::String(s)) => {
            return Err(field_error(
                "name",
                format!("must be kebab-case (lowercase letters, digits, single dashes), got {s:?}"),
            ))
        }
        Some(other) => {
            return Err(field_error(
                "name",
                format!("must be a non-empty string (got {})", kind(other)),
            ))
        }
        None => return Err(field_error("name", "is required".into())),
    };
    let description = match field("description") {
        Some(Yaml::String(s)) if !s.trim().is_empty() => s.clone(),
        Some(Yaml::String(_)) => {
            return Err(field_error(
                "description",
                "must be a non-empty string".into(),
            ))
        }
        Some(other) => {
            return Err(field_error(
                "description",
                format!("must be a non-empty string (got {})", kind(other)),
            ))
        }
        None => return Err(field_error("description", "is required".into())),
    };
    let when_to_use = match field("whenToUse") {
        Some(Yaml::String(s)) if !s.trim().is_empty() => Some(s.clone()),
        _ => None,
    };
    let metadata = match field("metadata") {
        Some(Yaml::Mapping(m)) => Some(mapping_to_json(m)),
        _ => None,
    };
    let disable_model = invocation_flag(&mapping, DISABLE_MODEL_INVOCATION)?;
    let user = invocation_flag(&mapping, USER_INVOCABLE)?;
    Ok(ParsedSkill {
        name,
        description,
        when_to_use,
        invocation: InvocationPolicy {
            model_invocable: !disable_model.unwrap_or(false),
            user_invocable: user.unwrap_or(true),
        },
        metadata,
        body: js_trim(body).to_string(),
    })
}

fn field_error(field: &'static str, problem: String) -> FrontmatterError {
    FrontmatterError::Field { field, problem }
}

fn untag(value: &Yaml) -> &Yaml {
    match value {
        Yaml::Tagged(t) => untag(&t.value),
        other => other,
    }
}

fn kind(value: &Yaml) -> &'static str {
    match value {
        Yaml::Null => "null",
        Yaml::Bool(_) => "a boolean",
        Yaml::Number(_) => "a number",
        Yaml::String(_) => "a string",
        Yaml::Sequence(_) => "a sequence",
        Yaml::Mapping(_) => "a mapping",
        Yaml::Tagged(t) => kind(&t.value),
    }
}

/// Read one invocation key: `None` when absent, the boolean otherwise, an
/// error for any other value.
fn invocation_flag(
    mapping: &serde_yaml_ng::Mapping,
    key: &'static str,
) -> Result<Option<bool>, FrontmatterError> {
    let Some(value) = mapping.get(key) else {
        return Ok(None);
    };
    let flag = match untag(value) {
        Yaml::Bool(b) => Some(*b),
        Yaml::Number(n) => match n.as_f64() {
            Some(1.0) => Some(true),
            // Matches -0.0 too, as `value === 0` does in JS.
            Some(0.0) => Some(false),
            _ => None,
        },
        Yaml::String(s) => parse_flag_text(s),
        _ => None,
    };
    match flag {
        Some(b) => Ok(Some(b)),
        None => Err(field_error(
            key,
            format!(
                "must be a boolean, 1/0 or one of true/false/yes/no/on/off (got {})",
                describe(value)
            ),
        )),
    }
}

/// `1`/`0` and case-insensitive `true/false/yes/no/on/off`.
fn parse_flag_text(s: &str) -> Option<bool> {
    match s {
        "1" => return Some(true),
        "0" => return Some(false),
        _ => {}
    }
    if s.len() > 5 {
        return None;
    }
    match s.to_ascii_lowercase().as_str() {
        "true" | "yes" | "on" => Some(true),
        "false" | "no" | "off" => Some(false),
        _ => None,
    }
}

fn describe(value: &Yaml) -> String {
    match untag(value) {
        Yaml::String(s) => {
            let short: String = s.chars().take(40).collect();
            format!("string {short:?}")
        }
        Yaml::Number(n) => format!("number {n}"),
        other => kind(other).to_string(),
    }
}

/// Convert a YAML mapping to a JSON object the way a JS YAML loader would:
/// non-string keys are stringified (`null` → `""`, `true` → `"true"`, numbers
/// as JS prints them, collections as JSON text).
pub fn mapping_to_json(mapping: &serde_yaml_ng::Mapping) -> Map<String, Json> {
    let mut out = Map::with_capacity(mapping.len());
    for (key, value) in mapping {
        out.insert(key_string(key), to_json(value));
    }
    out
}

fn key_string(key: &Yaml) -> String {
    match untag(key) {
        Yaml::String(s) => s.clone(),
        Yaml::Null => String::new(),
        Yaml::Bool(b) => b.to_string(),
        Yaml::Number(n) => number_text(n),
        other => to_json(other).to_string(),
    }
}

fn number_text(n: &serde_yaml_ng::Number) -> String {
    if let Some(i) = n.as_i64() {
        if i.unsigned_abs() <= MAX_SAFE_INTEGER {
            return i.to_string();
        }
    } else if let Some(u) = n.as_u64() {
        if u <= MAX_SAFE_INTEGER {
            return u.to_string();
        }
    }
    js_number_text(n.as_f64().unwrap_or(f64::NAN))
}

const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// Approximate JS `String(number)` (exact for integers and the usual decimals).
fn js_number_text(x: f64) -> String {
    if x.is_nan() {
        "NaN".into()
    } else if x.is_infinite() {
        if x > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else if x == x.trunc() && x.abs() < 1e21 {
        format!("{x:.0}")
    } else {
        format!("{x}")
    }
}

fn to_json(value: &Yaml) -> Json {
    match value {
        Yaml::Null => Json::Null,
        Yaml::Bool(b) => Json::Bool(*b),
        Yaml::Number(n) => {
            if let Some(i) = n.as_i64().filter(|i| i.unsigned_abs() <= MAX_SAFE_INTEGER) {
                Json::from(i)
            } else if let Some(u) = n.as_u64().filter(|u| *u <= MAX_SAFE_INTEGER) {
                Json::from(u)
            } else {
                // NaN and infinities have no JSON form; JS would hold them as
                // numbers, the closest portable value is null.
                n.as_f64()
                    .and_then(serde_json::Number::from_f64)
                    .map_or(Json::Null, Json::Number)
            }
        }
        Yaml::String(s) => Json::String(s.clone()),
        Yaml::Sequence(items) => Json::Array(items.iter().map(to_json).collect()),
        Yaml::Mapping(m) => Json::Object(mapping_to_json(m)),
        Yaml::Tagged(t) => to_json(&t.value),
    }
}

#[cfg(test)]
mod tests {
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
        let text = "---\nname: dashes\ndescription: \"a --- b\"\nwhenToUse: |\n  ---x\n---\nbody\n---\nmore";
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
            "true", "True", "TRUE", "1", "1.0", "0x1", "\"1\"", "'1'", "yes", "Yes", "YES", "on",
            "On", "ON", "\"true\"", "\"tRuE\"", "'yes'", "!!str on",
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
            "2", "-1", "0.5", "\"2\"", "\"\"", "\" yes\"", "y", "n", "enabled", "truee", "null",
            "~", "", "[true]", "{a: 1}", "\"1.0\"", ".inf", ".nan",
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
        let ok = "---\nname: a\ndescription: \"[[[[ not nesting\"\nmetadata: { a: [1, [2, [3]]] }\n---\n";
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
}
