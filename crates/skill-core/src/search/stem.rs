//! Stems: the Snowball English (Porter2) stemmer of the `rust-stemmers`
//! crate, so that `deploying`, `deployed`, `deploys` and `deployment` meet
//! on `deploy`, and `configuration`, `configure` and `configuring` on
//! `configur`.
//!
//! Stems are not words, only keys: what matters is that a query and a
//! description meet on the same one. Only ASCII words of three letters or
//! more are stemmed (Porter2 is an English stemmer; other words, numbers
//! and Han pairs are kept as they are).
//!
//! It replaced a handful of hand-written suffix rules: measured on the
//! need-style query set (`bench/search-quality.mjs`), the hand-written
//! rules cut some words too far (`documentation` → `docu…`) and, with
//! prefix matching, spread the cut word over unrelated skills.

use rust_stemmers::{Algorithm, Stemmer};
use std::borrow::Cow;
use std::sync::OnceLock;

fn stemmer() -> &'static Stemmer {
    static STEMMER: OnceLock<Stemmer> = OnceLock::new();
    STEMMER.get_or_init(|| Stemmer::create(Algorithm::English))
}

/// The stem of a folded word (see the module docs).
pub fn stem(word: &str) -> Cow<'_, str> {
    if word.len() < 3 || !word.bytes().all(|b| b.is_ascii_lowercase()) {
        return Cow::Borrowed(word);
    }
    stemmer().stem(word)
}

#[cfg(test)]
mod tests {
    use super::stem;

    #[test]
    fn inflections_meet() {
        for (a, b) in [
            ("deploying", "deploy"),
            ("deployed", "deploy"),
            ("deployment", "deploy"),
            ("configuration", "configure"),
            ("configuring", "configure"),
            ("linters", "linter"),
            ("databases", "database"),
            ("migrations", "migrate"),
        ] {
            assert_eq!(stem(a), stem(b), "{a} / {b}");
        }
    }

    #[test]
    fn words_it_must_not_merge_or_cut() {
        assert_ne!(stem("documentation"), stem("documint"));
        assert_ne!(stem("customers"), stem("customjs"));
        assert_eq!(stem("pdf"), "pdf");
        assert_eq!(stem("k8s"), "k8s");
        assert_eq!(stem("部署"), "部署");
        assert_eq!(stem("as"), "as");
    }
}
