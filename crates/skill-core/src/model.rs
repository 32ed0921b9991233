//! Skill vocabulary shared by every module: names, invocation policy, summaries,
//! candidates and definitions, plus validation of values supplied by providers.

use serde::Serialize;
use std::fmt;

/// Name of the registry-owned provider that holds runtime skills.
pub const RUNTIME_PROVIDER: &str = "runtime";
/// Source label of runtime skills.
pub const RUNTIME_SOURCE: &str = "runtime";
/// Rank of runtime skills: project roots (100, 200) outrank them, custom, user and
/// bundled roots (300+) lose to them.
pub const RUNTIME_RANK: f64 = 250.0;

/// Whether `name` is a kebab-case skill name (`^[a-z0-9]+(?:-[a-z0-9]+)*$`).
pub fn is_skill_name(name: &str) -> bool {
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
    /// Candidates in the provider's own order.
    pub candidates: Vec<Candidate>,
    /// Whether discovery was authoritative (cacheable).
    pub complete: bool,
}

/// A loosely typed value read from a host object (a JS value) for validation.
///
/// The binding reads only the fields the registry needs; everything else
/// (locators, metadata contents) stays on the host side.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum Raw {
    /// Absent or `undefined`.
    #[default]
    Undefined,
    /// `null`.
    Null,
    /// A boolean.
    Bool(bool),
    /// A number (any f64, including non-finite values).
    Number(f64),
    /// A string.
    String(String),
    /// An object; holds the fields that were read from it.
    Object(Vec<(String, Raw)>),
    /// An array and its items.
    Array(Vec<Raw>),
    /// Anything else (function, symbol, bigint, ...), named by its type.
    Other(&'static str),
}

impl Raw {
    fn type_name(&self) -> String {
        match self {
            Raw::Undefined => "undefined".into(),
            Raw::Null => "null".into(),
            Raw::Bool(b) => format!("boolean {b}"),
            Raw::Number(n) => format!("number {}", js_number(*n)),
            Raw::String(s) if s.is_empty() => "an empty string".into(),
            Raw::String(_) => "string".into(),
            Raw::Object(_) => "object".into(),
            Raw::Array(_) => "array".into(),
            Raw::Other(t) => (*t).into(),
        }
    }

    /// The named field of an object value (`Undefined` when absent).
    pub fn field(&self, key: &str) -> &Raw {
        static UNDEFINED: Raw = Raw::Undefined;
        match self {
            Raw::Object(fields) => fields
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v)
                .unwrap_or(&UNDEFINED),
            _ => &UNDEFINED,
        }
    }
}

impl<'de> serde::Deserialize<'de> for Raw {
    /// Build a [`Raw`] straight from JSON (or any self-describing format)
    /// without an intermediate value tree.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Raw;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_unit<E>(self) -> Result<Raw, E> {
                Ok(Raw::Null)
            }
            fn visit_none<E>(self) -> Result<Raw, E> {
                Ok(Raw::Null)
            }
            fn visit_bool<E>(self, v: bool) -> Result<Raw, E> {
                Ok(Raw::Bool(v))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Raw, E> {
                Ok(Raw::Number(v as f64))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Raw, E> {
                Ok(Raw::Number(v as f64))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Raw, E> {
                Ok(Raw::Number(v))
            }
            fn visit_str<E>(self, v: &str) -> Result<Raw, E> {
                Ok(Raw::String(v.to_string()))
            }
            fn visit_string<E>(self, v: String) -> Result<Raw, E> {
                Ok(Raw::String(v))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Raw, A::Error> {
                let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(Raw::Array(items))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Raw, A::Error> {
                let mut fields = Vec::with_capacity(map.size_hint().unwrap_or(8));
                while let Some((key, value)) = map.next_entry::<String, Raw>()? {
                    fields.push((key, value));
                }
                Ok(Raw::Object(fields))
            }
        }
        deserializer.deserialize_any(Visitor)
    }
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

struct Checker<'a> {
    provider: &'a str,
    subject: Subject,
}

impl Checker<'_> {
    fn err(&self, field: &str, problem: String) -> ValidationError {
        ValidationError {
            provider: self.provider.to_string(),
            subject: self.subject.clone(),
            field: field.to_string(),
            problem,
        }
    }

    fn non_empty_string(&self, raw: &Raw, field: &str) -> Result<String, ValidationError> {
        match raw {
            Raw::String(s) if !s.trim().is_empty() => Ok(s.clone()),
            other => Err(self.err(
                field,
                format!("must be a non-empty string (got {})", other.type_name()),
            )),
        }
    }

    fn optional_string(&self, raw: &Raw, field: &str) -> Result<Option<String>, ValidationError> {
        match raw {
            Raw::Undefined => Ok(None),
            Raw::String(s) => Ok(Some(s.clone())),
            other => Err(self.err(
                field,
                format!("must be a string when present (got {})", other.type_name()),
            )),
        }
    }

    fn name(&self, raw: &Raw) -> Result<String, ValidationError> {
        match raw {
            Raw::String(s) if is_skill_name(s) => Ok(s.clone()),
            Raw::String(s) => Err(self.err(
                "name",
                format!("must be a kebab-case skill name (got {s:?})"),
            )),
            other => Err(self.err(
                "name",
                format!("must be a kebab-case string (got {})", other.type_name()),
            )),
        }
    }

    fn invocation(&self, raw: &Raw) -> Result<InvocationPolicy, ValidationError> {
        let Raw::Object(_) = raw else {
            return Err(self.err(
                "invocation",
                format!(
                    "must be an object {{ modelInvocable, userInvocable }} (got {})",
                    raw.type_name()
                ),
            ));
        };
        let flag = |key: &str| match raw.field(key) {
            Raw::Bool(b) => Ok(*b),
            other => Err(self.err(
                &format!("invocation.{key}"),
                format!("must be a boolean (got {})", other.type_name()),
            )),
        };
        Ok(InvocationPolicy {
            model_invocable: flag("modelInvocable")?,
            user_invocable: flag("userInvocable")?,
        })
    }

    fn resource_base(&self, raw: &Raw) -> Result<Option<ResourceBase>, ValidationError> {
        if let Raw::Undefined = raw {
            return Ok(None);
        }
        let Raw::Object(_) = raw else {
            return Err(self.err(
                "resourceBase",
                format!("must be an object when present (got {})", raw.type_name()),
            ));
        };
        let text = |key: &str| match raw.field(key) {
            Raw::String(s) => Ok(s.clone()),
            other => Err(self.err(
                &format!("resourceBase.{key}"),
                format!("must be a string (got {})", other.type_name()),
            )),
        };
        match raw.field("kind") {
            Raw::String(k) if k == "directory" => Ok(Some(ResourceBase::Directory {
                path: text("path")?,
            })),
            Raw::String(k) if k == "url" => Ok(Some(ResourceBase::Url { url: text("url")? })),
            Raw::String(k) if k == "opaque" => Ok(Some(ResourceBase::Opaque {
                description: text("description")?,
            })),
            other => Err(self.err(
                "resourceBase.kind",
                format!(
                    "must be 'directory', 'url' or 'opaque' (got {})",
                    match other {
                        Raw::String(s) => format!("{s:?}"),
                        o => o.type_name(),
                    }
                ),
            )),
        }
    }

    fn metadata_shape(&self, raw: &Raw) -> Result<(), ValidationError> {
        match raw {
            Raw::Undefined | Raw::Object(_) => Ok(()),
            other => Err(self.err(
                "metadata",
                format!("must be an object when present (got {})", other.type_name()),
            )),
        }
    }

    fn summary(
        &self,
        raw: &Raw,
        expected_provider: Option<&str>,
    ) -> Result<SkillSummary, ValidationError> {
        let name = self.name(raw.field("name"))?;
        let description = self.non_empty_string(raw.field("description"), "description")?;
        let when_to_use = self.optional_string(raw.field("whenToUse"), "whenToUse")?;
        let invocation = self.invocation(raw.field("invocation"))?;
        let source = self.non_empty_string(raw.field("source"), "source")?;
        let provider = match expected_provider {
            Some(expected) => match raw.field("provider") {
                Raw::String(p) if p == expected => p.clone(),
                other => {
                    return Err(self.err(
                        "provider",
                        format!(
                            "must be {expected:?} (got {})",
                            match other {
                                Raw::String(s) => format!("{s:?}"),
                                o => o.type_name(),
                            }
                        ),
                    ))
                }
            },
            None => self.non_empty_string(raw.field("provider"), "provider")?,
        };
        let resource_base = self.resource_base(raw.field("resourceBase"))?;
        self.metadata_shape(raw.field("metadata"))?;
        Ok(SkillSummary {
            name,
            description,
            when_to_use,
            invocation,
            source,
            provider,
            resource_base,
        })
    }
}

/// Validate one candidate returned by provider `provider` at `index`.
///
/// The locator becomes [`Locator::Index`]`(index)`: the host keeps the object.
pub fn validate_candidate(
    provider: &str,
    index: usize,
    raw: &Raw,
) -> Result<Candidate, ValidationError> {
    let checker = Checker {
        provider,
        subject: Subject::Candidate(index),
    };
    if !matches!(raw, Raw::Object(_)) {
        return Err(checker.err("", format!("must be an object (got {})", raw.type_name())));
    }
    let summary = checker.summary(raw, Some(provider))?;
    let rank = match raw.field("rank") {
        Raw::Number(n) if n.is_finite() => *n,
        Raw::Null => {
            return Err(checker.err(
                "rank",
                "must be a finite number (got null or a non-finite number)".into(),
            ))
        }
        other => {
            return Err(checker.err(
                "rank",
                format!("must be a finite number (got {})", other.type_name()),
            ))
        }
    };
    let path = checker.optional_string(raw.field("path"), "path")?;
    Ok(Candidate {
        summary,
        rank,
        path,
        metadata: None,
        locator: Locator::Index(u32::try_from(index).unwrap_or(u32::MAX)),
    })
}

/// Validate what a provider's `list()` returned: an array of candidates
/// (complete) or `{ candidates, complete }`.
pub fn validate_list_result(provider: &str, raw: &Raw) -> Result<Observation, ValidationError> {
    let checker = Checker {
        provider,
        subject: Subject::ListResult,
    };
    let (items, complete) = match raw {
        Raw::Array(items) => (items, true),
        Raw::Object(_) => {
            let Raw::Array(items) = raw.field("candidates") else {
                return Err(checker.err(
                    "candidates",
                    format!(
                        "must be an array (got {})",
                        raw.field("candidates").type_name()
                    ),
                ));
            };
            let Raw::Bool(complete) = raw.field("complete") else {
                return Err(checker.err(
                    "complete",
                    format!(
                        "must be a boolean (got {})",
                        raw.field("complete").type_name()
                    ),
                ));
            };
            (items, *complete)
        }
        other => {
            return Err(checker.err(
                "",
                format!(
                    "expected an array of candidates or {{ candidates, complete }} (got {})",
                    other.type_name()
                ),
            ))
        }
    };
    let candidates = items
        .iter()
        .enumerate()
        .map(|(i, item)| validate_candidate(provider, i, item))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Observation {
        candidates,
        complete,
    })
}

/// Validate a definition returned by provider `provider`'s `get()`.
///
/// Returns the summary part; the host keeps the object itself.
pub fn validate_definition(provider: &str, raw: &Raw) -> Result<SkillSummary, ValidationError> {
    let checker = Checker {
        provider,
        subject: Subject::Definition,
    };
    if !matches!(raw, Raw::Object(_)) {
        return Err(checker.err(
            "",
            format!("must be an object or undefined (got {})", raw.type_name()),
        ));
    }
    let summary = checker.summary(raw, Some(provider))?;
    match raw.field("content") {
        Raw::String(_) => {}
        other => {
            return Err(checker.err(
                "content",
                format!("must be a string (got {})", other.type_name()),
            ))
        }
    }
    checker.optional_string(raw.field("path"), "path")?;
    Ok(summary)
}

/// Validate a runtime skill registration and apply its defaults (both
/// invocation surfaces allowed, provider `runtime`).
pub fn validate_registration(raw: &Raw) -> Result<SkillSummary, ValidationError> {
    let checker = Checker {
        provider: RUNTIME_PROVIDER,
        subject: Subject::Registration,
    };
    if !matches!(raw, Raw::Object(_)) {
        return Err(checker.err("", format!("must be an object (got {})", raw.type_name())));
    }
    let name = checker.name(raw.field("name"))?;
    let description = checker.non_empty_string(raw.field("description"), "description")?;
    let when_to_use = checker.optional_string(raw.field("whenToUse"), "whenToUse")?;
    let invocation = match raw.field("invocation") {
        Raw::Undefined => InvocationPolicy::default(),
        other => checker.invocation(other)?,
    };
    let source = match raw.field("source") {
        Raw::Undefined => RUNTIME_SOURCE.to_string(),
        other => checker.non_empty_string(other, "source")?,
    };
    let provider = match raw.field("provider") {
        Raw::Undefined => RUNTIME_PROVIDER.to_string(),
        other => checker.non_empty_string(other, "provider")?,
    };
    let resource_base = checker.resource_base(raw.field("resourceBase"))?;
    checker.metadata_shape(raw.field("metadata"))?;
    match raw.field("content") {
        Raw::String(_) => {}
        other => {
            return Err(checker.err(
                "content",
                format!("must be a string (got {})", other.type_name()),
            ))
        }
    }
    checker.optional_string(raw.field("path"), "path")?;
    Ok(SkillSummary {
        name,
        description,
        when_to_use,
        invocation,
        source,
        provider,
        resource_base,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(fields: &[(&str, Raw)]) -> Raw {
        Raw::Object(
            fields
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        )
    }

    fn s(v: &str) -> Raw {
        Raw::String(v.into())
    }

    fn candidate(extra: &[(&str, Raw)]) -> Raw {
        let mut fields = vec![
            ("name", s("alpha")),
            ("description", s("Does alpha")),
            (
                "invocation",
                obj(&[
                    ("modelInvocable", Raw::Bool(true)),
                    ("userInvocable", Raw::Bool(false)),
                ]),
            ),
            ("source", s("remote")),
            ("provider", s("p")),
            ("rank", Raw::Number(10.0)),
        ];
        for (k, v) in extra {
            fields.retain(|(key, _)| key != k);
            fields.push((k, v.clone()));
        }
        obj(&fields)
    }

    #[test]
    fn skill_names() {
        for ok in ["a", "abc", "a-b", "a1-2b", "0"] {
            assert!(is_skill_name(ok), "{ok}");
        }
        for bad in ["", "-a", "a-", "a--b", "A", "a_b", "a b", "é", "a.b"] {
            assert!(!is_skill_name(bad), "{bad}");
        }
    }

    #[test]
    fn valid_candidate() {
        let c = validate_candidate("p", 2, &candidate(&[])).expect("valid");
        assert_eq!(c.summary.name, "alpha");
        assert!(!c.summary.invocation.user_invocable);
        assert_eq!(c.locator, Locator::Index(2));
        assert_eq!(c.rank, 10.0);
    }

    #[test]
    fn every_bad_field_is_named() {
        let cases: Vec<(&str, Raw, &str)> = vec![
            ("name", s("Bad Name"), "\"name\""),
            ("name", Raw::Number(1.0), "\"name\""),
            ("description", s(""), "\"description\""),
            ("description", Raw::Null, "\"description\""),
            ("whenToUse", Raw::Bool(true), "\"whenToUse\""),
            ("invocation", Raw::Undefined, "\"invocation\""),
            (
                "invocation",
                obj(&[
                    ("modelInvocable", s("yes")),
                    ("userInvocable", Raw::Bool(true)),
                ]),
                "\"invocation.modelInvocable\"",
            ),
            ("source", Raw::Number(3.0), "\"source\""),
            ("provider", s("other"), "\"provider\""),
            ("rank", Raw::Number(f64::INFINITY), "\"rank\""),
            ("rank", Raw::Number(f64::NAN), "NaN"),
            ("rank", s("1"), "\"rank\""),
            ("path", Raw::Number(1.0), "\"path\""),
            ("metadata", s("x"), "\"metadata\""),
            (
                "resourceBase",
                obj(&[("kind", s("ftp"))]),
                "\"resourceBase.kind\"",
            ),
            (
                "resourceBase",
                obj(&[("kind", s("url"))]),
                "\"resourceBase.url\"",
            ),
        ];
        for (field, value, needle) in cases {
            let err = validate_candidate("p", 0, &candidate(&[(field, value.clone())]))
                .expect_err(&format!("{field} = {value:?} must fail"));
            let text = err.to_string();
            assert!(text.contains("\"p\""), "{text}");
            assert!(text.contains(needle), "{text} should contain {needle}");
        }
        let err = validate_candidate("p", 4, &Raw::Null).expect_err("null");
        assert!(err.to_string().contains("index 4"));
        let err =
            validate_candidate("p", 0, &candidate(&[("rank", Raw::Null)])).expect_err("null rank");
        assert!(err.to_string().contains("non-finite"), "{err}");
    }

    #[test]
    fn list_results() {
        let ok = validate_list_result("p", &Raw::Array(vec![candidate(&[])])).expect("array");
        assert!(ok.complete);
        assert_eq!(ok.candidates.len(), 1);
        let obs = obj(&[
            ("candidates", Raw::Array(vec![])),
            ("complete", Raw::Bool(false)),
        ]);
        assert!(
            !validate_list_result("p", &obs)
                .expect("observation")
                .complete
        );
        for (bad, needle) in [
            (Raw::Number(42.0), "list() result"),
            (Raw::Null, "got null"),
            (
                obj(&[("candidates", s("x")), ("complete", Raw::Bool(true))]),
                "\"candidates\"",
            ),
            (
                obj(&[("candidates", Raw::Array(vec![])), ("complete", s("yes"))]),
                "\"complete\"",
            ),
            (Raw::Array(vec![candidate(&[]), Raw::Null]), "index 1"),
        ] {
            let err = validate_list_result("p", &bad)
                .expect_err("must fail")
                .to_string();
            assert!(err.contains(needle) && err.contains("\"p\""), "{err}");
        }
    }

    #[test]
    fn resource_base_kinds() {
        let c = validate_candidate(
            "p",
            0,
            &candidate(&[(
                "resourceBase",
                obj(&[("kind", s("opaque")), ("description", s("d"))]),
            )]),
        )
        .expect("valid");
        assert_eq!(
            c.summary.resource_base,
            Some(ResourceBase::Opaque {
                description: "d".into()
            })
        );
    }

    #[test]
    fn registration_defaults() {
        let raw = obj(&[
            ("name", s("rt")),
            ("description", s("d")),
            ("content", s("body")),
        ]);
        let summary = validate_registration(&raw).expect("valid");
        assert_eq!(summary.provider, RUNTIME_PROVIDER);
        assert_eq!(summary.source, RUNTIME_SOURCE);
        assert_eq!(summary.invocation, InvocationPolicy::default());
        let missing_content = obj(&[("name", s("rt")), ("description", s("d"))]);
        assert!(validate_registration(&missing_content).is_err());
    }

    #[test]
    fn definition_needs_content() {
        let mut raw = candidate(&[]);
        assert!(validate_definition("p", &raw).is_err());
        if let Raw::Object(fields) = &mut raw {
            fields.push(("content".into(), s("")));
        }
        assert_eq!(validate_definition("p", &raw).expect("valid").name, "alpha");
    }
}
