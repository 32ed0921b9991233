//! The `/name` gesture scanner against the rule written plainly: on any text,
//! `scan_gestures` (jumps from `/` to `/`, reads names in place) and
//! `scan_gestures_by_tokens` (split at JS whitespace, keep `/name` tokens)
//! give the same names in the same order, each once, every one a skill name.
#![no_main]

use libfuzzer_sys::fuzz_target;
use skill_core::catalog::gesture::{scan_gestures, scan_gestures_by_tokens};
use skill_core::model::is_skill_name;

fuzz_target!(|text: &str| {
    let names = scan_gestures(text);
    assert_eq!(names, scan_gestures_by_tokens(text), "{text:?}");
    let mut seen = std::collections::HashSet::new();
    for name in &names {
        assert!(is_skill_name(name), "{name:?}");
        assert!(seen.insert(*name), "{name:?} twice");
        assert!(text.contains(&format!("/{name}")));
    }
});
