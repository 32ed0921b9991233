//! The skill-file reader on arbitrary text: the splitter, the fast reader and
//! the full composer. It must never panic, the fast reader must agree with the
//! composer, the splitter (a search for `\n---`) with a line-by-line reading,
//! and a refused budget must be refused quickly.
#![no_main]

use libfuzzer_sys::fuzz_target;
use skill_core::frontmatter::{self, FrontmatterError};

/// The splitter's rule read line by line: the first line is `---` (a CR
/// before its line feed tolerated, a leading byte order mark skipped), the
/// frontmatter ends at the next line that is `---`.
fn split_by_lines(text: &str) -> Result<(&str, &str), FrontmatterError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let delimiter = |line: &str| line == "---" || line == "---\r";
    let (first, rest) = text.split_once('\n').unwrap_or((text, ""));
    if !delimiter(first) {
        return Err(FrontmatterError::Missing);
    }
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if delimiter(line.strip_suffix('\n').unwrap_or(line)) {
            return Ok((&rest[..offset], &rest[offset + line.len()..]));
        }
        offset += line.len();
    }
    Err(FrontmatterError::Unterminated)
}

fuzz_target!(|data: &[u8]| {
    // Bytes that are not UTF-8 are read as the local provider reads a file:
    // each invalid sequence as U+FFFD.
    let text = String::from_utf8_lossy(data);
    let text: &str = &text;
    // Also try the text as a frontmatter on its own, so that mutations do not
    // have to keep the `---` lines intact to reach the YAML reader.
    let wrapped = format!("---\n{text}\n---\nbody");
    for input in [text, wrapped.as_str()] {
        let fast_or_full = frontmatter::parse(input);
        let full = frontmatter::parse_with_full_reader(input);
        assert_eq!(fast_or_full, full, "fast and full readers differ");
        assert_eq!(frontmatter::split(input), split_by_lines(input), "splitters differ");
    }
});
