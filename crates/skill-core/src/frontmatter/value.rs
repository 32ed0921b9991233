//! The parsed frontmatter as a tree of values, and its conversion to what JS
//! code would see after `yaml.parse` (object keys as strings, numbers as
//! doubles).

use super::scalar::{js_number_text, Scalar};
use serde_json::{Map, Value as Json};
use std::borrow::Cow;

/// A composed YAML node with every alias expanded.
#[derive(Clone, Debug, PartialEq)]
pub enum Value<'a> {
    /// A scalar.
    Scalar(Scalar<'a>),
    /// A sequence.
    Seq(Vec<Value<'a>>),
    /// A mapping, in document order (keys are unique by the JS package's rule).
    Map(Vec<(Value<'a>, Value<'a>)>),
}

impl Value<'_> {
    /// The same value owning its strings, each passed through `map`.
    pub fn into_owned_with(self, map: &dyn Fn(&str) -> String) -> Value<'static> {
        let text = |s: Cow<'_, str>| Cow::Owned(map(&s));
        match self {
            Value::Scalar(Scalar::Str(s)) => Value::Scalar(Scalar::Str(text(s))),
            Value::Scalar(Scalar::Other(s)) => Value::Scalar(Scalar::Other(text(s))),
            Value::Scalar(Scalar::Null) => Value::Scalar(Scalar::Null),
            Value::Scalar(Scalar::Bool(b)) => Value::Scalar(Scalar::Bool(b)),
            Value::Scalar(Scalar::Number(n)) => Value::Scalar(Scalar::Number(n)),
            Value::Seq(items) => {
                Value::Seq(items.into_iter().map(|v| v.into_owned_with(map)).collect())
            }
            Value::Map(pairs) => Value::Map(
                pairs
                    .into_iter()
                    .map(|(k, v)| (k.into_owned_with(map), v.into_owned_with(map)))
                    .collect(),
            ),
        }
    }

    /// What kind of value this is, for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Scalar(Scalar::Null) => "null",
            Value::Scalar(Scalar::Bool(_)) => "a boolean",
            Value::Scalar(Scalar::Number(_)) => "a number",
            Value::Scalar(Scalar::Str(_)) => "a string",
            Value::Scalar(Scalar::Other(_)) => "a tagged value",
            Value::Seq(_) => "a sequence",
            Value::Map(_) => "a mapping",
        }
    }
}

/// The property name a JS object gets for this key: `String(value)` for
/// scalars (`null` → `""`), YAML flow text for collections.
pub fn key_string(key: &Value<'_>) -> String {
    match key {
        Value::Scalar(Scalar::Null) => String::new(),
        Value::Scalar(Scalar::Bool(b)) => b.to_string(),
        Value::Scalar(Scalar::Number(n)) => js_number_text(*n),
        Value::Scalar(Scalar::Str(s) | Scalar::Other(s)) => s.to_string(),
        other => {
            let mut out = String::new();
            flow_text(other, &mut out);
            out
        }
    }
}

/// Flow text of a collection key, in the JS package's layout (`[ a, b ]`,
/// `{ k: v }`, `[]`, `{}`); strings are written as JSON strings unless they
/// are plain words.
fn flow_text(value: &Value<'_>, out: &mut String) {
    match value {
        Value::Scalar(Scalar::Null) => out.push_str("null"),
        Value::Scalar(Scalar::Str(s) | Scalar::Other(s)) => {
            if !s.is_empty()
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
                && matches!(
                    super::scalar::resolve_plain(std::borrow::Cow::Borrowed(s)),
                    Scalar::Str(_)
                )
            {
                out.push_str(s);
            } else {
                out.push_str(&Json::String(s.to_string()).to_string());
            }
        }
        Value::Scalar(_) => out.push_str(&key_string(value)),
        Value::Seq(items) if items.is_empty() => out.push_str("[]"),
        Value::Map(pairs) if pairs.is_empty() => out.push_str("{}"),
        Value::Seq(items) => {
            out.push_str("[ ");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                flow_text(item, out);
            }
            out.push_str(" ]");
        }
        Value::Map(pairs) => {
            out.push_str("{ ");
            for (i, (k, v)) in pairs.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                flow_text(k, out);
                out.push_str(": ");
                flow_text(v, out);
            }
            out.push_str(" }");
        }
    }
}

/// Largest integer a double holds exactly (`Number.MAX_SAFE_INTEGER`).
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// A number as JSON: integers in the safe range as integers, anything else as
/// a double. NaN and the infinities have no JSON form: `null`.
pub fn number_json(x: f64) -> Json {
    if x == x.trunc() && x.abs() <= MAX_SAFE_INTEGER && !(x == 0.0 && x.is_sign_negative()) {
        // Exact: |x| < 2^53.
        Json::from(x as i64)
    } else {
        serde_json::Number::from_f64(x).map_or(Json::Null, Json::Number)
    }
}

/// Convert a value to JSON the way `yaml.parse` hands it to JS.
pub fn to_json(value: &Value<'_>) -> Json {
    match value {
        Value::Scalar(Scalar::Null) => Json::Null,
        Value::Scalar(Scalar::Bool(b)) => Json::Bool(*b),
        Value::Scalar(Scalar::Number(n)) => number_json(*n),
        Value::Scalar(Scalar::Str(s) | Scalar::Other(s)) => Json::String(s.to_string()),
        Value::Seq(items) => Json::Array(items.iter().map(to_json).collect()),
        Value::Map(pairs) => Json::Object(map_to_json(pairs)),
    }
}

/// A mapping as a JS object: keys stringified, a later key with the same
/// property name replaces the value but keeps the first position.
pub fn map_to_json(pairs: &[(Value<'_>, Value<'_>)]) -> Map<String, Json> {
    let mut out = Map::with_capacity(pairs.len());
    for (k, v) in pairs {
        out.insert(key_string(k), to_json(v));
    }
    out
}
