//! Skill vocabulary shared by every module: names, invocation policy, summaries,
//! candidates and definitions, plus validation of values supplied by host
//! (JS) providers and callers (see [`host`]).

use serde::Serialize;
use std::fmt;

pub mod host;

/// Name of the registry-owned provider that holds runtime skills.
pub const RUNTIME_PROVIDER: &str = "runtime";
/// Source label of runtime skills.
pub const RUNTIME_SOURCE: &str = "runtime";
/// Rank of runtime skills: project roots (100, 200) outrank them, custom, user and
/// bundled roots (300+) lose to them.
pub const RUNTIME_RANK: f64 = 250.0;

/// The longest skill name, in characters (names are ASCII: bytes too), as
/// the Agent Skills specification sets it. Longer names are not skill names,
/// for skills and `/name` gestures alike.
pub const MAX_SKILL_NAME_LEN: usize = 64;

/// Whether `name` is a kebab-case skill name (`^[a-z0-9]+(?:-[a-z0-9]+)*$`)
/// of at most [`MAX_SKILL_NAME_LEN`] characters.
pub fn is_skill_name(name: &str) -> bool {
    name.len() <= MAX_SKILL_NAME_LEN && is_kebab_case(name)
}

/// Whether `name` is kebab-case, whatever its length.
fn is_kebab_case(name: &str) -> bool {
    let bytes = name.as_bytes();
    if bytes.is_empty() || bytes[0] == b'-' || bytes[bytes.len() - 1] == b'-' {
        return false;
    }
    let mut previous_dash = false;
    for &b in bytes {
        match b {
            b'a'..=b'z' | b'0'..=b'9' => previous_dash = false,
            b'-' if !previous_dash => previous_dash = true,
            _ => return false,
        }
    }
    true
}

/// Why `name` is not a skill name when it is kebab-case but too long (for
/// a message: `must be at most 64 characters long (got "…", N characters)`).
pub(crate) fn too_long_name(name: &str) -> Option<String> {
    (name.len() > MAX_SKILL_NAME_LEN && is_kebab_case(name)).then(|| {
        format!(
            "must be at most {MAX_SKILL_NAME_LEN} characters long (got {}, {} characters)",
            quoted_name(name),
            name.len()
        )
    })
}

/// `name` quoted (as `{:?}` quotes it), cut after [`MAX_SKILL_NAME_LEN`]
/// characters with `…`.
pub(crate) fn quoted_name(name: &str) -> String {
    match name.char_indices().nth(MAX_SKILL_NAME_LEN) {
        Some((at, _)) => format!("{:?}…", &name[..at]),
        None => format!("{name:?}"),
    }
}

/// Invocation controls normalised to positive booleans.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InvocationPolicy {
    /// Whether model-facing catalogs and loaders include this skill.
    pub model_invocable: bool,
    /// Whether human-facing command catalogs and loaders include this skill.
    pub user_invocable: bool,
}

impl Default for InvocationPolicy {
    fn default() -> Self {
        Self {
            model_invocable: true,
            user_invocable: true,
        }
    }
}

/// Provider-specific base for resolving a skill's relative resources.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum ResourceBase {
    /// A directory on disk.
    Directory {
        /// Absolute directory path.
        path: String,
    },
    /// A URL base.
    Url {
        /// Base URL.
        url: String,
    },
    /// A provider-managed base described in words.
    Opaque {
        /// Human-readable description.
        description: String,
    },
}

/// Invocation-neutral skill metadata (what `snapshot()` returns).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillSummary {
    /// Kebab-case identifier.
    pub name: String,
    /// Short routing description.
    pub description: String,
    /// Optional extra routing guidance.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub when_to_use: Option<String>,
    /// Resolved invocation controls.
    pub invocation: InvocationPolicy,
    /// Discovery source label (`project-dsh`, `runtime`, ...).
    pub source: String,
    /// Provider that owns the body.
    pub provider: String,
    /// Base for relative resources.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_base: Option<ResourceBase>,
}

/// Opaque provider-owned state that travels with a candidate back to `get()`.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum Locator {
    /// The provider needs nothing beyond the candidate's own fields.
    #[default]
    None,
    /// Index of the candidate in a list held by the host (for JS providers the
    /// candidate object itself stays in JS; Rust keeps only its position).
    Index(u32),
}

/// A provider's catalog entry, used to merge and later load a skill.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    /// The summary the registry publishes if this candidate wins.
    pub summary: SkillSummary,
    /// Lower ranks win duplicate names before registration order is considered.
    pub rank: f64,
    /// Absolute file path when the provider has one.
    pub path: Option<String>,
    /// Parsed `metadata` mapping, when present.
    pub metadata: Option<serde_json::Map<String, serde_json::Value>>,
    /// Opaque provider state.
    pub locator: Locator,
    /// The skill file's fingerprint, when the provider read the file itself
    /// ([`crate::same`]): tells a duplicate that is the same skill.
    pub fingerprint: Option<crate::same::Fingerprint>,
    /// The opening of the body (at most [`LEAD_BYTES`]), when the provider
    /// read it anyway: search indexes it at a low weight. Never shown.
    pub lead: Option<Box<str>>,
}

/// Most bytes of a body's opening kept with a candidate ([`Candidate::lead`]).
pub const LEAD_BYTES: usize = 480;

/// The opening of `body`: its first [`LEAD_BYTES`] bytes, cut on a
/// character boundary.
pub fn lead_of(body: &str) -> &str {
    cut_at(body, LEAD_BYTES)
}

/// `text` cut to at most `max` bytes, on a character boundary.
pub fn cut_at(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// A complete skill, including the body.
#[derive(Clone, Debug, PartialEq)]
pub struct SkillDefinition {
    /// Summary fields.
    pub summary: SkillSummary,
    /// Markdown instruction body.
    pub content: String,
    /// Absolute file path when the skill came from disk.
    pub path: Option<String>,
    /// Parsed `metadata` mapping, when present.
    pub metadata: Option<serde_json::Map<String, serde_json::Value>>,
}

/// A provider's answer to `list()`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Observation {
    /// Candidates in the provider's own order (shared: a provider that keeps
    /// its listing between lookups hands out the same candidates).
    pub candidates: Vec<std::sync::Arc<Candidate>>,
    /// Whether discovery was authoritative (cacheable).
    pub complete: bool,
}

/// `n` as JavaScript prints it (`String(n)`) in error messages.
pub(crate) fn js_number(n: f64) -> String {
    if n.is_nan() {
        "NaN".into()
    } else if n.is_infinite() {
        if n > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else {
        format!("{n}")
    }
}

/// Which value a [`ValidationError`] is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Subject {
    /// The `list()` result as a whole.
    ListResult,
    /// Candidate at this index of a `list()` result.
    Candidate(usize),
    /// A definition returned by `get()`.
    Definition,
    /// A runtime skill passed to `register()`.
    Registration,
    /// A provider object returned by a factory.
    Provider,
}

/// A provider or caller supplied a malformed value. Always names the provider
/// and the field.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct ValidationError {
    /// Provider name (or `runtime` for registrations).
    pub provider: String,
    /// What was being validated.
    pub subject: Subject,
    /// Field name (empty for the value as a whole).
    pub field: String,
    /// What was expected and what was found.
    pub problem: String,
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let subject = match &self.subject {
            Subject::ListResult => "an invalid list() result".to_string(),
            Subject::Candidate(i) => format!("an invalid candidate at index {i}"),
            Subject::Definition => "an invalid skill definition from get()".to_string(),
            Subject::Registration => "an invalid runtime skill".to_string(),
            Subject::Provider => "an invalid provider object".to_string(),
        };
        if matches!(self.subject, Subject::Registration) {
            write!(f, "{subject}")?;
        } else {
            write!(f, "skill provider \"{}\" returned {subject}", self.provider)?;
        }
        if self.field.is_empty() {
            write!(f, ": {}", self.problem)
        } else {
            write!(f, ": \"{}\" {}", self.field, self.problem)
        }
    }
}

/// What the registry keeps of a runtime skill (`register()`): the fields the
/// merge and the shadowing warnings need. The host keeps the registration
/// object itself (and supplies the description when a catalog is rendered).
#[derive(Clone, Debug, PartialEq)]
pub struct RuntimeSkill {
    /// Kebab-case identifier.
    pub name: String,
    /// Invocation controls (both surfaces unless given).
    pub invocation: InvocationPolicy,
    /// Source label (`runtime` unless given).
    pub source: String,
    /// Provider label (`runtime` unless given).
    pub provider: String,
}

impl From<&SkillSummary> for RuntimeSkill {
    fn from(summary: &SkillSummary) -> Self {
        Self {
            name: summary.name.clone(),
            invocation: summary.invocation,
            source: summary.source.clone(),
            provider: summary.provider.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skill_names() {
        for ok in ["a", "abc", "a-b", "a1-2b", "0"] {
            assert!(is_skill_name(ok), "{ok}");
        }
        for bad in ["", "-a", "a-", "a--b", "A", "a_b", "a b", "\u{e9}", "a.b"] {
            assert!(!is_skill_name(bad), "{bad}");
        }
    }

    #[test]
    fn skill_names_are_at_most_64_characters() {
        let longest = "a".repeat(MAX_SKILL_NAME_LEN);
        assert!(is_skill_name(&longest));
        assert!(is_skill_name(&format!("{}-b", "a".repeat(62))));
        assert!(!is_skill_name(&format!("{longest}a")));
        assert!(!is_skill_name(&"a".repeat(1 << 20)));
        // The message names the limit and shows the start of the name only.
        let long = "ab-".repeat(1 << 18) + "c";
        let fault = too_long_name(&long).unwrap_or_default();
        assert!(
            fault.starts_with("must be at most 64 characters long (got \"ab-ab-"),
            "{fault}"
        );
        assert!(
            fault.ends_with(&format!("…, {} characters)", long.len())),
            "{fault}"
        );
        assert!(fault.len() < 200, "{fault}");
        assert_eq!(too_long_name("Bad"), None);
        assert_eq!(too_long_name(&"a-".repeat(40)), None);
        assert_eq!(quoted_name(&"é".repeat(70)).chars().count(), 64 + 3);
    }
}
