//! Skill file parsing: `---` frontmatter splitting, YAML to fields, invocation policy.
//!
//! A skill file starts with a line that is exactly `---` (a trailing `\r` is
//! tolerated, and so is a leading UTF-8 byte order mark); the frontmatter ends at
//! the first later line that is exactly `---`. The YAML between them must be a
//! mapping; it is read the way the JS `yaml` package's `parse` reads it
//! (YAML 1.2, core schema, default options: `yes` is a string, duplicate keys
//! are an error, numbers are doubles). The body is the text after the closing
//! line, trimmed as JS `String.prototype.trim` trims.
//!
//! Two readers give the same values: `fast` handles the common shape (a
//! flat mapping of plain, quoted and block scalars, plus one level of simple
//! nested mappings and sequences) and gives up on anything else; `compose`
//! reads any YAML through `saphyr-parser` events within a fixed budget of
//! nodes, bytes and depth, so any file costs time and memory linear in its
//! size.
//!
//! Every failure is a [`FrontmatterError`] value with a human-readable reason;
//! the local provider turns it into a warning and a `doctor` record.

mod compose;
mod fast;
mod mask;
mod scalar;
mod value;

#[cfg(test)]
mod tests;

pub use compose::{MAX_BYTES, MAX_DEPTH, MAX_NODES};

use crate::model::{is_skill_name, quoted_name, too_long_name, InvocationPolicy};
use scalar::Scalar;
use serde_json::{Map, Value as Json};
use value::Value;

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
    /// The YAML, aliases expanded, is larger than the budget (the payload
    /// says which limit: nodes or bytes).
    #[error("frontmatter expands to more than {0}")]
    Expands(String),
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
    /// Non-empty description, as written (only whitespace counts as non-empty).
    pub description: String,
    /// Optional routing guidance (non-empty strings only).
    pub when_to_use: Option<String>,
    /// Resolved invocation controls.
    pub invocation: InvocationPolicy,
    /// The `metadata` mapping converted to JSON, when it is a mapping.
    pub metadata: Option<Map<String, Json>>,
    /// Markdown body after the closing `---`, trimmed.
    pub body: String,
    /// Fingerprint of the whole skill file's text (frontmatter and body), set
    /// by whoever read the file ([`crate::same`]); `None` from [`parse`]
    /// itself.
    pub fingerprint: Option<crate::same::Fingerprint>,
}

/// Split `text` into the YAML between the delimiters and the raw text after the
/// closing line.
///
/// The closing line is found by searching for `\n---` (a vectorised search
/// that skips everything else), not line by line: a file of a million short
/// lines costs one pass over its bytes.
pub fn split(text: &str) -> Result<(&str, &str), FrontmatterError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let (first, rest) = match text.find('\n') {
        Some(i) => (&text[..i], &text[i + 1..]),
        None => (text, ""),
    };
    if !is_delimiter(first) {
        return Err(FrontmatterError::Missing);
    }
    // The closing line starts at `start` (0, or just after a line feed).
    let closing = |start: usize| -> Option<usize> {
        let line = rest.get(start..)?.strip_prefix("---")?;
        match line.as_bytes() {
            [] | [b'\r'] => Some(rest.len()),
            [b'\n', ..] => Some(start + 4),
            [b'\r', b'\n', ..] => Some(start + 5),
            _ => None,
        }
    };
    if let Some(after) = closing(0) {
        return Ok(("", &rest[after..]));
    }
    for i in memchr::memmem::find_iter(rest.as_bytes(), b"\n---") {
        if let Some(after) = closing(i + 1) {
            return Ok((&rest[..i + 1], &rest[after..]));
        }
    }
    Err(FrontmatterError::Unterminated)
}

fn is_delimiter(line: &str) -> bool {
    line == "---" || line == "---\r"
}

/// JS `String.prototype.trim`.
pub fn js_trim(s: &str) -> &str {
    s.trim_matches(crate::catalog::is_js_whitespace)
}

/// Parse a whole skill file.
pub fn parse(text: &str) -> Result<ParsedSkill, FrontmatterError> {
    let (yaml, body) = split(text)?;
    let root = parse_yaml(yaml)?;
    fields(&root, body)
}

/// The YAML of the frontmatter as a value: the fast reader when it applies,
/// the full composer otherwise.
fn parse_yaml(yaml: &str) -> Result<Value<'_>, FrontmatterError> {
    match fast::parse(yaml) {
        Some(value) => Ok(value),
        // Line numbers in messages count from the file's first line (`---`).
        None => compose::compose(yaml, 1),
    }
}

/// The fields of a skill from the frontmatter value.
fn fields(root: &Value<'_>, body: &str) -> Result<ParsedSkill, FrontmatterError> {
    let Value::Map(pairs) = root else {
        return Err(FrontmatterError::NotMapping(root.kind()));
    };
    // Property lookup on the JS object `yaml.parse` returns: keys are
    // stringified and a later key with the same name wins.
    let mut found: [Option<&Value<'_>>; 9] = [None; 9];
    for (key, value) in pairs {
        let name = match key {
            Value::Scalar(Scalar::Str(s)) => s.as_ref(),
            _ => continue,
        };
        if let Some(slot) = KEYS.iter().position(|k| *k == name) {
            found[slot] = Some(value);
        }
    }
    let [name, description, when_to_use, metadata, disable_model, user, legacy @ ..] = found;
    for (key, value) in LEGACY_INVOCATION_KEYS.iter().zip(legacy) {
        if value.is_some() {
            return Err(FrontmatterError::LegacyKey(key));
        }
    }
    let name = match name {
        Some(Value::Scalar(Scalar::Str(s))) if is_skill_name(s) => s.to_string(),
        Some(Value::Scalar(Scalar::Str(s))) if s.is_empty() => {
            return Err(field_error("name", "must be a non-empty string".into()))
        }
        Some(Value::Scalar(Scalar::Str(s))) => {
            let fault = too_long_name(s).unwrap_or_else(|| {
                format!(
                    "must be kebab-case (lowercase letters, digits, single dashes), got {}",
                    quoted_name(s)
                )
            });
            return Err(field_error("name", fault));
        }
        Some(other) => {
            return Err(field_error(
                "name",
                format!("must be a non-empty string (got {})", other.kind()),
            ))
        }
        None => return Err(field_error("name", "is required".into())),
    };
    let description = match description {
        // Only whitespace is still a description, kept as written.
        Some(Value::Scalar(Scalar::Str(s))) if !s.is_empty() => s.to_string(),
        Some(Value::Scalar(Scalar::Str(_))) => {
            return Err(field_error(
                "description",
                "must be a non-empty string".into(),
            ))
        }
        Some(other) => {
            return Err(field_error(
                "description",
                format!("must be a non-empty string (got {})", other.kind()),
            ))
        }
        None => return Err(field_error("description", "is required".into())),
    };
    let when_to_use = match when_to_use {
        Some(Value::Scalar(Scalar::Str(s))) if !js_trim(s).is_empty() => Some(s.to_string()),
        _ => None,
    };
    let metadata = match metadata {
        Some(Value::Map(m)) => Some(value::map_to_json(m)),
        _ => None,
    };
    let disable_model = invocation_flag(disable_model, DISABLE_MODEL_INVOCATION)?;
    let user = invocation_flag(user, USER_INVOCABLE)?;
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
        fingerprint: None,
    })
}

/// The top-level keys a skill reads, in the order [`fields`] destructures them.
const KEYS: [&str; 9] = [
    "name",
    "description",
    "whenToUse",
    "metadata",
    DISABLE_MODEL_INVOCATION,
    USER_INVOCABLE,
    LEGACY_INVOCATION_KEYS[0],
    LEGACY_INVOCATION_KEYS[1],
    LEGACY_INVOCATION_KEYS[2],
];

fn field_error(field: &'static str, problem: String) -> FrontmatterError {
    FrontmatterError::Field { field, problem }
}

/// Read one invocation key: `None` when absent, the boolean otherwise, an
/// error for any other value.
fn invocation_flag(
    value: Option<&Value<'_>>,
    key: &'static str,
) -> Result<Option<bool>, FrontmatterError> {
    let Some(value) = value else {
        return Ok(None);
    };
    let flag = match value {
        Value::Scalar(Scalar::Bool(b)) => Some(*b),
        // `value === 1` / `value === 0` (so -0 too).
        Value::Scalar(Scalar::Number(n)) if *n == 1.0 => Some(true),
        Value::Scalar(Scalar::Number(n)) if *n == 0.0 => Some(false),
        Value::Scalar(Scalar::Str(s)) => parse_flag_text(s),
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

fn describe(value: &Value<'_>) -> String {
    match value {
        Value::Scalar(Scalar::Str(s)) => {
            let short: String = s.chars().take(40).collect();
            format!("string {short:?}")
        }
        Value::Scalar(Scalar::Number(n)) => format!("number {}", scalar::js_number_text(*n)),
        other => other.kind().to_string(),
    }
}

/// [`parse`] without the fast reader: every file through the full composer.
/// For benchmarks and differential tests; the result is always the same as
/// [`parse`]'s.
#[doc(hidden)]
pub fn parse_with_full_reader(text: &str) -> Result<ParsedSkill, FrontmatterError> {
    let (yaml, body) = split(text)?;
    let root = compose::compose(yaml, 1)?;
    fields(&root, body)
}
