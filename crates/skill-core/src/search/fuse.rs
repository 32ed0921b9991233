//! Words and meaning together: the word ranking ([`super::score`]) and the
//! cosine similarity between the query's vector and the skills' (from an
//! embedding model, [`super::vectors`]). The candidates are the first
//! [`CANDIDATES`] by words and the first [`CANDIDATES`] by meaning (a
//! cosine of at least [`MIN_COSINE`]); each scores [`MEANING`] times its
//! cosine plus `1 - MEANING` times its word score over the best word score
//! of the query (0 when it is not a word candidate). A query that is a
//! skill's name still puts that skill first.
//!
//! Measured on the need-style query set (`bench/search-quality.mjs`, 60
//! queries over 1,479 skills), first / first three / first five:
//! reciprocal rank fusion (`1 / (60 + rank)` summed) 68 / 92 / 95 %; this
//! weighted sum 77 / 92 / 97 %, and 73-75 % first for weights of 0.65 to
//! 0.75 and floors of 0.2 to 0.3 around the chosen ones (chosen on that
//! same set, so the figure may flatter it a little).

use super::index::{Cancelled, Index};
use super::score::{Ranked, Results};
use crate::cancel::CancelToken;
use std::sync::Arc;

/// The weight of meaning (the cosine) against words.
pub const MEANING: f64 = 0.7;
/// How many of each ranking take part.
pub const CANDIDATES: usize = 50;
/// Least cosine for a skill to be a candidate by meaning.
pub const MIN_COSINE: f32 = 0.3;

/// Sum of products, in 8 lanes (an in-order sum would not vectorise: a
/// 1,500-skill catalog took 0.7 ms of scalar adds per search).
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut lanes = [0f32; 8];
    let (a8, b8) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = a8
        .remainder()
        .iter()
        .zip(b8.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in a8.zip(b8) {
        for i in 0..8 {
            lanes[i] += x[i] * y[i];
        }
    }
    lanes.iter().sum::<f32>() + tail
}

impl Index {
    /// The best `limit` matches of `query` by words and meaning: `vectors`
    /// holds each indexed skill's vector, in index order (`None` for a
    /// skill not embedded yet: it takes part by its words alone);
    /// `query_vector` is the query's, of the same model. The total counts
    /// every skill the words match and those found by meaning alone (of
    /// the meaning's candidates): what an unlimited search would return.
    pub fn search_fused(
        &self,
        query: &str,
        limit: usize,
        cancel: &CancelToken,
        query_vector: &[f32],
        vectors: &[Option<Arc<[f32]>>],
    ) -> Result<Results, Cancelled> {
        let mut words = self.rank_words(query, cancel)?;
        if cancel.is_cancelled() {
            return Err(Cancelled);
        }
        let mut meaning: Vec<(u32, f32)> = vectors
            .iter()
            .enumerate()
            .take(self.len())
            .filter_map(|(d, v)| {
                let v = v.as_deref().filter(|v| v.len() == query_vector.len())?;
                let cosine = dot(v, query_vector);
                (cosine >= MIN_COSINE).then_some((d as u32, cosine))
            })
            .collect();
        let by_cosine = |a: &(u32, f32), b: &(u32, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        if meaning.len() > CANDIDATES {
            meaning.select_nth_unstable_by(CANDIDATES, by_cosine);
            meaning.truncate(CANDIDATES);
        }
        meaning.sort_by(by_cosine);
        // Every skill the words match, and those only the meaning finds
        // (before the words are cut to their candidates).
        let mut by_doc: Vec<u32> = meaning.iter().map(|&(doc, _)| doc).collect();
        by_doc.sort_unstable();
        let meaning_and_words = words
            .iter()
            .filter(|r| by_doc.binary_search(&r.doc).is_ok())
            .count();
        let total = words.len() + meaning.len() - meaning_and_words;
        self.keep_best(&mut words, CANDIDATES.max(limit));
        let best = words.iter().map(|r| r.score).fold(0f64, f64::max);
        let best = if best > 0.0 { best } else { 1.0 };
        let mut fused: Vec<Ranked> = words
            .iter()
            .map(|r| Ranked {
                doc: r.doc,
                score: (1.0 - MEANING) * r.score / best,
                exact: r.exact,
            })
            .collect();
        for &(doc, cosine) in &meaning {
            let score = MEANING * f64::from(cosine);
            match fused.iter_mut().find(|r| r.doc == doc) {
                Some(r) => r.score += score,
                None => fused.push(Ranked {
                    doc,
                    score,
                    exact: false,
                }),
            }
        }
        self.keep_best(&mut fused, limit);
        Ok(self.results(fused, total))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meaning_finds_what_shares_no_word_and_the_name_stays_first() {
        let items = [
            ("resume-tailor", "Fit a curriculum vitae to a job advert."),
            ("pdf", "Fill PDF forms."),
            ("cv-tools", "Computer vision helpers."),
        ];
        let index = Index::build(crate::search::tests::items_of(&items));
        // Pretend vectors: the query means what resume-tailor does.
        let vectors: Vec<Option<Arc<[f32]>>> = vec![
            Some(Arc::from([1.0f32, 0.0])),
            Some(Arc::from([0.0f32, 1.0])),
            None,
        ];
        let q = [0.9f32, 0.1];
        let cancel = CancelToken::new();
        let hits = index
            .search_fused("my CV for this job", 5, &cancel, &q, &vectors)
            .expect("not cancelled")
            .hits;
        assert_eq!(hits[0].id, 0, "{hits:?}");
        // "pdf" is below the cosine floor and shares no word: not a hit.
        assert!(!hits.iter().any(|h| h.id == 1), "{hits:?}");
        // The exact name wins whatever the vectors say.
        let hits = index
            .search_fused("cv-tools", 5, &cancel, &q, &vectors)
            .expect("not cancelled")
            .hits;
        assert_eq!((hits[0].id, hits[0].exact), (2, true));
        // A vector of another length is ignored.
        let hits = index
            .search_fused("curriculum", 5, &cancel, &[1.0, 0.0, 0.0], &vectors)
            .expect("not cancelled")
            .hits;
        assert_eq!(hits.iter().map(|h| h.id).collect::<Vec<_>>(), [0]);
        cancel.cancel();
        assert!(index.search_fused("cv", 5, &cancel, &q, &vectors).is_err());
    }

    #[test]
    fn the_total_counts_every_word_match_and_the_meaning_only_ones() {
        // More word matches than word candidates; three skills near the
        // query's meaning, one of them a word match too.
        let matches = CANDIDATES + 20;
        let mut items: Vec<(String, String)> = (0..matches)
            .map(|i| (format!("deploy-{i}"), format!("Deploy service {i}.")))
            .collect();
        items.push(("ship-it".into(), "Roll a release out.".into()));
        items.push(("rollout".into(), "Push a new version live.".into()));
        items.push(("notes".into(), "Keep notes.".into()));
        let index = Index::build(crate::search::tests::items_of(&items));
        let near: Option<Arc<[f32]>> = Some(Arc::from([1.0f32, 0.0]));
        let far: Option<Arc<[f32]>> = Some(Arc::from([0.0f32, 1.0]));
        let mut vectors = vec![far; items.len()];
        vectors[3] = near.clone();
        vectors[matches] = near.clone();
        vectors[matches + 1] = near;
        let cancel = CancelToken::new();
        let q = [1.0f32, 0.0];
        let fused = index
            .search_fused("deploy", 5, &cancel, &q, &vectors)
            .expect("not cancelled");
        assert_eq!(fused.hits.len(), 5);
        assert_eq!(fused.total, matches + 2);
        // What an unlimited search returns.
        let all = index
            .search_fused("deploy", usize::MAX, &cancel, &q, &vectors)
            .expect("not cancelled");
        assert_eq!((all.hits.len(), all.total), (matches + 2, matches + 2));
        // Words alone count the same word matches.
        assert_eq!(index.search("deploy", 5).total, matches);
    }
}
