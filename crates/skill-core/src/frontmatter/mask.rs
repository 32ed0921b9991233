//! Stand-ins for the three characters the JS `yaml` package reads as
//! ordinary content where the YAML scanner would not: U+FEFF after the start
//! of the stream (the scanner refuses it), a carriage return not followed by
//! a line feed (the scanner breaks the line there) and U+0000 (the scanner
//! takes it for the end of the input). The composer reads each as an unused
//! private-use character and puts it back afterwards.
//!
//! Both directions read the text once (masking counts the bytes it may
//! replace first), into a string allocated once: a frontmatter of a million
//! lone carriage returns costs a few passes over its bytes.

use std::collections::HashSet;

/// The byte order mark, as UTF-8.
const BOM: &[u8] = "\u{feff}".as_bytes();

/// The private-use characters standing in for U+FEFF, a lone carriage
/// return and U+0000 while the scanner reads the text.
pub(super) struct StandIns {
    bom: char,
    cr: char,
    nul: char,
}

impl StandIns {
    /// Three private-use characters that `text` does not hold (U+FFFD for
    /// any that cannot be found: then `text` holds 137,000 distinct
    /// private-use characters, far more than the size cap allows).
    pub(super) fn unused_in(text: &str) -> Self {
        let mut unused = unused_chars(text);
        StandIns {
            bom: unused.next().unwrap_or('\u{fffd}'),
            cr: unused.next().unwrap_or('\u{fffd}'),
            nul: unused.next().unwrap_or('\u{fffd}'),
        }
    }

    /// The stand-ins for U+FEFF, a lone carriage return and U+0000.
    #[cfg(test)]
    pub(super) fn chars(&self) -> [char; 3] {
        [self.bom, self.cr, self.nul]
    }

    /// `s` with every stand-in put back.
    pub(super) fn restore(&self, s: &str) -> String {
        let mut out = String::with_capacity(s.len());
        out.extend(s.chars().map(|c| match c {
            c if c == self.bom => '\u{feff}',
            c if c == self.cr => '\r',
            c if c == self.nul => '\0',
            c => c,
        }));
        out
    }
}

/// Whether `yaml` holds a character [`mask`] replaces.
pub(super) fn needs_mask(yaml: &str) -> bool {
    let bytes = yaml.as_bytes();
    memchr::memchr(b'\0', bytes).is_some()
        || memchr::memmem::find(bytes.get(1..).unwrap_or_default(), BOM).is_some()
        || has_lone_cr(bytes)
}

/// Whether `bytes` holds a carriage return not followed by a line feed.
/// Compared pairwise in blocks without an early exit inside a block (the
/// compiler vectorises that): a search for `\r` would stop at every return
/// of a CRLF file and cost more per stop than it saves.
fn has_lone_cr(bytes: &[u8]) -> bool {
    const BLOCK: usize = 4096;
    if bytes.last() == Some(&b'\r') {
        return true;
    }
    let pairs = bytes.len().saturating_sub(1);
    (0..pairs).step_by(BLOCK).any(|start| {
        let end = (start + BLOCK).min(pairs);
        bytes[start..end]
            .iter()
            .zip(&bytes[start + 1..=end])
            .fold(false, |lone, (&c, &next)| {
                lone | ((c == b'\r') & (next != b'\n'))
            })
    })
}

/// What [`mask`] does with the byte at `at`: `None` when it keeps it.
fn replaced(bytes: &[u8], at: usize) -> Option<Replaced> {
    match bytes[at] {
        b'\r' if bytes.get(at + 1) != Some(&b'\n') => Some(Replaced::Cr),
        b'\0' => Some(Replaced::Nul),
        // A byte order mark that starts the text is the scanner's.
        0xef if at > 0 && bytes[at..].starts_with(BOM) => Some(Replaced::Bom),
        _ => None,
    }
}

enum Replaced {
    Bom,
    Cr,
    Nul,
}

/// `yaml` with its U+FEFF (after the first character), lone carriage
/// returns and U+0000 replaced by their stand-ins. The JS package reads a
/// lone carriage return as content that also counts as a separator after
/// an indicator (its `isEmpty`): `key:\r x` is `key` with the value
/// `"\r x"`, and so are `-\r`, `?\r` and a `...\r` line indicators. With
/// `separate`, a space is put in between such an indicator and the
/// stand-in, and the character indices of those spaces are returned: they
/// must not lie inside a scalar (where the return is content only, as in
/// `"k:\r"` or `a-\rb`).
pub(super) fn mask(yaml: &str, stand_ins: &StandIns, separate: bool) -> (String, Vec<usize>) {
    let bytes = yaml.as_bytes();
    // Room for a stand-in and a space in place of every byte that may be
    // replaced (counted first, so the text is not copied as it grows).
    let widest = [stand_ins.bom, stand_ins.cr, stand_ins.nul]
        .iter()
        .map(|c| c.len_utf8())
        .max()
        .unwrap_or(4);
    let found = bytes
        .iter()
        .filter(|b| matches!(b, b'\r' | b'\0' | 0xef))
        .count();
    let mut masked = String::with_capacity(yaml.len() + found * widest);
    let mut inserted = Vec::new();
    // Characters in `masked` so far.
    let mut count = 0usize;
    for (at, c) in yaml.char_indices() {
        if !matches!(c, '\r' | '\0' | '\u{feff}') {
            masked.push(c);
            count += 1;
            continue;
        }
        let out = match replaced(bytes, at) {
            None => c,
            Some(Replaced::Bom) => stand_ins.bom,
            Some(Replaced::Nul) => stand_ins.nul,
            Some(Replaced::Cr) => {
                if separate && after_indicator(bytes, at) {
                    masked.push(' ');
                    inserted.push(count);
                    count += 1;
                }
                stand_ins.cr
            }
        };
        masked.push(out);
        count += 1;
    }
    (masked, inserted)
}

/// Whether the character before `at` is an indicator a lone carriage return
/// separates from what follows: `:`, `-`, `?`, or a line that is `...` so far.
fn after_indicator(bytes: &[u8], at: usize) -> bool {
    match at.checked_sub(1).map(|i| bytes[i]) {
        Some(b':' | b'-' | b'?') => true,
        Some(b'.') => {
            at >= 3 && &bytes[at - 3..at] == b"..." && (at == 3 || bytes[at - 4] == b'\n')
        }
        _ => false,
    }
}

/// Private-use characters that `text` does not hold.
fn unused_chars(text: &str) -> impl Iterator<Item = char> {
    let used: HashSet<char> = text
        .chars()
        .filter(|c| matches!(c, '\u{e000}'..='\u{f8ff}' | '\u{f0000}'..='\u{ffffd}'))
        .collect();
    ('\u{e000}'..='\u{f8ff}')
        .chain('\u{f0000}'..='\u{ffffd}')
        .filter(move |c| !used.contains(c))
}
