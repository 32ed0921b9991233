//! Shared phrases: words that a big collection's templated descriptions
//! repeat ("Automate X tasks via Rube MCP (Composio). Always search tools
//! first for current schemas.", 759 skills of one public collection) say
//! nothing about one skill in particular, so they weigh little.
//!
//! A description word is *templated* when a run of [`SHINGLE`] words it
//! belongs to (the words' terms, in order) occurs in at least
//! [`shared_floor`] descriptions. Its occurrence then counts
//! [`TEMPLATE_UNITS`] of [`UNITS`] (a quarter), both for the word's
//! frequency and for the description's length, so what is particular to the
//! skill (the `X` above) keeps its weight.

use foldhash::HashMap;
use std::hash::{BuildHasher, Hash, Hasher};

/// Words per phrase.
pub(super) const SHINGLE: usize = 3;
/// What one occurrence of a word counts.
pub(super) const UNITS: u8 = 4;
/// What one occurrence of a templated word counts.
pub(super) const TEMPLATE_UNITS: u8 = 1;

/// Descriptions a phrase must occur in to be shared: at least 8, and at
/// least one in 200 of the catalog.
pub(super) fn shared_floor(docs: usize) -> u32 {
    u32::try_from(docs / 200).unwrap_or(u32::MAX).max(8)
}

fn key(words: &[u32]) -> u64 {
    let mut h = foldhash::quality::FixedState::with_seed(0x7e3a).build_hasher();
    words.hash(&mut h);
    h.finish()
}

/// Counts, over every description (`descriptions` yields each one's terms),
/// the descriptions each phrase occurs in.
#[derive(Default)]
pub(super) struct Phrases {
    counts: HashMap<u64, u32>,
    seen: Vec<u64>,
}

impl Phrases {
    /// Notes the phrases of one description (each counted once).
    pub(super) fn add(&mut self, terms: &[u32]) {
        if terms.len() < SHINGLE {
            return;
        }
        self.seen.clear();
        self.seen.extend(terms.windows(SHINGLE).map(key));
        self.seen.sort_unstable();
        self.seen.dedup();
        for &k in &self.seen {
            *self.counts.entry(k).or_insert(0) += 1;
        }
    }

    /// The units each word of `terms` (one description) counts, into `out`.
    pub(super) fn units(&self, terms: &[u32], floor: u32, out: &mut Vec<u8>) {
        out.clear();
        out.resize(terms.len(), UNITS);
        if terms.len() < SHINGLE || self.counts.is_empty() {
            return;
        }
        for (at, window) in terms.windows(SHINGLE).enumerate() {
            if self.counts.get(&key(window)).is_some_and(|&n| n >= floor) {
                for unit in &mut out[at..at + SHINGLE] {
                    *unit = TEMPLATE_UNITS;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_words_of_shared_phrases_weigh_less() {
        let mut phrases = Phrases::default();
        // 1 2 3 is in ten descriptions, each with its own word after it.
        for own in 100..110 {
            phrases.add(&[1, 2, 3, own]);
        }
        phrases.add(&[1, 2, 4, 5]);
        let mut units = Vec::new();
        phrases.units(&[1, 2, 3, 100], shared_floor(11), &mut units);
        assert_eq!(
            units,
            [TEMPLATE_UNITS, TEMPLATE_UNITS, TEMPLATE_UNITS, UNITS]
        );
        phrases.units(&[1, 2, 4, 5], shared_floor(11), &mut units);
        assert_eq!(units, [UNITS; 4]);
        // A phrase repeated inside one description counts once.
        let mut once = Phrases::default();
        once.add(&[7, 8, 9, 7, 8, 9, 7, 8, 9]);
        once.units(&[7, 8, 9], 2, &mut units);
        assert_eq!(units, [UNITS; 3]);
    }
}
