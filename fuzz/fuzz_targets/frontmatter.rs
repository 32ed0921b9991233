//! The skill-file reader on arbitrary text: the splitter, the fast reader and
//! the full composer. It must never panic, the fast reader must agree with the
//! composer, and a refused budget must be refused quickly.
#![no_main]

use libfuzzer_sys::fuzz_target;
use skill_core::frontmatter;

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
        let _ = frontmatter::split(input);
    }
});
