//! The `/name` gesture scanner against the rule written plainly: on any text,
//! `scan_gestures` (jumps from `/` to `/`, reads names in place) and
//! `scan_gestures_by_tokens` (split at JS whitespace, keep `/name` tokens)
//! give the same names in the same order, each once, every one a skill name;
//! so do the partitioned path (reached here with small sizes) and the joined
//! answer the Node binding hands to JS.
#![no_main]

use libfuzzer_sys::fuzz_target;
use skill_core::catalog::gesture::{scan_gestures, scan_gestures_by_tokens, scan_gestures_joined, scan_gestures_tuned};
use skill_core::model::is_skill_name;

fuzz_target!(|text: &str| {
    let names = scan_gestures(text);
    assert_eq!(names, scan_gestures_by_tokens(text), "{text:?}");
    // Partition past 2 distinct names, into buckets of about 1 and 4 gestures.
    assert_eq!(names, scan_gestures_tuned(text, 2, 1), "{text:?}");
    assert_eq!(names, scan_gestures_tuned(text, 2, 4), "{text:?}");
    assert_eq!(names.join(" "), scan_gestures_joined(text), "{text:?}");
    let mut seen = std::collections::HashSet::new();
    for name in &names {
        assert!(is_skill_name(name), "{name:?}");
        assert!(seen.insert(*name), "{name:?} twice");
        assert!(text.contains(&format!("/{name}")));
    }
});
