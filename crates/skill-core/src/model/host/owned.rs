//! [`OwnedRecords`]: packed records built from JSON, for Rust hosts, tests and
//! benches.

use super::{Field, ListHead, Records, Tag, NO_REF};

/// Owned [`Records`] built from JSON values the way the JS layer packs JS
/// objects (for Rust hosts, tests and benches). JSON has no `undefined`,
/// functions or non-finite numbers: absent keys are `undefined`, and
/// [`OwnedRecords::set`] adjusts a tag or a rank afterwards.
#[derive(Clone, Debug, Default)]
pub struct OwnedRecords {
    tags: Vec<u8>,
    ranks: Vec<f64>,
    text: String,
    spans: Vec<u32>,
    refs: Vec<u32>,
    strings: Vec<String>,
    numbers: Vec<f64>,
}

fn json_tag(value: Option<&serde_json::Value>) -> Tag {
    use serde_json::Value;
    match value {
        None => Tag::Undefined,
        Some(Value::Null) => Tag::Null,
        Some(Value::Bool(false)) => Tag::False,
        Some(Value::Bool(true)) => Tag::True,
        Some(Value::Number(_)) => Tag::Number,
        Some(Value::String(s)) if s.is_empty() => Tag::EmptyString,
        Some(Value::String(_)) => Tag::String,
        Some(Value::Object(_)) => Tag::Object,
        Some(Value::Array(_)) => Tag::Array,
    }
}

impl OwnedRecords {
    /// Pack `values` (one record each).
    pub fn from_json(values: &[serde_json::Value]) -> Self {
        let mut out = Self::default();
        for value in values {
            out.push(value);
        }
        out
    }

    /// The packed view.
    pub fn records(&self) -> Records<'_> {
        Records {
            tags: &self.tags,
            ranks: &self.ranks,
            text: &self.text,
            spans: &self.spans,
            refs: &self.refs,
            strings: &self.strings,
            numbers: &self.numbers,
        }
    }

    /// Replace the tag of `field` in record `index` (and its number, when
    /// given: the rank for [`Field::Rank`]).
    pub fn set(&mut self, index: usize, field: Field, tag: Tag, number: Option<f64>) {
        let slot = index * Field::COUNT + field as usize;
        if let Some(t) = self.tags.get_mut(slot) {
            *t = tag as u8;
        }
        if let Some(n) = number {
            if field == Field::Rank {
                if let Some(r) = self.ranks.get_mut(index) {
                    *r = n;
                }
            } else {
                self.numbers.extend([slot as f64, n]);
            }
        }
    }

    fn intern(&mut self, value: Option<&serde_json::Value>) -> u32 {
        let Some(serde_json::Value::String(s)) = value else {
            return NO_REF;
        };
        let at = match self.strings.iter().position(|x| x == s) {
            Some(at) => at,
            None => {
                self.strings.push(s.clone());
                self.strings.len() - 1
            }
        };
        u32::try_from(at).unwrap_or(NO_REF)
    }

    fn push_text(&mut self, value: Option<&serde_json::Value>) {
        let start = u32::try_from(self.text.len()).unwrap_or(u32::MAX);
        if let Some(serde_json::Value::String(s)) = value {
            self.text.push_str(s);
        }
        let end = u32::try_from(self.text.len()).unwrap_or(u32::MAX);
        self.spans.extend([start, end]);
    }

    fn push(&mut self, value: &serde_json::Value) {
        let index = self.ranks.len();
        let object = value.as_object().filter(|_| value.is_object());
        let get = |key: &str| object.and_then(|o| o.get(key));
        let nested = |parent: &str, key: &str| {
            get(parent)
                .and_then(|p| p.as_object())
                .and_then(|o| o.get(key))
        };
        let fields: [Option<&serde_json::Value>; Field::COUNT] = [
            Some(value),
            get("name"),
            get("description"),
            get("whenToUse"),
            get("invocation"),
            nested("invocation", "modelInvocable"),
            nested("invocation", "userInvocable"),
            get("source"),
            get("provider"),
            get("rank"),
            get("resourceBase"),
            nested("resourceBase", "kind"),
            nested("resourceBase", "path"),
            nested("resourceBase", "url"),
            nested("resourceBase", "description"),
            get("path"),
            get("metadata"),
            get("content"),
        ];
        for (field, v) in Field::ALL.iter().zip(fields) {
            self.tags.push(json_tag(v) as u8);
            if let (Some(n), true) = (v.and_then(|v| v.as_f64()), *field != Field::Rank) {
                self.numbers
                    .extend([(index * Field::COUNT + *field as usize) as f64, n]);
            }
        }
        self.ranks
            .push(get("rank").and_then(|r| r.as_f64()).unwrap_or(f64::NAN));
        self.push_text(get("name"));
        let refs = [
            self.intern(get("source")),
            self.intern(get("provider")),
            self.intern(nested("resourceBase", "kind")),
        ];
        self.refs.extend(refs);
    }

    /// Pack a whole `list()` result: its head and its candidates.
    pub fn from_list_json(value: &serde_json::Value) -> (ListHead, Self) {
        let number = |v: Option<&serde_json::Value>| v.and_then(|v| v.as_f64()).unwrap_or(0.0);
        let candidates = value.get("candidates").filter(|_| value.is_object());
        let complete = value.get("complete").filter(|_| value.is_object());
        let head = ListHead {
            value: json_tag(Some(value)),
            candidates: json_tag(candidates),
            complete: json_tag(complete),
            numbers: [number(Some(value)), number(candidates), number(complete)],
        };
        let items = match (value, candidates) {
            (serde_json::Value::Array(items), _) => items.as_slice(),
            (_, Some(serde_json::Value::Array(items))) => items.as_slice(),
            _ => &[],
        };
        (head, Self::from_json(items))
    }
}
