//! `/name` gestures: how a user invokes a skill by name in a message.
//!
//! A gesture is a token `/name` that starts the text or follows whitespace,
//! and is followed by whitespace or the end of the text; `name` is a kebab-case
//! skill name ([`is_skill_name`]). Whitespace is what JS `\s` matches
//! ([`is_js_whitespace`]). So paths (`a/b`, `/usr/bin`), fractions (`1/2`),
//! `//name`, `/Name` and a name with punctuation glued on (`/name.`,
//! `(/name)`) are prose. Whether a gesture names a skill the user may invoke is
//! for the caller to decide.

use std::collections::{HashMap, HashSet};

use super::is_js_whitespace;
use crate::model::is_skill_name;

/// The names of the `/name` gestures of `text`, first occurrence order, each
/// name once. Linear in the length of the text: the scan jumps from `/` to `/`
/// (`memchr`), reads a name's bytes in place, and finds repeats with a hash
/// set, so a pasted text of a million distinct gestures costs time in
/// proportion to its length, not to the square of its names.
/// [`scan_gestures_by_tokens`] is the rule written plainly; the two
/// agree on every text (tests and the `gesture` fuzz target).
pub fn scan_gestures(text: &str) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    // Sized for the gestures the text can hold (one per `/`), up to a bound a
    // text of slashes alone cannot inflate; past it the set grows as usual.
    let slashes = memchr::memchr_iter(b'/', text.as_bytes()).count();
    let mut seen: HashSet<&str, foldhash::fast::RandomState> =
        HashSet::with_capacity_and_hasher(slashes.min(1 << 16), Default::default());
    for name in gestures(text) {
        if seen.insert(name) {
            names.push(name);
        }
    }
    names
}

/// Whether `text` holds at least one `/name` gesture (stops at the first).
pub fn has_gesture(text: &str) -> bool {
    gestures(text).next().is_some()
}

/// The `/name` gestures of `texts` (read as one text: a gesture never spans
/// two) whose name is one of `candidates`, first occurrence order, each once:
/// what [`scan_gestures`] gives for the texts with the other names left out.
/// The cost per gesture is one look-up among the candidates, however many
/// distinct names the texts hold; the scan stops once every candidate is found.
pub fn scan_gestures_among<'t, T: AsRef<str>>(texts: &'t [T], candidates: &[&str]) -> Vec<&'t str> {
    let mut index: HashMap<&str, usize, foldhash::fast::RandomState> =
        HashMap::with_capacity_and_hasher(candidates.len(), Default::default());
    for name in candidates {
        if is_skill_name(name) {
            let next = index.len();
            index.entry(name).or_insert(next);
        }
    }
    let mut found = vec![false; index.len()];
    let mut names: Vec<&str> = Vec::new();
    for text in texts {
        if names.len() == index.len() {
            break;
        }
        for name in gestures(text.as_ref()) {
            if let Some(&at) = index.get(name) {
                if !found[at] {
                    found[at] = true;
                    names.push(name);
                    if names.len() == index.len() {
                        break;
                    }
                }
            }
        }
    }
    names
}

/// Every `/name` gesture of `text` in order, repeats included: the boundary
/// rule, shared by the scans above.
fn gestures(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    memchr::memchr_iter(b'/', bytes).filter_map(move |slash| {
        if slash > 0 && !whitespace_before(text, slash) {
            return None;
        }
        let start = slash + 1;
        let end = start
            + bytes[start..]
                .iter()
                .position(|&b| !matches!(b, b'a'..=b'z' | b'0'..=b'9' | b'-'))
                .unwrap_or(bytes.len() - start);
        if end < bytes.len() && !whitespace_at(text, end) {
            return None;
        }
        let name = &text[start..end];
        is_skill_name(name).then_some(name)
    })
}

/// The character that ends just before byte `at` (a char boundary) is JS
/// whitespace.
fn whitespace_before(text: &str, at: usize) -> bool {
    text[..at].chars().next_back().is_some_and(is_js_whitespace)
}

/// The character that starts at byte `at` (a char boundary) is JS whitespace.
fn whitespace_at(text: &str, at: usize) -> bool {
    text[at..].chars().next().is_some_and(is_js_whitespace)
}

/// [`scan_gestures`] written as the rule reads: split the text at JS
/// whitespace, keep the tokens that are `/` and a skill name, each once.
pub fn scan_gestures_by_tokens(text: &str) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    let mut seen: HashSet<&str, foldhash::fast::RandomState> = HashSet::default();
    for token in text.split(is_js_whitespace) {
        let Some(name) = token.strip_prefix('/') else {
            continue;
        };
        if is_skill_name(name) && seen.insert(name) {
            names.push(name);
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gestures_by_the_boundary_rule() {
        for (text, expected) in [
            ("/deploy", vec!["deploy"]),
            ("/deploy now", vec!["deploy"]),
            ("please /code-review this", vec!["code-review"]),
            ("run /a then /b2 and /a again", vec!["a", "b2"]),
            ("line one\n/deploy\tnext", vec!["deploy"]),
            ("\u{3000}/deploy\u{a0}", vec!["deploy"]),
            ("/deploy\u{2028}", vec!["deploy"]),
            ("/b /a /b", vec!["b", "a"]),
            // Not gestures: paths, fractions, punctuation, case, bad names.
            ("a/b", vec![]),
            ("see /usr/bin", vec![]),
            ("1/2 of it", vec![]),
            ("/deploy.", vec![]),
            ("/deploy, then", vec![]),
            ("(/deploy)", vec![]),
            ("x/deploy", vec![]),
            ("//deploy", vec![]),
            ("/Deploy", vec![]),
            ("/deploy-", vec![]),
            ("/de--ploy", vec![]),
            ("/", vec![]),
            ("/ deploy", vec![]),
            ("", vec![]),
            ("/déploy", vec![]),
            // U+0085 and U+200B are not JS whitespace: still glued.
            ("/deploy\u{85}", vec![]),
            ("\u{200b}/deploy", vec![]),
        ] {
            assert_eq!(scan_gestures(text), expected, "{text:?}");
            assert_eq!(scan_gestures_by_tokens(text), expected, "{text:?}");
        }
    }

    #[test]
    fn the_scan_agrees_with_the_rule_on_random_texts() {
        // Texts from a small alphabet that makes gestures, near-misses and
        // multi-byte whitespace and letters common.
        const PIECES: [&str; 16] = [
            "/", "a", "b", "9", "-", " ", "\n", "\u{a0}", "\u{3000}", "\u{2028}", "é", "\u{85}",
            "x/", "/de", "--", "\u{feff}",
        ];
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..20_000 {
            let len = (next() % 24) as usize;
            let text: String = (0..len)
                .map(|_| PIECES[(next() % PIECES.len() as u64) as usize])
                .collect();
            assert_eq!(
                scan_gestures(&text),
                scan_gestures_by_tokens(&text),
                "{text:?}"
            );
        }
    }

    #[test]
    fn the_filtered_scan_and_the_check_agree_with_the_scan_on_random_texts() {
        const PIECES: [&str; 14] = [
            "/", "a", "b", "ab", "-", " ", "\n", "\u{a0}", "\u{3000}", "é", "x/", "/a", "/b", "/ab",
        ];
        const CANDIDATES: [&str; 7] = ["a", "b", "ab", "a-b", "A", "a b", ""];
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..20_000 {
            let texts: Vec<String> = (0..(next() % 4))
                .map(|_| {
                    (0..(next() % 12))
                        .map(|_| PIECES[(next() % PIECES.len() as u64) as usize])
                        .collect()
                })
                .collect();
            let candidates: Vec<&str> = CANDIDATES
                .iter()
                .copied()
                .filter(|_| next() % 2 == 0)
                .collect();
            let mut expected: Vec<&str> = Vec::new();
            for text in &texts {
                assert_eq!(
                    has_gesture(text),
                    !scan_gestures(text).is_empty(),
                    "{text:?}"
                );
                for name in scan_gestures(text) {
                    if candidates.contains(&name) && !expected.contains(&name) {
                        expected.push(name);
                    }
                }
            }
            assert_eq!(
                scan_gestures_among(&texts, &candidates),
                expected,
                "{texts:?} {candidates:?}"
            );
        }
    }

    #[test]
    fn many_distinct_gestures_keep_first_occurrence_order() {
        // 200,000 distinct names, each repeated later in reverse order: the
        // first pass decides the order, the second adds nothing. (The scan was
        // quadratic in the number of distinct names: this took minutes.)
        let count = 200_000;
        let mut text = String::new();
        for i in 0..count {
            text.push_str(&format!("/s{i} "));
        }
        for i in (0..count).rev() {
            text.push_str(&format!("x /s{i}\n"));
        }
        let names = scan_gestures(&text);
        assert_eq!(names.len(), count);
        for (i, name) in names.iter().enumerate() {
            assert_eq!(*name, format!("s{i}"));
        }
    }
}
