//! The searches that find lines by their start (the closing `---`, `%`
//! directive lines, `...` lines) and the masking of characters the scanner
//! reads differently agree with plain line-by-line readings of the same text,
//! on generated, mutated and hand-made inputs.

use super::{gen_frontmatter, mutate, Rng};
use crate::frontmatter::mask::{mask, StandIns};
use crate::frontmatter::{compose, split, FrontmatterError};

/// The splitter as a line-by-line reading (how it was written before the
/// closing line was searched for).
fn split_by_lines(text: &str) -> Result<(&str, &str), FrontmatterError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let (first, mut rest) = match text.find('\n') {
        Some(i) => (&text[..i], &text[i + 1..]),
        None => (text, ""),
    };
    let delimiter = |line: &str| line == "---" || line == "---\r";
    if !delimiter(first) {
        return Err(FrontmatterError::Missing);
    }
    let yaml_start = rest;
    let mut offset = 0usize;
    while !rest.is_empty() {
        let (line, next) = match rest.find('\n') {
            Some(i) => (&rest[..i], &rest[i + 1..]),
            None => (rest, ""),
        };
        if delimiter(line) {
            return Ok((&yaml_start[..offset], next));
        }
        offset += rest.len() - next.len();
        rest = next;
    }
    Err(FrontmatterError::Unterminated)
}

/// Pieces that make or nearly make delimiter, marker and directive lines.
const PIECES: &[&str] = &[
    "---",
    "--- ",
    "----",
    "...",
    ".. ",
    "%",
    "%TAG ! x\n",
    "\n",
    "\r",
    "\r\n",
    " ",
    "\t",
    "a",
    "é",
    "\u{feff}",
    "\0",
    ":",
    "-",
    "?",
    "#",
];

/// Up to `most - 1` of [`PIECES`], chosen at random.
fn pieces(rng: &mut Rng, most: usize) -> String {
    let n = rng.below(most);
    (0..n).map(|_| *rng.pick(PIECES)).collect()
}

/// Texts built from [`PIECES`], generated frontmatters and mutations.
fn texts() -> Vec<String> {
    let mut rng = Rng::new(29);
    let mut out = Vec::new();
    for i in 0..6_000 {
        let text = match i % 3 {
            0 => pieces(&mut rng, 24),
            1 => {
                let body = pieces(&mut rng, 6);
                format!("---\n{}{body}", gen_frontmatter(&mut rng))
            }
            _ => {
                let file = format!("---\n{}---\nbody", gen_frontmatter(&mut rng));
                mutate(&mut rng, &file)
            }
        };
        out.push(text);
    }
    out
}

#[test]
fn split_finds_the_closing_line_as_a_line_by_line_reading_does() {
    for text in texts() {
        assert_eq!(split(&text), split_by_lines(&text), "{text:?}");
    }
    for text in [
        "---",
        "---\n",
        "---\n---",
        "---\n---\r",
        "---\r\n---\r\nb",
        "---\n---\r\r\n",
        "---\na\n---",
        "---\na\n--- \n---\nb",
        "\u{feff}---\n---\n",
        "---\n----\n---x\n---\r",
    ] {
        assert_eq!(split(text), split_by_lines(text), "{text:?}");
    }
}

/// The count of [`compose::directive_lines`] as a line-by-line reading.
fn directives_by_lines(yaml: &str) -> usize {
    let mut directives = 0;
    for line in yaml.split('\n') {
        if let Some(rest) = line.strip_prefix("---") {
            if rest.is_empty() || rest.starts_with([' ', '\t', '\r']) {
                break;
            }
        }
        directives += usize::from(line.starts_with('%'));
    }
    directives
}

/// [`compose::marker_lines`] as a line-by-line reading: the 0-based numbers
/// of the lines that are `...` alone or followed by a space, tab or CR.
fn marker_lines_by_lines(yaml: &str) -> Vec<usize> {
    yaml.split('\n')
        .enumerate()
        .filter(|(_, line)| {
            line.strip_prefix("...")
                .is_some_and(|m| m.is_empty() || m.starts_with([' ', '\t', '\r']))
        })
        .map(|(i, _)| i)
        .collect()
}

#[test]
fn directive_and_marker_lines_are_found_as_a_line_by_line_reading_finds_them() {
    for text in texts() {
        assert_eq!(
            compose::directive_lines(&text).count(),
            directives_by_lines(&text),
            "{text:?}"
        );
        let found: Vec<usize> = compose::marker_lines(text.as_bytes())
            .map(|at| text[..at].matches('\n').count())
            .collect();
        assert_eq!(found, marker_lines_by_lines(&text), "{text:?}");
    }
}

/// [`mask`] as a character-by-character reading (how it was written before
/// the characters it replaces were searched for).
fn mask_by_chars(yaml: &str, stand_ins: [char; 3], separate: bool) -> (String, Vec<usize>) {
    let [bom, cr, nul] = stand_ins;
    let mut masked = String::new();
    let mut inserted = Vec::new();
    let mut count = 0usize;
    let mut chars = yaml.chars().peekable();
    let mut prev: Option<char> = None;
    let mut line_len = 0usize;
    let mut first = true;
    while let Some(c) = chars.next() {
        let out = match c {
            '\u{feff}' if !first => bom,
            '\r' if chars.peek() != Some(&'\n') => {
                let dots = masked.rsplit('\n').next() == Some("...");
                let indicator = matches!(prev, Some(':' | '-' | '?'))
                    || (prev == Some('.') && line_len == 3 && dots);
                if separate && indicator {
                    masked.push(' ');
                    inserted.push(count);
                    count += 1;
                }
                cr
            }
            '\0' => nul,
            c => c,
        };
        masked.push(out);
        count += 1;
        line_len = if c == '\n' { 0 } else { line_len + 1 };
        prev = Some(c);
        first = false;
    }
    (masked, inserted)
}

#[test]
fn masking_replaces_and_separates_as_a_character_by_character_reading_does() {
    let mut extra = vec![
        "key:\r v\n...\r\n...\rx\n a...\r\n-\r\r?\r\u{feff}\u{feff}\0:\0".to_string(),
        "\u{feff}\r\u{feff}é:\r\u{e000}".to_string(),
        "...\r".to_string(),
        "\r\n\r".to_string(),
    ];
    extra.extend(texts());
    for text in extra {
        let stand_ins = StandIns::unused_in(&text);
        let chars = stand_ins.chars();
        for separate in [true, false] {
            let (masked, inserted) = mask(&text, &stand_ins, separate);
            let (expected, expected_inserted) = mask_by_chars(&text, chars, separate);
            assert_eq!(masked, expected, "{text:?}");
            if separate {
                assert_eq!(inserted, expected_inserted, "{text:?}");
            }
            // Putting the stand-ins back gives the text, but for the
            // separating spaces.
            let mut restored = stand_ins.restore(&masked);
            for at in inserted.iter().rev() {
                let byte = restored.char_indices().nth(*at).map(|(i, _)| i);
                restored.remove(byte.expect("an inserted space"));
            }
            assert_eq!(restored, text, "{text:?}");
        }
    }
}

#[test]
fn a_lone_carriage_return_is_found_wherever_it_stands() {
    use crate::frontmatter::mask::needs_mask;
    let naive = |s: &str| {
        let b = s.as_bytes();
        s.chars().skip(1).any(|c| c == '\u{feff}')
            || s.contains('\0')
            || (0..b.len()).any(|i| b[i] == b'\r' && b.get(i + 1) != Some(&b'\n'))
    };
    for text in texts() {
        assert_eq!(needs_mask(&text), naive(&text), "{text:?}");
    }
    // Around the blocks the pairs are compared in (4,096 bytes).
    for at in [0, 1, 4094, 4095, 4096, 4097, 8191, 8192, 9999] {
        let mut crlf = "a\r\n".repeat(3400).into_bytes();
        crlf.truncate(10_000);
        if crlf.last() == Some(&b'\r') {
            crlf.pop();
        }
        let clean = String::from_utf8(crlf.clone()).expect("ASCII");
        assert!(!needs_mask(&clean));
        let mut lone = crlf;
        lone[at] = b'\r';
        if lone.get(at + 1) == Some(&b'\n') {
            lone[at + 1] = b'x';
        }
        let lone = String::from_utf8(lone).expect("ASCII");
        assert!(needs_mask(&lone), "a lone CR at {at}");
    }
}
