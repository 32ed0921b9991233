//! What a merged [`Catalog`] works out on demand and keeps with it: its
//! search index ([`crate::search`]), the fingerprint of its model-facing
//! entries, and the order of the skills loaded in its view
//! ([`crate::usage`]). Kept with the catalog, none of it is ever stale: a
//! change makes a new catalog, which works everything out afresh.

use super::types::{Catalog, Winner};
use crate::cancel::CancelToken;
use crate::search::vectors::{key_of, skill_text, Key, VectorStore};
use crate::search::{Cancelled, Index, Item, Results};
use crate::usage::UsageBook;
use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::{Arc, PoisonError};
use std::time::Instant;

impl Catalog {
    /// The search index of the model-invocable skills, built on first use;
    /// `None` until every description is known
    /// ([`Catalog::has_descriptions`]). A hit's id is the skill's position
    /// in [`Catalog::entries`].
    pub fn search_index(&self) -> Option<&Index> {
        self.search_index_until(&CancelToken::new()).ok().flatten()
    }

    /// [`Catalog::search_index`], built by one thread at a time (a second
    /// caller waits for the first one's index), giving up when `cancel` is
    /// cancelled (the next caller builds it again).
    pub fn search_index_until(&self, cancel: &CancelToken) -> Result<Option<&Index>, Cancelled> {
        if !self.has_descriptions() {
            return Ok(None);
        }
        if let Some(index) = self.derived.index.get() {
            return Ok(Some(index));
        }
        let _building = self
            .derived
            .building
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(index) = self.derived.index.get() {
            return Ok(Some(index));
        }
        let index = self.build_index(cancel)?;
        Ok(Some(self.derived.index.get_or_init(|| index)))
    }

    fn build_index(&self, cancel: &CancelToken) -> Result<Index, Cancelled> {
        // The extra text of native winners: `whenToUse` and the body's
        // opening (runtime and JS-provider skills have none here).
        let extras: Vec<String> = self
            .indexed()
            .map(|(_, e)| match &e.winner {
                Winner::Native { candidate, .. } => {
                    let when = candidate.summary.when_to_use.as_deref().unwrap_or("");
                    let lead = candidate.lead.as_deref().unwrap_or("");
                    if when.is_empty() || lead.is_empty() {
                        format!("{when}{lead}")
                    } else {
                        format!("{when}\n{lead}")
                    }
                }
                _ => String::new(),
            })
            .collect();
        Index::build_until(
            self.indexed().zip(&extras).map(|((i, e), extra)| Item {
                id: u32::try_from(i).unwrap_or(u32::MAX),
                name: self.name(e),
                description: self.description(e).unwrap_or_default(),
                extra,
                rank: e.rank,
            }),
            cancel,
        )
    }

    /// The best `limit` model-invocable skills for `query` (hit ids are
    /// positions in [`Catalog::entries`]); `None` until every description
    /// is known.
    pub fn search(&self, query: &str, limit: usize) -> Option<Results> {
        self.search_until(query, limit, &CancelToken::new())
            .ok()
            .flatten()
    }

    /// [`Catalog::search`] (building the index first if need be), giving up
    /// when `cancel` is cancelled.
    pub fn search_until(
        &self,
        query: &str,
        limit: usize,
        cancel: &CancelToken,
    ) -> Result<Option<Results>, Cancelled> {
        match self.search_index_until(cancel)? {
            Some(index) => index.search_until(query, limit, cancel).map(Some),
            None => Ok(None),
        }
    }

    /// The vector-store keys of the indexed skills' texts
    /// ([`crate::search::vectors::skill_text`]), in index order; `None`
    /// until every description is known.
    pub fn vector_keys(&self) -> Option<&[Key]> {
        if !self.has_descriptions() {
            return None;
        }
        Some(self.derived.vector_keys.get_or_init(|| {
            self.indexed()
                .map(|(_, e)| {
                    key_of(&skill_text(
                        self.name(e),
                        self.description(e).unwrap_or_default(),
                    ))
                })
                .collect()
        }))
    }

    /// The texts `store` has no vector of, with their keys (each text once).
    pub fn missing_vectors(&self, store: &VectorStore) -> Option<Vec<(Key, String)>> {
        let keys = self.vector_keys()?;
        let lacks = store.lacks(keys);
        let mut seen = std::collections::HashSet::new();
        Some(
            self.indexed()
                .zip(keys)
                .zip(lacks)
                .filter(|&((_, key), lacks)| lacks && seen.insert(*key))
                .map(|(((_, e), key), _)| {
                    (
                        *key,
                        skill_text(self.name(e), self.description(e).unwrap_or_default()),
                    )
                })
                .collect(),
        )
    }

    /// [`Catalog::search_until`] by words and meaning
    /// ([`Index::search_fused`]): the skills' vectors from `store`, the
    /// query's `query_vector`.
    pub fn search_fused_until(
        &self,
        query: &str,
        limit: usize,
        cancel: &CancelToken,
        store: &VectorStore,
        query_vector: &[f32],
    ) -> Result<Option<Results>, Cancelled> {
        let Some(index) = self.search_index_until(cancel)? else {
            return Ok(None);
        };
        let vectors = store.get_all(self.vector_keys().unwrap_or_default());
        index
            .search_fused(query, limit, cancel, query_vector, &vectors)
            .map(Some)
    }

    /// The entries the search index holds (the model-invocable ones), in
    /// its order, with their positions in [`Catalog::entries`].
    fn indexed(&self) -> impl Iterator<Item = (usize, &super::types::Entry)> + '_ {
        self.entries
            .iter()
            .enumerate()
            .filter(|(_, e)| e.invocation.model_invocable)
    }

    /// A fingerprint of the model-facing entries (names, descriptions and
    /// ranks of the model-invocable skills); `None` until every description
    /// is known.
    pub fn fingerprint(&self) -> Option<u64> {
        let entries = self.model_entries()?;
        let ranks = self.indexed().map(|(_, e)| e.rank);
        Some(*self.derived.fingerprint.get_or_init(|| {
            let mut hasher = foldhash::quality::FixedState::with_seed(0x5eed).build_hasher();
            for ((name, description), rank) in entries.zip(ranks) {
                name.hash(&mut hasher);
                description.hash(&mut hasher);
                rank.to_bits().hash(&mut hasher);
            }
            hasher.finish()
        }))
    }

    /// Record that skill `name` was loaded from this catalog's view.
    pub fn record_use(&self, book: &UsageBook, name: &str) {
        book.record(&self.derived.view, name, Instant::now());
    }

    /// The skills loaded in this catalog's view, heaviest first, as frozen
    /// for these entries (see [`crate::usage`]); empty until every
    /// description is known.
    pub fn preferred(&self, book: &UsageBook) -> Arc<[String]> {
        match self.fingerprint() {
            Some(fingerprint) => book.preferred(&self.derived.view, fingerprint, Instant::now()),
            None => Arc::from(Vec::new()),
        }
    }
}
