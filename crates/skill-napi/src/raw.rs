//! Host values arrive packed (see `skill_core::model::host` and `pack()` in
//! `lib/registry.js`): typed arrays of tags, ranks and interned-string refs,
//! and texts (the names; later, the descriptions a catalog renders) as a few
//! strings holding them back to back with their lengths in UTF-16 code units.
//! This module turns them into the core's [`Records`] view: the chunks are read
//! as UTF-16 (V8 copies them without transcoding) and decoded into one UTF-8
//! text with a byte span per piece.

use crate::util::invalid_arg;
use napi::bindgen_prelude::{
    Float64ArraySlice, FromNapiValue, JsObjectValue, Object, Uint32ArraySlice, Uint8ArraySlice,
    Utf16String,
};
use napi::sys;
use skill_core::model::host::Records;

/// The typings of a [`Packed`] argument (declared for `binding.d.ts` only; the
/// value is read by [`Packed`]'s `FromNapiValue`).
#[napi_derive::napi(object, object_from_js = false, object_to_js = false)]
pub struct PackedRecords {
    /// One tag per field per record.
    pub tags: napi::bindgen_prelude::Uint8Array,
    /// `rank` per record.
    pub ranks: napi::bindgen_prelude::Float64Array,
    /// UTF-16 length of each record's name.
    pub lengths: napi::bindgen_prelude::Uint32Array,
    /// Interned-string refs, three per record.
    pub refs: napi::bindgen_prelude::Uint32Array,
    /// The names back to back.
    pub chunks: Vec<String>,
    /// Interned strings.
    pub strings: Vec<String>,
    /// `(slot, value)` pairs of other number fields.
    pub numbers: Vec<f64>,
}

/// The typings of a [`Texts`] argument (declared for `binding.d.ts` only).
#[napi_derive::napi(object, object_from_js = false, object_to_js = false)]
pub struct PackedTexts {
    /// Texts back to back (one never spans two chunks).
    pub chunks: Vec<String>,
    /// UTF-16 length of each text.
    pub lengths: napi::bindgen_prelude::Uint32Array,
}

/// Texts packed as a few strings and their UTF-16 lengths (one object with
/// the properties `chunks` and `lengths`).
pub struct Texts<'a> {
    /// Texts back to back (one never spans two chunks).
    pub chunks: Vec<Utf16String>,
    /// UTF-16 length of each text.
    pub lengths: Uint32ArraySlice<'a>,
}

impl Texts<'_> {
    /// Decode into one UTF-8 text and a byte span (start, end) per text.
    pub fn decode(&self) -> napi::Result<Decoded> {
        decode_texts(&self.chunks, &self.lengths).map_err(invalid_arg)
    }
}

impl FromNapiValue for Texts<'_> {
    unsafe fn from_napi_value(env: sys::napi_env, value: sys::napi_value) -> napi::Result<Self> {
        // SAFETY: forwarded from the caller's contract (a live env and value).
        let obj = unsafe { Object::from_napi_value(env, value) }?;
        Ok(Texts {
            chunks: obj.get_named_property("chunks")?,
            lengths: obj.get_named_property("lengths")?,
        })
    }
}

/// The packed parts as they come from JS (one object with these properties).
pub struct Packed<'a> {
    /// One tag per field per record.
    pub tags: Uint8ArraySlice<'a>,
    /// `rank` per record.
    pub ranks: Float64ArraySlice<'a>,
    /// The names (`chunks`, `lengths`).
    pub names: Texts<'a>,
    /// Interned-string refs, three per record.
    pub refs: Uint32ArraySlice<'a>,
    /// Interned strings.
    pub strings: Vec<String>,
    /// `(slot, value)` pairs of other number fields.
    pub numbers: Vec<f64>,
}

impl FromNapiValue for Packed<'_> {
    unsafe fn from_napi_value(env: sys::napi_env, value: sys::napi_value) -> napi::Result<Self> {
        // SAFETY: forwarded from the caller's contract (a live env and value).
        let obj = unsafe { Object::from_napi_value(env, value) }?;
        Ok(Packed {
            tags: obj.get_named_property("tags")?,
            ranks: obj.get_named_property("ranks")?,
            names: Texts {
                chunks: obj.get_named_property("chunks")?,
                lengths: obj.get_named_property("lengths")?,
            },
            refs: obj.get_named_property("refs")?,
            strings: obj.get_named_property("strings")?,
            numbers: obj.get_named_property("numbers")?,
        })
    }
}

/// Decoded [`Texts`]: one UTF-8 text and a byte span (start, end) per text.
pub struct Decoded {
    /// The texts back to back.
    pub text: String,
    /// Start and end of each text in `text`.
    pub spans: Vec<u32>,
}

const MISMATCH: &str = "malformed packed records: lengths do not match the text";

/// Appends `units` as UTF-8; lone surrogates become U+FFFD, as Node's UTF-8
/// encoding does.
fn push_utf16(out: &mut Vec<u8>, units: &[u16]) {
    for c in char::decode_utf16(units.iter().copied()) {
        let c = c.unwrap_or(char::REPLACEMENT_CHARACTER);
        out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
    }
}

fn offset(n: usize) -> Result<u32, &'static str> {
    u32::try_from(n).map_err(|_| MISMATCH)
}

/// Decode UTF-16 `chunks` into one UTF-8 text and a byte span per entry of
/// `lengths` (UTF-16 lengths; a text never spans two chunks). An ASCII chunk
/// (the usual case) is narrowed in one pass and its spans are its UTF-16
/// offsets.
fn decode_texts<C: std::ops::Deref<Target = [u16]>>(
    chunks: &[C],
    lengths: &[u32],
) -> Result<Decoded, &'static str> {
    let capacity = chunks.iter().map(|c| c.len()).sum::<usize>();
    let mut text: Vec<u8> = Vec::with_capacity(capacity);
    let mut spans = Vec::with_capacity(lengths.len() * 2);
    let mut chunks = chunks.iter().map(|c| &c[..]);
    // The current chunk, how many of its units were used, and where it starts
    // in `text` when it is ASCII.
    let mut chunk: &[u16] = &[];
    let mut used = 0usize;
    let mut ascii_base: Option<usize> = None;
    for &units in lengths {
        if used == chunk.len() && units > 0 {
            chunk = chunks.next().unwrap_or_default();
            used = 0;
            ascii_base = if chunk.iter().all(|&u| u < 0x80) {
                let base = text.len();
                text.extend(chunk.iter().map(|&u| u as u8));
                Some(base)
            } else {
                None
            };
        }
        let end = used + units as usize;
        let piece = chunk.get(used..end).ok_or(MISMATCH)?;
        match ascii_base {
            Some(base) => spans.extend([offset(base + used)?, offset(base + end)?]),
            None => {
                let start = offset(text.len())?;
                push_utf16(&mut text, piece);
                spans.extend([start, offset(text.len())?]);
            }
        }
        used = end;
    }
    if used != chunk.len() || chunks.any(|c| !c.is_empty()) {
        return Err(MISMATCH);
    }
    let text = String::from_utf8(text).map_err(|_| MISMATCH)?;
    Ok(Decoded { text, spans })
}

impl Packed<'_> {
    /// The core's view of these records over their decoded names.
    pub fn records<'s>(&'s self, names: &'s Decoded) -> napi::Result<Records<'s>> {
        let records = Records {
            tags: &self.tags,
            ranks: &self.ranks,
            text: &names.text,
            spans: &names.spans,
            refs: &self.refs,
            strings: &self.strings,
            numbers: &self.numbers,
        };
        records.check().map_err(invalid_arg)?;
        Ok(records)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_pieces_decode_to_utf8_with_lone_surrogates_replaced() {
        let mut out = Vec::new();
        push_utf16(&mut out, &"plain".encode_utf16().collect::<Vec<_>>());
        push_utf16(&mut out, &"é😀".encode_utf16().collect::<Vec<_>>());
        push_utf16(&mut out, &[0xd800, 0x61]);
        assert_eq!(String::from_utf8(out).expect("utf8"), "plainé😀\u{fffd}a");
    }

    fn utf16(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    #[test]
    fn chunks_decode_into_one_text_with_byte_spans() {
        let ascii = utf16("alphaDoes alphabetaB");
        let wide = utf16("gammaCafé 😀");
        let decoded =
            decode_texts(&[&ascii[..], &wide[..]], &[5, 10, 4, 1, 5, 7, 0]).expect("decodes");
        let pieces: Vec<&str> = decoded
            .spans
            .chunks(2)
            .map(|s| &decoded.text[s[0] as usize..s[1] as usize])
            .collect();
        assert_eq!(
            pieces,
            ["alpha", "Does alpha", "beta", "B", "gamma", "Café 😀", ""]
        );
        // Too long for a chunk, texts left over, past the end.
        for bad in [&[5u32, 10, 4, 2][..], &[5, 10, 4], &[5, 10, 4, 1, 5, 8]] {
            assert!(
                decode_texts(&[&ascii[..], &wide[..]], bad).is_err(),
                "{bad:?}"
            );
        }
    }
}
