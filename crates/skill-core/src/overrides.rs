//! Overrides: rules that switch a skill candidate off, or change who may
//! invoke it, without editing the skill. The registry applies them to every
//! candidate before it merges (see [`crate::registry`]): a candidate switched
//! off takes no part in the merge, so a lower-ranked copy of the same name may
//! win instead.
//!
//! A rule matches a candidate by `name` (exact, or a glob where `*` stands for
//! any run of characters), `source` and `provider` (exact); a field left out
//! matches everything. Of the rules that match a candidate, the last one
//! decides ([`Overrides::decide`]): `off` removes it, `user-only` and
//! `model-only` rewrite its invocation policy, and `on` leaves it as declared
//! (so it restores a candidate an earlier rule switched off or rewrote).
//!
//! The host hands rules over as [`RawRule`]s (each field's JS type and text);
//! [`Overrides::from_raw`] is the one copy of the rules that validate them.

use crate::model::host::{describe, Tag};
use crate::model::{is_skill_name, InvocationPolicy};
use std::fmt;

/// What a matching rule does to a candidate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// The candidate takes no part in the merge.
    Off,
    /// Only users may invoke it: `{ modelInvocable: false, userInvocable: true }`.
    UserOnly,
    /// Only the model may invoke it: `{ modelInvocable: true, userInvocable: false }`.
    ModelOnly,
    /// The candidate stays as declared (undoes an earlier matching rule).
    On,
}

impl Effect {
    /// Every effect, as the rules spell them.
    pub const ALL: [Effect; 4] = [Effect::Off, Effect::UserOnly, Effect::ModelOnly, Effect::On];

    /// The effect's name in a rule (`'off'`, `'user-only'`, `'model-only'`, `'on'`).
    pub fn as_str(self) -> &'static str {
        match self {
            Effect::Off => "off",
            Effect::UserOnly => "user-only",
            Effect::ModelOnly => "model-only",
            Effect::On => "on",
        }
    }

    /// The effect named `text`, if any.
    pub fn parse(text: &str) -> Option<Effect> {
        Effect::ALL.into_iter().find(|e| e.as_str() == text)
    }

    /// The invocation policy of a kept candidate that declared `declared`.
    pub fn apply(self, declared: InvocationPolicy) -> InvocationPolicy {
        match self {
            Effect::UserOnly => InvocationPolicy {
                model_invocable: false,
                user_invocable: true,
            },
            Effect::ModelOnly => InvocationPolicy {
                model_invocable: true,
                user_invocable: false,
            },
            Effect::Off | Effect::On => declared,
        }
    }

    /// Whether the effect rewrites the invocation policy.
    pub fn rewrites(self) -> bool {
        matches!(self, Effect::UserOnly | Effect::ModelOnly)
    }
}

impl fmt::Display for Effect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A rule's `name`: an exact skill name, or a glob.
#[derive(Clone, Debug, PartialEq, Eq)]
enum NamePattern {
    Exact(String),
    Glob(Glob),
}

impl NamePattern {
    fn matches(&self, name: &str) -> bool {
        match self {
            NamePattern::Exact(exact) => exact == name,
            NamePattern::Glob(glob) => glob.matches(name),
        }
    }
}

/// A glob whose only wildcard is `*` (any run of characters, empty
/// included), kept as the literal parts between the stars: the text must
/// start with the first part, end with the last, and hold the others in
/// order in between (the leftmost occurrence of each is as good as any).
///
/// Public so that other name patterns (the catalog's budget pins) follow the
/// same rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Glob {
    /// At least two parts (a glob has at least one `*`); any may be empty.
    parts: Vec<String>,
}

impl Glob {
    /// The glob of `pattern`, whose every `*` stands for any run of
    /// characters. Meant for patterns with at least one `*`: compare exact
    /// names as strings.
    pub fn new(pattern: &str) -> Self {
        Glob {
            parts: pattern.split('*').map(str::to_string).collect(),
        }
    }

    /// Whether `text` matches the pattern.
    pub fn matches(&self, text: &str) -> bool {
        let (Some((first, rest)), Some(last)) = (self.parts.split_first(), self.parts.last())
        else {
            return false;
        };
        if text.len() < first.len() + last.len() || !text.starts_with(first.as_str()) {
            return false;
        }
        if !text.ends_with(last.as_str()) {
            return false;
        }
        let mut middle = &text[first.len()..text.len() - last.len()];
        for part in &rest[..rest.len().saturating_sub(1)] {
            match middle.find(part.as_str()) {
                Some(at) => middle = &middle[at + part.len()..],
                None => return false,
            }
        }
        true
    }
}

/// One validated rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    name: Option<NamePattern>,
    source: Option<String>,
    provider: Option<String>,
    effect: Effect,
}

impl Rule {
    /// The rule's effect.
    pub fn effect(&self) -> Effect {
        self.effect
    }

    /// Whether the rule matches a candidate with these labels.
    pub fn matches(&self, name: &str, source: &str, provider: &str) -> bool {
        // The plain comparisons first: they rule out most candidates.
        self.provider.as_deref().is_none_or(|p| p == provider)
            && self.source.as_deref().is_none_or(|s| s == source)
            && self.name.as_ref().is_none_or(|p| p.matches(name))
    }
}

/// The rule that decided about a candidate: its position in the rules and
/// its effect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Applied {
    /// Index of the rule.
    pub rule: u32,
    /// Its effect.
    pub effect: Effect,
}

/// The registry's override rules, in order (empty by default: no candidate is
/// touched).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Overrides {
    rules: Vec<Rule>,
}

impl Overrides {
    /// Whether there is no rule.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// Number of rules.
    pub fn len(&self) -> usize {
        self.rules.len()
    }

    /// The last rule matching a candidate with these labels, if any.
    pub fn decide(&self, name: &str, source: &str, provider: &str) -> Option<Applied> {
        self.rules
            .iter()
            .enumerate()
            .rev()
            .find(|(_, rule)| rule.matches(name, source, provider))
            .map(|(i, rule)| Applied {
                rule: u32::try_from(i).unwrap_or(u32::MAX),
                effect: rule.effect,
            })
    }

    /// Whether a candidate with these labels takes part in the merge (no
    /// matching rule, or the last one is not `off`).
    pub fn keeps(&self, name: &str, source: &str, provider: &str) -> bool {
        self.decide(name, source, provider)
            .is_none_or(|applied| applied.effect != Effect::Off)
    }

    /// Validate rules read from a host value: `value` is the JS type of the
    /// `overrides` value itself, `rules` its items when it is an array.
    pub fn from_raw(value: Tag, rules: &[RawRule]) -> Result<Overrides, OverrideError> {
        if value != Tag::Array {
            return Err(OverrideError {
                path: "overrides".into(),
                problem: format!("must be an array of rules (got {})", describe(value, None)),
            });
        }
        let rules = rules
            .iter()
            .enumerate()
            .map(|(i, raw)| rule(i, raw))
            .collect::<Result<_, _>>()?;
        Ok(Overrides { rules })
    }

    /// Validate rules given as JSON (Rust hosts and tests): the same rules as
    /// [`Overrides::from_raw`]; JSON has no `undefined`, so every key present
    /// counts.
    pub fn from_json(value: &serde_json::Value) -> Result<Overrides, OverrideError> {
        let items = value.as_array().map(Vec::as_slice).unwrap_or_default();
        let rules: Vec<RawRule> = items
            .iter()
            .map(|item| RawRule {
                value: json_tag(item),
                fields: item
                    .as_object()
                    .map(|object| {
                        object
                            .iter()
                            .map(|(key, v)| RawField {
                                key: key.clone(),
                                tag: json_tag(v),
                                text: match v {
                                    serde_json::Value::String(s) => s.clone(),
                                    serde_json::Value::Number(n) => n.to_string(),
                                    _ => String::new(),
                                },
                            })
                            .collect()
                    })
                    .unwrap_or_default(),
            })
            .collect();
        Overrides::from_raw(json_tag(value), &rules)
    }
}

fn json_tag(value: &serde_json::Value) -> Tag {
    use serde_json::Value;
    match value {
        Value::Null => Tag::Null,
        Value::Bool(false) => Tag::False,
        Value::Bool(true) => Tag::True,
        Value::Number(_) => Tag::Number,
        Value::String(s) if s.is_empty() => Tag::EmptyString,
        Value::String(_) => Tag::String,
        Value::Object(_) => Tag::Object,
        Value::Array(_) => Tag::Array,
    }
}

/// One rule as the host read it: the JS type of the item, and each own
/// enumerable key with the JS type of its value and its text (the string
/// itself, or `String(value)` for a number; empty otherwise).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawRule {
    /// The item's type ([`Tag::Object`] for a rule object).
    pub value: Tag,
    /// Its keys, in enumeration order.
    pub fields: Vec<RawField>,
}

/// One key of a [`RawRule`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawField {
    /// The key.
    pub key: String,
    /// The value's type.
    pub tag: Tag,
    /// The string, or the number as JS prints it; empty otherwise.
    pub text: String,
}

impl RawField {
    fn found(&self) -> String {
        match self.tag {
            Tag::String => format!("{:?}", self.text),
            Tag::Number if !self.text.is_empty() => format!("number {}", self.text),
            tag => describe(tag, None),
        }
    }
}

/// An invalid rule; names the rule's index and key.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{path} {problem}")]
pub struct OverrideError {
    /// `overrides`, `overrides[1]` or `overrides[1].effect`.
    pub path: String,
    /// What was expected and what was found.
    pub problem: String,
}

const KEYS: &str = "name, source, provider, effect";

fn rule(index: usize, raw: &RawRule) -> Result<Rule, OverrideError> {
    let err = |key: Option<&str>, problem: String| OverrideError {
        path: match key {
            Some(key) => format!("overrides[{index}].{key}"),
            None => format!("overrides[{index}]"),
        },
        problem,
    };
    if raw.value != Tag::Object {
        return Err(err(
            None,
            format!(
                "must be an object {{ {KEYS} }} (got {})",
                describe(raw.value, None)
            ),
        ));
    }
    let mut name = None;
    let mut source = None;
    let mut provider = None;
    let mut effect = None;
    for field in &raw.fields {
        // An `undefined` value is a key left out.
        if field.tag == Tag::Undefined {
            continue;
        }
        let key = field.key.as_str();
        let label = |field: &RawField| match field.tag {
            Tag::String => Ok(field.text.clone()),
            _ => Err(err(
                Some(key),
                format!("must be a non-empty string (got {})", field.found()),
            )),
        };
        match key {
            "name" => {
                let text = label(field)?;
                name = Some(name_pattern(&text).ok_or_else(|| {
                    err(
                        Some(key),
                        format!(
                            "must be a kebab-case skill name, or a glob of one with * (got {:?})",
                            text
                        ),
                    )
                })?);
            }
            "source" => source = Some(label(field)?),
            "provider" => provider = Some(label(field)?),
            "effect" => {
                effect = Some(
                    (field.tag == Tag::String)
                        .then(|| Effect::parse(&field.text))
                        .flatten()
                        .ok_or_else(|| {
                            err(
                                Some(key),
                                format!(
                                    "must be 'off', 'user-only', 'model-only' or 'on' (got {})",
                                    field.found()
                                ),
                            )
                        })?,
                );
            }
            _ => {
                return Err(err(
                    Some(key),
                    format!("is not a rule key (a rule has {KEYS})"),
                ))
            }
        }
    }
    let effect = effect.ok_or_else(|| {
        err(
            Some("effect"),
            "must be 'off', 'user-only', 'model-only' or 'on' (got undefined)".into(),
        )
    })?;
    Ok(Rule {
        name,
        source,
        provider,
        effect,
    })
}

/// `text` as a name pattern: a skill name, or kebab-case characters with at
/// least one `*`.
fn name_pattern(text: &str) -> Option<NamePattern> {
    if !text.contains('*') {
        return is_skill_name(text).then(|| NamePattern::Exact(text.to_string()));
    }
    text.bytes()
        .all(|b| matches!(b, b'a'..=b'z' | b'0'..=b'9' | b'-' | b'*'))
        .then(|| NamePattern::Glob(Glob::new(text)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rules(value: serde_json::Value) -> Overrides {
        Overrides::from_json(&value).expect("valid rules")
    }

    fn error(value: serde_json::Value) -> String {
        Overrides::from_json(&value)
            .expect_err("invalid rules")
            .to_string()
    }

    #[test]
    fn globs() {
        for (pattern, text, expected) in [
            ("*", "", true),
            ("*", "anything", true),
            ("deploy-*", "deploy-prod", true),
            ("deploy-*", "deploy-", true),
            ("deploy-*", "deploy", false),
            ("*-review", "code-review", true),
            ("*-review", "code-reviews", false),
            ("a*b*c", "abc", true),
            ("a*b*c", "aXbYbZc", true),
            ("a*b*c", "aXbYbZ", false),
            ("a**c", "ac", true),
            ("*a*a*a*b", "aaaaaaaaaaaaaaaaaaaab", true),
            ("*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaa", false),
            ("exact", "exact", true),
            ("exact", "exactly", false),
            ("ab*ba", "aba", false),
            ("ab*ba", "abba", true),
            ("a*a", "a", false),
            ("*ab*ab*", "xabyab", true),
            ("*ab*ab*", "xaby", false),
        ] {
            let glob = match name_pattern(pattern) {
                Some(glob @ NamePattern::Glob(_)) => glob,
                Some(exact) => exact,
                None => panic!("{pattern} is a valid pattern"),
            };
            assert_eq!(glob.matches(text), expected, "{pattern} ~ {text}");
        }
    }

    #[test]
    fn the_last_matching_rule_decides() {
        let o = rules(json!([
            { "name": "deploy-*", "effect": "off" },
            { "name": "deploy-staging", "effect": "on" },
            { "name": "deploy-staging", "source": "user-dsh", "effect": "user-only" },
            { "provider": "remote", "effect": "model-only" },
        ]));
        let decide = |name, source, provider| o.decide(name, source, provider);
        assert_eq!(
            decide("deploy-prod", "project-dsh", "local"),
            Some(Applied {
                rule: 0,
                effect: Effect::Off
            })
        );
        assert!(!o.keeps("deploy-prod", "project-dsh", "local"));
        assert_eq!(
            decide("deploy-staging", "project-dsh", "local").map(|a| a.effect),
            Some(Effect::On)
        );
        assert!(o.keeps("deploy-staging", "project-dsh", "local"));
        assert_eq!(
            decide("deploy-staging", "user-dsh", "local").map(|a| (a.rule, a.effect)),
            Some((2, Effect::UserOnly))
        );
        assert_eq!(
            decide("deploy-prod", "remote", "remote").map(|a| (a.rule, a.effect)),
            Some((3, Effect::ModelOnly))
        );
        assert_eq!(decide("other", "project-dsh", "local"), None);
        assert!(o.keeps("other", "project-dsh", "local"));
        assert!(Overrides::default().keeps("x", "y", "z"));
        assert_eq!(o.len(), 4);
    }

    #[test]
    fn a_rule_without_filters_matches_everything() {
        let o = rules(json!([{ "effect": "off" }, { "name": "keep-me", "effect": "on" }]));
        assert!(!o.keeps("a", "b", "c"));
        assert!(o.keeps("keep-me", "b", "c"));
    }

    #[test]
    fn effects_rewrite_invocation() {
        let declared = InvocationPolicy {
            model_invocable: false,
            user_invocable: false,
        };
        assert_eq!(
            Effect::UserOnly.apply(declared),
            InvocationPolicy {
                model_invocable: false,
                user_invocable: true
            }
        );
        assert_eq!(
            Effect::ModelOnly.apply(declared),
            InvocationPolicy {
                model_invocable: true,
                user_invocable: false
            }
        );
        assert_eq!(Effect::On.apply(declared), declared);
        assert!(Effect::UserOnly.rewrites() && !Effect::On.rewrites());
        for e in Effect::ALL {
            assert_eq!(Effect::parse(e.as_str()), Some(e));
        }
    }

    #[test]
    fn invalid_rules_name_the_index_and_key() {
        assert_eq!(
            error(json!({ "name": "x" })),
            "overrides must be an array of rules (got object)"
        );
        assert_eq!(
            error(json!(["off"])),
            "overrides[0] must be an object { name, source, provider, effect } (got string)"
        );
        assert_eq!(
            error(json!([{ "name": "a", "effect": "off" }, { "name": "b" }])),
            "overrides[1].effect must be 'off', 'user-only', 'model-only' or 'on' (got undefined)"
        );
        assert_eq!(
            error(json!([{ "name": "b", "effect": "disable" }])),
            "overrides[0].effect must be 'off', 'user-only', 'model-only' or 'on' (got \"disable\")"
        );
        assert_eq!(
            error(json!([{ "name": "b", "effect": 1 }])),
            "overrides[0].effect must be 'off', 'user-only', 'model-only' or 'on' (got number 1)"
        );
        assert_eq!(
            error(json!([{ "name": "Code_Review", "effect": "off" }])),
            "overrides[0].name must be a kebab-case skill name, or a glob of one with * (got \"Code_Review\")"
        );
        assert_eq!(
            error(json!([{ "name": "deploy-?", "effect": "off" }])),
            "overrides[0].name must be a kebab-case skill name, or a glob of one with * (got \"deploy-?\")"
        );
        assert_eq!(
            error(json!([{ "source": "", "effect": "off" }])),
            "overrides[0].source must be a non-empty string (got an empty string)"
        );
        assert_eq!(
            error(json!([{ "provider": null, "effect": "off" }])),
            "overrides[0].provider must be a non-empty string (got null)"
        );
        assert_eq!(
            error(json!([{ "name": "a", "efect": "off" }])),
            "overrides[0].efect is not a rule key (a rule has name, source, provider, effect)"
        );
        assert!(rules(json!([])).is_empty());
    }

    #[test]
    fn undefined_fields_are_left_out() {
        let raw = RawRule {
            value: Tag::Object,
            fields: vec![
                RawField {
                    key: "name".into(),
                    tag: Tag::Undefined,
                    text: String::new(),
                },
                RawField {
                    key: "effect".into(),
                    tag: Tag::String,
                    text: "off".into(),
                },
            ],
        };
        let o = Overrides::from_raw(Tag::Array, &[raw]).expect("valid");
        assert!(!o.keeps("anything", "s", "p"));
    }
}
