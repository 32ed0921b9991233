//! `JSON.stringify` of JS strings, byte for byte, and the digest of
//! structured entries.
//!
//! A JS string is a sequence of UTF-16 code units, not necessarily
//! well-formed. `JSON.stringify` (ECMA-262 `QuoteJSONString`) writes, for each
//! code point: `\b \t \n \f \r \" \\` for those seven, `\u00xx` (lowercase hex)
//! for the other code points below U+0020, `\uxxxx` (lowercase hex) for a lone
//! surrogate, and the code point itself for everything else (U+007F, U+2028
//! and U+2029 included). Hashing encodes the result as UTF-8, which is then
//! well-formed: every lone surrogate was escaped.

use sha2::{Digest, Sha256};

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Whether `unit` is written as itself in a JSON string (printable ASCII other
/// than `"` and `\`).
#[inline]
fn plain(unit: u16) -> bool {
    (0x20..0x7f).contains(&unit) && unit != u16::from(b'"') && unit != u16::from(b'\\')
}

fn push_unit_escape(out: &mut Vec<u8>, unit: u16) {
    out.extend_from_slice(b"\\u");
    for shift in [12, 8, 4, 0] {
        out.push(HEX[usize::from((unit >> shift) & 0xf)]);
    }
}

/// Appends the UTF-8 of code point `c` (not a surrogate).
#[inline]
fn push_code_point(out: &mut Vec<u8>, c: u32) {
    if let Some(c) = char::from_u32(c) {
        let mut buf = [0u8; 4];
        out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
    }
}

/// Appends `JSON.stringify(s)` of the JS string whose UTF-16 code units are
/// `units`, as UTF-8 (quotes included).
pub fn push_json_string(out: &mut Vec<u8>, units: &[u16]) {
    out.push(b'"');
    let mut i = 0;
    while i < units.len() {
        let unit = units[i];
        if plain(unit) {
            // A run of plain ASCII at once, found eight units at a time.
            let start = i;
            while i + 8 <= units.len()
                && units[i..i + 8].iter().fold(true, |all, &u| all & plain(u))
            {
                i += 8;
            }
            while i < units.len() && plain(units[i]) {
                i += 1;
            }
            let at = out.len();
            out.resize(at + (i - start), 0);
            for (byte, &unit) in out[at..].iter_mut().zip(&units[start..i]) {
                // Printable ASCII: the unit is the byte.
                *byte = unit as u8;
            }
            continue;
        }
        i += 1;
        match unit {
            0x08 => out.extend_from_slice(b"\\b"),
            0x09 => out.extend_from_slice(b"\\t"),
            0x0a => out.extend_from_slice(b"\\n"),
            0x0c => out.extend_from_slice(b"\\f"),
            0x0d => out.extend_from_slice(b"\\r"),
            0x22 => out.extend_from_slice(b"\\\""),
            0x5c => out.extend_from_slice(b"\\\\"),
            0x00..=0x1f => push_unit_escape(out, unit),
            0xd800..=0xdbff => match units.get(i) {
                Some(&low @ 0xdc00..=0xdfff) => {
                    i += 1;
                    let c =
                        0x10000 + ((u32::from(unit) - 0xd800) << 10) + (u32::from(low) - 0xdc00);
                    push_code_point(out, c);
                }
                _ => push_unit_escape(out, unit),
            },
            0xdc00..=0xdfff => push_unit_escape(out, unit),
            _ => push_code_point(out, u32::from(unit)),
        }
    }
    out.push(b'"');
}

/// Appends `JSON.stringify([name, description])`.
pub fn push_json_pair(out: &mut Vec<u8>, name: &[u16], description: &[u16]) {
    out.push(b'[');
    push_json_string(out, name);
    out.push(b',');
    push_json_string(out, description);
    out.push(b']');
}

/// Lowercase hex of a SHA-256 hash.
fn hex(hash: &[u8]) -> String {
    let mut out = String::with_capacity(64);
    for byte in hash {
        out.push(HEX[usize::from(byte >> 4)] as char);
        out.push(HEX[usize::from(byte & 0x0f)] as char);
    }
    out
}

/// The digest of structured entries: lowercase hex SHA-256 of the UTF-8 of
/// every `(name, description)` written as `JSON.stringify([name, description])`,
/// joined with `\n` (`""` for no entries: the digest of the empty text).
pub fn entries_digest<'e>(pairs: impl IntoIterator<Item = (&'e [u16], &'e [u16])>) -> String {
    const FLUSH: usize = 1 << 16;
    let mut hasher = Sha256::new();
    let mut buf = Vec::with_capacity(FLUSH + 1024);
    for (k, (name, description)) in pairs.into_iter().enumerate() {
        if k > 0 {
            buf.push(b'\n');
        }
        push_json_pair(&mut buf, name, description);
        if buf.len() >= FLUSH {
            hasher.update(&buf);
            buf.clear();
        }
    }
    hasher.update(&buf);
    hex(&hasher.finalize())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(s: &[u16]) -> String {
        let mut out = Vec::new();
        push_json_string(&mut out, s);
        String::from_utf8(out).expect("well-formed UTF-8")
    }

    fn units(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    #[test]
    fn escapes_like_json_stringify() {
        // Expected values are what `JSON.stringify` gives in Node.
        assert_eq!(json(&units("plain text")), r#""plain text""#);
        assert_eq!(json(&units("q\"b\\s/")), r#""q\"b\\s/""#);
        assert_eq!(json(&units("\u{8}\t\n\u{c}\r")), r#""\b\t\n\f\r""#);
        assert_eq!(
            json(&units("\u{0}\u{1}\u{b}\u{1f}")),
            r#""\u0000\u0001\u000b\u001f""#
        );
        assert_eq!(
            json(&units("\u{7f}\u{80}\u{2028}\u{2029}\u{feff}")),
            "\"\u{7f}\u{80}\u{2028}\u{2029}\u{feff}\""
        );
        assert_eq!(json(&units("é中😀𝄞")), "\"é中😀𝄞\"");
        assert_eq!(json(&units("")), "\"\"");
        // Lone surrogates, at either end and in the middle.
        assert_eq!(json(&[0xd83d]), r#""\ud83d""#);
        assert_eq!(json(&[0xde00, 0x61]), r#""\ude00a""#);
        assert_eq!(json(&[0x61, 0xd83d, 0xd83d, 0xde00]), "\"a\\ud83d😀\"");
        assert_eq!(json(&[0xdbff, 0x2e, 0x2e, 0x2e]), r#""\udbff...""#);
    }

    #[test]
    fn digest_of_json_lines() {
        use crate::catalog::digest_hex;
        assert_eq!(entries_digest(std::iter::empty()), digest_hex(""));
        let (a, x, b, y) = (units("a"), units("x \"y\""), units("b"), units(""));
        assert_eq!(
            entries_digest([(a.as_slice(), x.as_slice()), (b.as_slice(), y.as_slice())]),
            digest_hex("[\"a\",\"x \\\"y\\\"\"]\n[\"b\",\"\"]")
        );
        // Long enough to flush the buffer several times.
        let long = units(&"word ".repeat(40_000));
        let pairs = vec![(a.as_slice(), long.as_slice()); 3];
        let text = vec![format!("[\"a\",\"{}\"]", "word ".repeat(40_000)); 3].join("\n");
        assert_eq!(entries_digest(pairs), digest_hex(&text));
    }
}
