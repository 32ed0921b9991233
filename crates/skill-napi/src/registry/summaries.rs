//! Native summaries as they cross to JS: packed, not as JSON.
//!
//! Each summary's texts (name, description, `whenToUse`, source, provider and
//! its resource base's path, URL or description) go back to back into a few
//! strings ("chunks"), with one `Uint32Array` of [`SLOTS`] numbers per summary:
//! a flags word, then the length of each text in UTF-16 code units (JS
//! `.length`; 0 for an absent one). JS takes each text with one `slice` of its
//! chunk (`lib/registry/summaries.js`, `unpackNatives`), so a catalog of
//! thousands of skills costs a handful of string conversions instead of
//! writing and then parsing a JSON document of every field name and quote.
//!
//! A summary never spans two chunks, and chunks close past [`CHUNK_UNITS`]
//! units, so V8 builds them in its regular heap and a text JS keeps holds at
//! most one small chunk alive.

use napi::bindgen_prelude::Uint32Array;
use napi_derive::napi;
use skill_core::model::{ResourceBase, SkillSummary};

/// Numbers per summary in [`PackedSummaries::lengths`].
pub const SLOTS: usize = 7;
/// Flag: the skill is model-invocable.
pub const MODEL: u32 = 1;
/// Flag: the skill is user-invocable.
pub const USER: u32 = 2;
/// Flag: the summary has a `whenToUse`.
pub const WHEN_TO_USE: u32 = 4;
/// Flag: the summary's texts start a new chunk.
pub const NEW_CHUNK: u32 = 8;
/// The resource base's kind, in the flags word: shifted by [`BASE_SHIFT`],
/// 0 none, 1 `directory` (its path), 2 `url` (its URL), 3 `opaque` (its
/// description).
pub const BASE_SHIFT: u32 = 4;
/// A chunk closes once it holds this many UTF-16 units.
pub const CHUNK_UNITS: usize = 16_384;

/// Summaries packed for JS (see the module docs).
#[napi(object, object_from_js = false)]
pub struct PackedSummaries {
    /// The texts, back to back.
    pub chunks: Vec<String>,
    /// [`SLOTS`] numbers per summary: flags, then the UTF-16 lengths of the
    /// name, description, `whenToUse`, source, provider and resource base text.
    pub lengths: Uint32Array,
}

/// The summaries' texts and numbers, before they become JS values.
#[derive(Debug, Default, PartialEq)]
pub struct Packed {
    pub chunks: Vec<String>,
    pub lengths: Vec<u32>,
}

impl From<Packed> for PackedSummaries {
    fn from(p: Packed) -> Self {
        PackedSummaries {
            chunks: p.chunks,
            lengths: Uint32Array::new(p.lengths),
        }
    }
}

/// UTF-16 code units of `s` (JS `.length`).
fn units(s: &str) -> usize {
    if s.is_ascii() {
        s.len()
    } else {
        s.encode_utf16().count()
    }
}

/// Lengths above `u32::MAX` units cannot occur (texts are capped far below);
/// saturating keeps the arithmetic total anyway.
fn word(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Pack `summaries` (see the module docs).
pub fn pack<'a>(summaries: impl IntoIterator<Item = &'a SkillSummary>) -> Packed {
    let summaries = summaries.into_iter();
    let mut packed = Packed {
        chunks: Vec::new(),
        lengths: Vec::with_capacity(summaries.size_hint().0 * SLOTS),
    };
    let mut chunk = String::new();
    let mut chunk_units = 0usize;
    let mut open = false;
    for s in summaries {
        let (kind, base) = match &s.resource_base {
            None => (0, ""),
            Some(ResourceBase::Directory { path }) => (1, path.as_str()),
            Some(ResourceBase::Url { url }) => (2, url.as_str()),
            Some(ResourceBase::Opaque { description }) => (3, description.as_str()),
        };
        let when = s.when_to_use.as_deref();
        let texts = [
            s.name.as_str(),
            s.description.as_str(),
            when.unwrap_or(""),
            s.source.as_str(),
            s.provider.as_str(),
            base,
        ];
        let bit = |on: bool, flag: u32| if on { flag } else { 0 };
        let mut flags = bit(s.invocation.model_invocable, MODEL)
            | bit(s.invocation.user_invocable, USER)
            | bit(when.is_some(), WHEN_TO_USE)
            | kind << BASE_SHIFT;
        if !open || chunk_units >= CHUNK_UNITS {
            if open {
                packed.chunks.push(std::mem::take(&mut chunk));
            }
            open = true;
            chunk_units = 0;
            flags |= NEW_CHUNK;
        }
        packed.lengths.push(flags);
        for text in texts {
            let n = units(text);
            chunk.push_str(text);
            chunk_units += n;
            packed.lengths.push(word(n));
        }
    }
    if open {
        packed.chunks.push(chunk);
    }
    packed
}

#[cfg(test)]
mod tests {
    use super::*;
    use skill_core::model::InvocationPolicy;

    fn summary(name: &str, description: &str) -> SkillSummary {
        SkillSummary {
            name: name.into(),
            description: description.into(),
            when_to_use: None,
            invocation: InvocationPolicy::default(),
            source: "user-dsh".into(),
            provider: "local".into(),
            resource_base: None,
        }
    }

    /// What JS does with a packed result: slice each text out of its chunk.
    fn unpack(p: &Packed) -> Vec<(u32, [String; 6])> {
        let mut out = Vec::new();
        let mut chunk: Option<Vec<u16>> = None;
        let mut next = 0;
        let mut at = 0;
        for record in p.lengths.chunks(SLOTS) {
            if record[0] & NEW_CHUNK != 0 {
                chunk = Some(p.chunks[next].encode_utf16().collect());
                next += 1;
                at = 0;
            }
            let units = chunk.as_ref().expect("a first chunk");
            let texts = std::array::from_fn(|i| {
                let n = record[i + 1] as usize;
                let text = String::from_utf16(&units[at..at + n]).expect("whole characters");
                at += n;
                text
            });
            out.push((record[0] & !NEW_CHUNK, texts));
        }
        assert_eq!(next, p.chunks.len(), "every chunk used");
        out
    }

    #[test]
    fn texts_and_flags_round_trip() {
        let mut a = summary("alpha", "Première étape 🚀 then more");
        a.when_to_use = Some("When 𝄞 music".into());
        a.invocation = InvocationPolicy {
            model_invocable: false,
            user_invocable: true,
        };
        a.resource_base = Some(ResourceBase::Directory {
            path: "/skills/alpha".into(),
        });
        let mut b = summary("beta", "");
        b.resource_base = Some(ResourceBase::Url {
            url: "https://example.com/b".into(),
        });
        b.when_to_use = Some(String::new());
        let mut c = summary("gamma", "Third");
        c.resource_base = Some(ResourceBase::Opaque {
            description: "in a vault".into(),
        });
        let d = summary("delta", "No base");
        let packed = pack([&a, &b, &c, &d]);
        let rows = unpack(&packed);
        assert_eq!(rows.len(), 4);
        assert_eq!(rows[0].0, USER | WHEN_TO_USE | 1 << BASE_SHIFT);
        assert_eq!(
            rows[0].1,
            [
                "alpha",
                "Première étape 🚀 then more",
                "When 𝄞 music",
                "user-dsh",
                "local",
                "/skills/alpha"
            ]
            .map(String::from)
        );
        // An empty `whenToUse` is still present.
        assert_eq!(rows[1].0, MODEL | USER | WHEN_TO_USE | 2 << BASE_SHIFT);
        assert_eq!(rows[1].1[5], "https://example.com/b");
        assert_eq!(rows[2].0, MODEL | USER | 3 << BASE_SHIFT);
        assert_eq!(rows[2].1[5], "in a vault");
        assert_eq!(rows[3].0, MODEL | USER);
        assert_eq!(rows[3].1[2], "");
        assert_eq!(rows[3].1[5], "");
    }

    #[test]
    fn chunks_close_between_summaries() {
        let long = "x".repeat(CHUNK_UNITS / 3);
        let all: Vec<SkillSummary> = (0..10).map(|i| summary(&format!("s-{i}"), &long)).collect();
        let packed = pack(&all);
        assert!(packed.chunks.len() > 2, "{} chunks", packed.chunks.len());
        for chunk in &packed.chunks {
            // A chunk closes on the first summary past the mark.
            assert!(chunk.len() < CHUNK_UNITS + long.len() + 64);
        }
        let rows = unpack(&packed);
        for (i, (_, texts)) in rows.iter().enumerate() {
            assert_eq!(texts[0], format!("s-{i}"));
            assert_eq!(texts[1], long);
        }
    }

    #[test]
    fn nothing_packs_to_nothing() {
        let packed = pack([]);
        assert!(packed.chunks.is_empty());
        assert!(packed.lengths.is_empty());
    }

    #[test]
    fn summaries_of_empty_texts_share_one_empty_chunk() {
        let mut s = summary("a", "");
        s.name = String::new();
        s.source = String::new();
        s.provider = String::new();
        let packed = pack([&s, &s]);
        assert_eq!(packed.chunks, vec![String::new()]);
        assert_eq!(unpack(&packed).len(), 2);
    }
}
