//! Entry order inside one root: an approximation of ICU root collation, the
//! order JS `String.prototype.localeCompare` gives by default.
//!
//! It covers what skill file names realistically contain: ASCII punctuation
//! and symbols (not ignorable, ordered as CLDR root orders them, all before
//! digits), digits compared one by one (`a10` < `a2`), letters compared
//! case-insensitively first, accents second (Latin-1 and Latin Extended-A
//! letters, precomposed or with combining marks) and case last (lowercase
//! first). Other scripts sort after Latin letters by code point. Strings that
//! compare equal fall back to their bytes, so the order is total.

use std::cmp::Ordering;

/// ASCII punctuation and symbols in CLDR root order (whitespace first).
const ASCII_SYMBOLS: &str = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$";

/// Combining marks U+0300..U+036F in the order of their secondary weights.
const MARK_ORDER: [u16; 112] = [
    0x34f, 0x332, 0x313, 0x343, 0x314, 0x301, 0x341, 0x300, 0x340, 0x306, 0x302, 0x30c, 0x30a,
    0x342, 0x308, 0x344, 0x30b, 0x303, 0x307, 0x338, 0x327, 0x328, 0x304, 0x30d, 0x30e, 0x312,
    0x315, 0x31a, 0x33d, 0x33e, 0x33f, 0x346, 0x34a, 0x34b, 0x34c, 0x350, 0x351, 0x352, 0x357,
    0x35b, 0x35d, 0x35e, 0x316, 0x317, 0x318, 0x319, 0x31c, 0x31d, 0x31e, 0x31f, 0x320, 0x329,
    0x32a, 0x32b, 0x32c, 0x32f, 0x333, 0x33a, 0x33b, 0x33c, 0x347, 0x348, 0x349, 0x34d, 0x34e,
    0x353, 0x354, 0x355, 0x356, 0x359, 0x35a, 0x35c, 0x35f, 0x362, 0x336, 0x337, 0x335, 0x305,
    0x309, 0x30f, 0x310, 0x311, 0x31b, 0x321, 0x322, 0x323, 0x324, 0x325, 0x326, 0x32d, 0x32e,
    0x330, 0x331, 0x334, 0x339, 0x345, 0x358, 0x360, 0x361, 0x363, 0x368, 0x369, 0x364, 0x36a,
    0x365, 0x36b, 0x366, 0x36c, 0x36d, 0x367, 0x36e, 0x36f,
];

/// Canonical decompositions (base letter + one combining mark) of the
/// precomposed letters of Latin-1 Supplement and Latin Extended-A.
const DECOMPOSED: [(u16, u8, u16); 161] = [
    (0xc0, b'A', 0x300),
    (0xc1, b'A', 0x301),
    (0xc2, b'A', 0x302),
    (0xc3, b'A', 0x303),
    (0xc4, b'A', 0x308),
    (0xc5, b'A', 0x30a),
    (0xc7, b'C', 0x327),
    (0xc8, b'E', 0x300),
    (0xc9, b'E', 0x301),
    (0xca, b'E', 0x302),
    (0xcb, b'E', 0x308),
    (0xcc, b'I', 0x300),
    (0xcd, b'I', 0x301),
    (0xce, b'I', 0x302),
    (0xcf, b'I', 0x308),
    (0xd1, b'N', 0x303),
    (0xd2, b'O', 0x300),
    (0xd3, b'O', 0x301),
    (0xd4, b'O', 0x302),
    (0xd5, b'O', 0x303),
    (0xd6, b'O', 0x308),
    (0xd9, b'U', 0x300),
    (0xda, b'U', 0x301),
    (0xdb, b'U', 0x302),
    (0xdc, b'U', 0x308),
    (0xdd, b'Y', 0x301),
    (0xe0, b'a', 0x300),
    (0xe1, b'a', 0x301),
    (0xe2, b'a', 0x302),
    (0xe3, b'a', 0x303),
    (0xe4, b'a', 0x308),
    (0xe5, b'a', 0x30a),
    (0xe7, b'c', 0x327),
    (0xe8, b'e', 0x300),
    (0xe9, b'e', 0x301),
    (0xea, b'e', 0x302),
    (0xeb, b'e', 0x308),
    (0xec, b'i', 0x300),
    (0xed, b'i', 0x301),
    (0xee, b'i', 0x302),
    (0xef, b'i', 0x308),
    (0xf1, b'n', 0x303),
    (0xf2, b'o', 0x300),
    (0xf3, b'o', 0x301),
    (0xf4, b'o', 0x302),
    (0xf5, b'o', 0x303),
    (0xf6, b'o', 0x308),
    (0xf9, b'u', 0x300),
    (0xfa, b'u', 0x301),
    (0xfb, b'u', 0x302),
    (0xfc, b'u', 0x308),
    (0xfd, b'y', 0x301),
    (0xff, b'y', 0x308),
    (0x100, b'A', 0x304),
    (0x101, b'a', 0x304),
    (0x102, b'A', 0x306),
    (0x103, b'a', 0x306),
    (0x104, b'A', 0x328),
    (0x105, b'a', 0x328),
    (0x106, b'C', 0x301),
    (0x107, b'c', 0x301),
    (0x108, b'C', 0x302),
    (0x109, b'c', 0x302),
    (0x10a, b'C', 0x307),
    (0x10b, b'c', 0x307),
    (0x10c, b'C', 0x30c),
    (0x10d, b'c', 0x30c),
    (0x10e, b'D', 0x30c),
    (0x10f, b'd', 0x30c),
    (0x112, b'E', 0x304),
    (0x113, b'e', 0x304),
    (0x114, b'E', 0x306),
    (0x115, b'e', 0x306),
    (0x116, b'E', 0x307),
    (0x117, b'e', 0x307),
    (0x118, b'E', 0x328),
    (0x119, b'e', 0x328),
    (0x11a, b'E', 0x30c),
    (0x11b, b'e', 0x30c),
    (0x11c, b'G', 0x302),
    (0x11d, b'g', 0x302),
    (0x11e, b'G', 0x306),
    (0x11f, b'g', 0x306),
    (0x120, b'G', 0x307),
    (0x121, b'g', 0x307),
    (0x122, b'G', 0x327),
    (0x123, b'g', 0x327),
    (0x124, b'H', 0x302),
    (0x125, b'h', 0x302),
    (0x128, b'I', 0x303),
    (0x129, b'i', 0x303),
    (0x12a, b'I', 0x304),
    (0x12b, b'i', 0x304),
    (0x12c, b'I', 0x306),
    (0x12d, b'i', 0x306),
    (0x12e, b'I', 0x328),
    (0x12f, b'i', 0x328),
    (0x130, b'I', 0x307),
    (0x134, b'J', 0x302),
    (0x135, b'j', 0x302),
    (0x136, b'K', 0x327),
    (0x137, b'k', 0x327),
    (0x139, b'L', 0x301),
    (0x13a, b'l', 0x301),
    (0x13b, b'L', 0x327),
    (0x13c, b'l', 0x327),
    (0x13d, b'L', 0x30c),
    (0x13e, b'l', 0x30c),
    (0x143, b'N', 0x301),
    (0x144, b'n', 0x301),
    (0x145, b'N', 0x327),
    (0x146, b'n', 0x327),
    (0x147, b'N', 0x30c),
    (0x148, b'n', 0x30c),
    (0x14c, b'O', 0x304),
    (0x14d, b'o', 0x304),
    (0x14e, b'O', 0x306),
    (0x14f, b'o', 0x306),
    (0x150, b'O', 0x30b),
    (0x151, b'o', 0x30b),
    (0x154, b'R', 0x301),
    (0x155, b'r', 0x301),
    (0x156, b'R', 0x327),
    (0x157, b'r', 0x327),
    (0x158, b'R', 0x30c),
    (0x159, b'r', 0x30c),
    (0x15a, b'S', 0x301),
    (0x15b, b's', 0x301),
    (0x15c, b'S', 0x302),
    (0x15d, b's', 0x302),
    (0x15e, b'S', 0x327),
    (0x15f, b's', 0x327),
    (0x160, b'S', 0x30c),
    (0x161, b's', 0x30c),
    (0x162, b'T', 0x327),
    (0x163, b't', 0x327),
    (0x164, b'T', 0x30c),
    (0x165, b't', 0x30c),
    (0x168, b'U', 0x303),
    (0x169, b'u', 0x303),
    (0x16a, b'U', 0x304),
    (0x16b, b'u', 0x304),
    (0x16c, b'U', 0x306),
    (0x16d, b'u', 0x306),
    (0x16e, b'U', 0x30a),
    (0x16f, b'u', 0x30a),
    (0x170, b'U', 0x30b),
    (0x171, b'u', 0x30b),
    (0x172, b'U', 0x328),
    (0x173, b'u', 0x328),
    (0x174, b'W', 0x302),
    (0x175, b'w', 0x302),
    (0x176, b'Y', 0x302),
    (0x177, b'y', 0x302),
    (0x178, b'Y', 0x308),
    (0x179, b'Z', 0x301),
    (0x17a, b'z', 0x301),
    (0x17b, b'Z', 0x307),
    (0x17c, b'z', 0x307),
    (0x17d, b'Z', 0x30c),
    (0x17e, b'z', 0x30c),
];

const WHITESPACE_BASE: u32 = 1;
const SYMBOL_BASE: u32 = 16;
const OTHER_SYMBOL_BASE: u32 = 64;
const DIGIT_BASE: u32 = 0x400;
const LETTER_BASE: u32 = 0x500;
const OTHER_BASE: u32 = 0x1000;

/// Secondary weight of an unaccented element.
const COMMON_SECONDARY: u16 = 1;

/// A precomputed sort key; compare keys instead of strings when sorting many
/// names.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct CollationKey {
    primary: Vec<u32>,
    secondary: Vec<u16>,
    tertiary: Vec<u8>,
    raw: Vec<u8>,
}

fn letter_primary(lower: u8) -> u32 {
    LETTER_BASE + 4 * u32::from(lower - b'a')
}

fn mark_secondary(mark: u32) -> Option<u16> {
    MARK_ORDER
        .iter()
        .position(|&m| u32::from(m) == mark)
        .map(|i| COMMON_SECONDARY + 1 + i as u16)
}

impl CollationKey {
    /// The key of `s`.
    pub fn new(s: &str) -> Self {
        let mut key = CollationKey {
            primary: Vec::with_capacity(s.len()),
            secondary: Vec::with_capacity(s.len()),
            tertiary: Vec::with_capacity(s.len()),
            raw: s.as_bytes().to_vec(),
        };
        for c in s.chars() {
            key.push_char(c);
        }
        key
    }

    fn push(&mut self, primary: u32, secondary: u16, tertiary: u8) {
        if primary != 0 {
            self.primary.push(primary);
        }
        if secondary != 0 {
            self.secondary.push(secondary);
        }
        self.tertiary.push(tertiary);
    }

    fn push_letter(&mut self, letter: u8, tertiary: u8) {
        let lower = letter.to_ascii_lowercase();
        let case = u8::from(letter.is_ascii_uppercase());
        self.push(letter_primary(lower), COMMON_SECONDARY, case.max(tertiary));
    }

    fn push_char(&mut self, c: char) {
        let cp = c as u32;
        if c.is_ascii() {
            let b = cp as u8;
            if b.is_ascii_alphabetic() {
                self.push_letter(b, 0);
            } else if b.is_ascii_digit() {
                self.push(DIGIT_BASE + u32::from(b - b'0'), COMMON_SECONDARY, 0);
            } else if let Some(i) = ASCII_SYMBOLS.bytes().position(|s| s == b) {
                self.push(SYMBOL_BASE + i as u32, COMMON_SECONDARY, 0);
            } else if (0x09..=0x0d).contains(&b) {
                self.push(WHITESPACE_BASE + u32::from(b - 0x09), COMMON_SECONDARY, 0);
            }
            // Other control characters are ignorable.
            return;
        }
        if let Some(secondary) = (0x300..=0x36f)
            .contains(&cp)
            .then(|| mark_secondary(cp))
            .flatten()
        {
            self.push(0, secondary, 0);
            return;
        }
        if let Ok(i) = DECOMPOSED.binary_search_by(|(p, _, _)| u32::from(*p).cmp(&cp)) {
            let (_, base, mark) = DECOMPOSED[i];
            self.push_letter(base, 0);
            if let Some(secondary) = mark_secondary(u32::from(mark)) {
                self.push(0, secondary, 0);
            }
            return;
        }
        let stroke = mark_secondary(0x338).unwrap_or(COMMON_SECONDARY);
        match c {
            '\u{a0}' => self.push(SYMBOL_BASE, COMMON_SECONDARY, 1),
            'ß' => {
                self.push_letter(b's', 2);
                self.push_letter(b's', 2);
            }
            'ẞ' => {
                self.push_letter(b'S', 2);
                self.push_letter(b'S', 2);
            }
            'æ' | 'Æ' | 'œ' | 'Œ' => {
                let upper = c.is_uppercase();
                let (a, b) = if matches!(c, 'æ' | 'Æ') {
                    (b'a', b'e')
                } else {
                    (b'o', b'e')
                };
                let t = if upper { 3 } else { 2 };
                self.push_letter(a, t);
                self.push_letter(b, t);
            }
            'ø' | 'Ø' | 'đ' | 'Đ' | 'ð' | 'Ð' | 'ł' | 'Ł' | 'ħ' | 'Ħ' | 'ŧ' | 'Ŧ' => {
                let base = match c {
                    'ø' | 'Ø' => b'o',
                    'đ' | 'Đ' => b'd',
                    'ð' | 'Ð' => b'd',
                    'ł' | 'Ł' => b'l',
                    'ħ' | 'Ħ' => b'h',
                    _ => b't',
                };
                let case = u8::from(c.is_uppercase());
                let secondary = if matches!(c, 'ð' | 'Ð') {
                    stroke + 1
                } else {
                    stroke
                };
                self.push(letter_primary(base), COMMON_SECONDARY, case);
                self.push(0, secondary, 0);
            }
            'ı' => self.push(letter_primary(b'i') + 1, COMMON_SECONDARY, 0),
            'þ' | 'Þ' => self.push(
                letter_primary(b'z') + 4,
                COMMON_SECONDARY,
                u8::from(c == 'Þ'),
            ),
            '\u{a1}'..='\u{bf}' | '×' | '÷' => {
                self.push(OTHER_SYMBOL_BASE + cp, COMMON_SECONDARY, 0)
            }
            _ => {
                let lower: Vec<char> = c.to_lowercase().collect();
                match lower.as_slice() {
                    [l] if *l != c => self.push(OTHER_BASE + *l as u32, COMMON_SECONDARY, 1),
                    _ => self.push(OTHER_BASE + cp, COMMON_SECONDARY, 0),
                }
            }
        }
    }
}

/// Compare two names as `a.localeCompare(b)` orders them (see the module docs
/// for the coverage), falling back to byte order for collation ties.
pub fn locale_compare(a: &str, b: &str) -> Ordering {
    CollationKey::new(a).cmp(&CollationKey::new(b))
}

/// Sort items by the collation of a name derived from each.
pub fn sort_by_name<T>(items: &mut [T], name: impl Fn(&T) -> &str) {
    items.sort_by_cached_key(|item| CollationKey::new(name(item)));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(names: &[&str]) -> Vec<String> {
        let mut v: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        sort_by_name(&mut v, |s| s.as_str());
        v
    }

    #[test]
    fn decomposition_table_is_sorted() {
        assert!(DECOMPOSED.windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn matches_node_for_known_pairs() {
        // Expected values from Node 20 (`a.localeCompare(b)`, ICU, en-US).
        let cases: &[(&str, &str, Ordering)] = &[
            ("a-b", "ab", Ordering::Less),
            ("a", "A", Ordering::Less),
            ("a-B", "A-a", Ordering::Greater),
            ("ab", "a-c", Ordering::Greater),
            ("a b", "a-b", Ordering::Less),
            ("é", "f", Ordering::Less),
            ("e", "é", Ordering::Less),
            ("É", "é", Ordering::Greater),
            ("éa", "eb", Ordering::Less),
            ("a1", "a10", Ordering::Less),
            ("a10", "a2", Ordering::Less),
            ("foo.md", "foo", Ordering::Greater),
            ("foo", "foo-bar", Ordering::Less),
            ("foo.md", "foo-bar.md", Ordering::Greater),
            ("Foo", "foo", Ordering::Greater),
            ("_a", "-a", Ordering::Less),
            ("a", "a\u{301}", Ordering::Less),
            ("ß", "ss", Ordering::Greater),
            ("ss", "st", Ordering::Less),
            ("æ", "ae", Ordering::Greater),
        ];
        for (a, b, want) in cases {
            assert_eq!(locale_compare(a, b), *want, "{a:?} vs {b:?}");
        }
    }

    #[test]
    fn ascii_order() {
        let mut chars: Vec<String> = (32u8..127).map(|b| (b as char).to_string()).collect();
        sort_by_name(&mut chars, |s| s.as_str());
        assert_eq!(
            chars.concat(),
            " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789aAbBcCdDeEfFgGhHiIjJkKlLmMnNoOpPqQrRsStTuUvVwWxXyYzZ"
        );
    }

    #[test]
    fn realistic_names() {
        assert_eq!(
            sorted(&[
                "Zeta.md",
                "alpha",
                "Alpha.md",
                "alpha.md",
                "_draft.md",
                "10-x",
                "2-y",
                "beta"
            ]),
            [
                "_draft.md",
                "10-x",
                "2-y",
                "alpha",
                "alpha.md",
                "Alpha.md",
                "beta",
                "Zeta.md"
            ]
        );
    }
}
