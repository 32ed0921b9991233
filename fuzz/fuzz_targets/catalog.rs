//! The catalog renderer and digest on arbitrary skills: never a panic, one
//! entry line per model-invocable skill, and the digest recovered from a
//! rendered message is the digest of its entries.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use skill_core::catalog::{self, Catalog, MessageKind};
use skill_core::model::{is_skill_name, ResourceBase};

#[derive(Arbitrary, Debug)]
struct Input {
    max_len: u16,
    skills: Vec<(Vec<u8>, String)>,
    visible: Option<String>,
    published: bool,
    content: String,
}

/// A kebab-case name from arbitrary bytes (most bytes map to a letter or digit).
fn name(bytes: &[u8]) -> String {
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789-";
    bytes
        .iter()
        .map(|b| ALPHABET[*b as usize % ALPHABET.len()] as char)
        .collect()
}

fuzz_target!(|input: Input| {
    let names: Vec<String> = input.skills.iter().map(|(n, _)| name(n)).collect();
    let skills: Vec<(&str, &str)> = names
        .iter()
        .zip(&input.skills)
        .filter(|(n, _)| is_skill_name(n))
        .map(|(n, (_, d))| (n.as_str(), d.as_str()))
        .collect();
    let Ok(cat) = Catalog::new(skills.iter().copied(), usize::from(input.max_len)) else {
        assert!(input.max_len < 3, "only a max length below 3 is refused");
        return;
    };
    let entries = cat.entries();
    let digest = cat.digest();
    assert_eq!(digest, catalog::digest_hex(&entries));
    let lines = if entries.is_empty() { 0 } else { entries.split('\n').count() };
    assert_eq!(lines, skills.len(), "one line per entry");
    for kind in [MessageKind::Initial, MessageKind::Replacement] {
        let rendered = cat.message(kind);
        assert_eq!(rendered.digest, digest);
        assert_eq!(catalog::content_digest(&rendered.text).as_deref(), Some(digest.as_str()));
    }
    if let Some(update) = catalog::plan_step(&cat, input.visible.as_deref(), input.published) {
        assert_eq!(catalog::content_digest(&update.text).as_deref(), Some(update.digest.as_str()));
    }
    let base = ResourceBase::Url { url: input.content.clone() };
    for (n, d) in skills.iter().take(4) {
        let text = catalog::render_skill_content(n, d, Some(&base), &input.content);
        assert!(text.ends_with("</skill_instructions>\n</skill_content>"));
    }
});
