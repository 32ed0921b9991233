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

/// A phrase's key: its three terms mixed into 64 bits (a cheap mix; a
/// rare collision only makes a word weigh a little less).
fn key(words: &[u32]) -> u64 {
    let mut h = 0x9e37_79b9_7f4a_7c15u64;
    for &w in words {
        h = (h ^ u64::from(w)).wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 29;
    }
    h
}

/// Counts the descriptions each phrase occurs in, and keeps each
/// description's phrase keys for [`Phrases::units`].
#[derive(Default)]
pub(super) struct Phrases {
    /// Each phrase's number.
    numbers: HashMap<u64, u32>,
    /// Per phrase number: the descriptions it occurs in, and the last of
    /// them (numbered from 1), so that a phrase repeated in one
    /// description counts once.
    counts: Vec<(u32, u32)>,
    /// Descriptions added so far.
    added: u32,
    /// Every description's phrase numbers, back to back, in order.
    phrases: Vec<u32>,
}

impl Phrases {
    /// Notes the phrases of the next description (each counted once).
    pub(super) fn add(&mut self, terms: &[u32]) {
        self.added += 1;
        if terms.len() < SHINGLE {
            return;
        }
        for window in terms.windows(SHINGLE) {
            let next = u32::try_from(self.counts.len()).unwrap_or(u32::MAX);
            let number = *self.numbers.entry(key(window)).or_insert(next);
            if number == next {
                self.counts.push((0, 0));
            }
            let Some((count, last)) = self.counts.get_mut(number as usize) else {
                continue;
            };
            if *last != self.added {
                *last = self.added;
                *count += 1;
            }
            self.phrases.push(number);
        }
    }

    /// The units each word of the descriptions' terms counts, into `out`,
    /// for each description in the order they were added (`at`: how many
    /// phrases the descriptions before this one had; advanced).
    pub(super) fn units(&self, terms: &[u32], floor: u32, at: &mut usize, out: &mut Vec<u8>) {
        out.clear();
        out.resize(terms.len(), UNITS);
        if terms.len() < SHINGLE {
            return;
        }
        let windows = terms.len() - SHINGLE + 1;
        let phrases = &self.phrases[*at..*at + windows];
        *at += windows;
        for (i, &number) in phrases.iter().enumerate() {
            if self
                .counts
                .get(number as usize)
                .is_some_and(|&(n, _)| n >= floor)
            {
                for unit in &mut out[i..i + SHINGLE] {
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
        let (mut units, mut at) = (Vec::new(), 0);
        phrases.units(&[1, 2, 3, 100], shared_floor(11), &mut at, &mut units);
        assert_eq!(
            units,
            [TEMPLATE_UNITS, TEMPLATE_UNITS, TEMPLATE_UNITS, UNITS]
        );
        for own in 101..110 {
            phrases.units(&[1, 2, 3, own], shared_floor(11), &mut at, &mut units);
        }
        phrases.units(&[1, 2, 4, 5], shared_floor(11), &mut at, &mut units);
        assert_eq!(units, [UNITS; 4]);
        // A phrase repeated inside one description counts once.
        let (mut once, mut at) = (Phrases::default(), 0);
        once.add(&[7, 8, 9, 7, 8, 9, 7, 8, 9]);
        once.units(&[7, 8, 9, 7, 8, 9, 7, 8, 9], 2, &mut at, &mut units);
        assert_eq!(units, [UNITS; 9]);
    }
}
