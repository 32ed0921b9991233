//! Folding and tokenizing: the words a name, a description or a query is
//! made of, in the one form the index compares.
//!
//! - **Case** is folded with Unicode lowercase.
//! - **Diacritics** are folded for the Latin letters of Latin-1 and Latin
//!   Extended-A (`é` → `e`, `ß` → `ss`, `Œ` → `oe`, `ł` → `l`), and combining
//!   marks (U+0300–U+036F, the decomposed spelling of the same accents) are
//!   dropped, so `café`, `CAFÉ` and `cafe\u{301}` are one word.
//! - **Words** are runs of letters and digits; anything else separates them
//!   (so kebab-case names, `snake_case`, paths and punctuation split into
//!   words).
//! - **Han and kana** have no spaces between words: each run of them gives
//!   its overlapping pairs of characters (a lone character stands alone), the
//!   usual way to index such text without a dictionary.

/// Base letters of U+0100..=U+017F (Latin Extended-A) once lowercased;
/// `?` marks the two digraphs (`ĳ`, `œ`) handled apart.
const EXTENDED_A: &[u8; 128] =
    b"aaaaaaccccccccddddeeeeeeeeeegggggggghhhhiiiiiiiiii??jjkkkllllllllllnnnnnnnnnoooooo??rrrrrrssssssssttttttuuuuuuuuuuuuwwyyyzzzzzzs";

/// Base letters of U+00E0..=U+00FF (lowercase Latin-1); `?` marks `æ` and
/// `þ` (two letters) and `÷` (not a letter).
const LATIN1: &[u8; 32] = b"aaaaaa?ceeeeiiiidnooooo?ouuuuy?y";

/// Whether `c` is a combining diacritical mark (dropped).
fn is_combining(c: char) -> bool {
    ('\u{300}'..='\u{36f}').contains(&c)
}

/// Whether `c` is a Han or kana character (indexed by pairs).
pub(super) fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{3040}'..='\u{30ff}'   // hiragana, katakana
        | '\u{3400}'..='\u{4dbf}' // Han extension A
        | '\u{4e00}'..='\u{9fff}' // Han
        | '\u{f900}'..='\u{faff}' // Han compatibility
        | '\u{20000}'..='\u{2fa1f}')
}

/// Appends the folded form of one lowercase character.
fn push_base(out: &mut String, c: char) {
    let code = c as u32;
    let table = match code {
        0xdf => return out.push_str("ss"),
        0xe6 => return out.push_str("ae"),
        0xfe => return out.push_str("th"),
        0x133 => return out.push_str("ij"),
        0x153 => return out.push_str("oe"),
        0xe0..=0xff => LATIN1.get((code - 0xe0) as usize),
        0x100..=0x17f => EXTENDED_A.get((code - 0x100) as usize),
        _ => None,
    };
    match table {
        Some(&b) if b != b'?' => out.push(char::from(b)),
        _ => out.push(c),
    }
}

/// Appends `c` case- and diacritic-folded.
pub(super) fn push_folded(out: &mut String, c: char) {
    if c.is_ascii() {
        out.push(c.to_ascii_lowercase());
        return;
    }
    for lower in c.to_lowercase().filter(|&c| !is_combining(c)) {
        push_base(out, lower);
    }
}

/// `text` case- and diacritic-folded (combining marks dropped).
pub fn fold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars().filter(|&c| !is_combining(c)) {
        push_folded(&mut out, c);
    }
    out
}

/// A byte of a word: an ASCII letter or digit.
const WORD: u8 = 1;
/// An ASCII uppercase letter (also [`WORD`]).
const UPPER: u8 = 2;

/// What each byte is, for ASCII words: [`WORD`], `WORD | UPPER`, or 0
/// (anything else, every byte of a non-ASCII character included).
const ASCII_CLASS: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 128 {
        if (b as u8).is_ascii_alphanumeric() {
            table[b] = WORD;
        }
        if (b as u8).is_ascii_uppercase() {
            table[b] |= UPPER;
        }
        b += 1;
    }
    table
};

/// Calls `word` with each folded word of `text`, in order (see the module
/// docs; a Han or kana run gives its character pairs).
pub fn words(text: &str, mut word: impl FnMut(&str)) {
    let mut current = String::new();
    let mut cjk: Vec<char> = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b < 0x80 {
            // ASCII: one byte, no folding table, no Han.
            if !cjk.is_empty() {
                flush_cjk(&mut cjk, &mut word);
            }
            let class = ASCII_CLASS[usize::from(b)];
            if class & WORD != 0 {
                // A whole ASCII word is handed over as it stands when it is
                // lowercase already (the usual case), without a copy.
                let mut end = i + 1;
                let mut seen = class;
                while let Some(&next) = bytes.get(end) {
                    let class = ASCII_CLASS[usize::from(next)];
                    if class & WORD == 0 {
                        break;
                    }
                    seen |= class;
                    end += 1;
                }
                let run = &text[i..end];
                let whole = current.is_empty() && (end == bytes.len() || bytes[end] < 0x80);
                if whole && seen & UPPER == 0 {
                    word(run);
                } else {
                    current.extend(run.bytes().map(|b| char::from(b.to_ascii_lowercase())));
                    if end == bytes.len() || bytes[end] < 0x80 {
                        word(&current);
                        current.clear();
                    }
                }
                i = end;
                continue;
            } else if !current.is_empty() {
                word(&current);
                current.clear();
            }
            i += 1;
            continue;
        }
        // `i` is on a character boundary: it only advances by whole characters.
        let Some(c) = text[i..].chars().next() else {
            break;
        };
        i += c.len_utf8();
        if is_combining(c) {
            continue;
        }
        if is_cjk(c) {
            if !current.is_empty() {
                word(&current);
                current.clear();
            }
            cjk.push(c);
            continue;
        }
        if !cjk.is_empty() {
            flush_cjk(&mut cjk, &mut word);
        }
        if c.is_alphanumeric() {
            push_folded(&mut current, c);
        } else if !current.is_empty() {
            word(&current);
            current.clear();
        }
    }
    if !current.is_empty() {
        word(&current);
    }
    if !cjk.is_empty() {
        flush_cjk(&mut cjk, &mut word);
    }
}

/// The words of a Han or kana run: its character pairs (a lone character
/// stands alone).
fn flush_cjk(cjk: &mut Vec<char>, word: &mut impl FnMut(&str)) {
    let mut pair = String::new();
    if cjk.len() == 1 {
        pair.push(cjk[0]);
        word(&pair);
    }
    for w in cjk.windows(2) {
        pair.clear();
        pair.push(w[0]);
        pair.push(w[1]);
        word(&pair);
    }
    cjk.clear();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        words(text, |w| out.push(w.to_string()));
        out
    }

    #[test]
    fn folds_case_and_diacritics() {
        assert_eq!(fold("Café CRÈME brûlée"), "cafe creme brulee");
        assert_eq!(fold("cafe\u{301}"), "cafe");
        assert_eq!(
            fold("Straße Æsir Œuvre Þorn ĳs"),
            "strasse aesir oeuvre thorn ijs"
        );
        assert_eq!(fold("Łódź Ångström Çà Ñ ÿ Ž ſ"), "lodz angstrom ca n y z s");
        assert_eq!(fold("ΑΒΓ Жук"), "αβγ жук");
        // Every Latin-1 and Extended-A letter folds to ASCII.
        for code in (0xc0u32..=0x17f).filter(|&c| c != 0xd7 && c != 0xf7) {
            let c = char::from_u32(code).expect("valid");
            assert!(
                fold(&c.to_string()).is_ascii(),
                "{c:?} -> {:?}",
                fold(&c.to_string())
            );
        }
    }

    #[test]
    fn splits_words_names_and_cjk() {
        assert_eq!(all("pdf-form-filler"), ["pdf", "form", "filler"]);
        assert_eq!(
            all("Fill PDF forms, e.g. W-9 (tax_forms)."),
            ["fill", "pdf", "forms", "e", "g", "w", "9", "tax", "forms"]
        );
        assert_eq!(all("部署应用"), ["部署", "署应", "应用"]);
        assert_eq!(all("用 k8s 部署"), ["用", "k8s", "部署"]);
        assert_eq!(all("デプロイmy app"), ["デプ", "プロ", "ロイ", "my", "app"]);
        assert_eq!(all("  ,; "), Vec::<String>::new());
    }
}
