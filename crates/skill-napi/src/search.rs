//! Binding for `skill_core::search` on a registry catalog: search (with the
//! did-you-mean of a query that matched nothing) on the libuv pool, so that
//! building the index of a large catalog never holds the JS thread, with a
//! cancel handle an `AbortSignal` drives; and the loads that feed the
//! `prefer: 'used'` budget priority.

use crate::catalog::UNSUPPLIED;
use crate::embed::NativeVectors;
use crate::registry::NativeCatalog;
use crate::util::{failure, guard, invalid_arg};
use napi::bindgen_prelude::{AsyncTask, Float32Array, Float64Array};
use napi::{Env, Task};
use napi_derive::napi;
use skill_core::cancel::CancelToken;
use skill_core::registry::Catalog;
use skill_core::search::vectors::VectorStore;
use std::sync::Arc;

/// The best matches of a query.
#[napi(object, object_from_js = false)]
pub struct NapiSearchResults {
    /// Three numbers per hit, best first: the skill's position in the
    /// catalog (as in its winners), its score, and 1 when the query is its
    /// name (else 0).
    pub hits: Float64Array,
    /// How many model-invocable skills matched.
    pub total: f64,
    /// When nothing matched: the query with its unknown words replaced by
    /// the closest indexed words, if any could be.
    pub suggestion: Option<String>,
}

/// Cancels the searches it was handed to (an `AbortSignal`'s `abort`).
#[napi]
#[derive(Default)]
pub struct SearchCancel {
    token: CancelToken,
}

#[napi]
impl SearchCancel {
    /// A handle that has not cancelled anything yet.
    #[napi(constructor)]
    pub fn new() -> Self {
        Self::default()
    }

    /// Cancel: a search still running gives up at its next check.
    #[napi(catch_unwind)]
    pub fn cancel(&self) {
        self.token.cancel();
    }
}

impl SearchCancel {
    /// The token the work polls.
    pub(crate) fn token(&self) -> CancelToken {
        self.token.clone()
    }
}

/// One search on the libuv pool.
pub struct SearchTask {
    catalog: Arc<Catalog>,
    query: String,
    limit: usize,
    cancel: CancelToken,
    /// The skills' vectors and the query's, to fuse meaning with words.
    semantic: Option<(Arc<VectorStore>, Vec<f32>)>,
}

/// What a search found, before it crosses to JS.
pub struct Found {
    hits: Vec<f64>,
    total: usize,
    suggestion: Option<String>,
}

impl Task for SearchTask {
    type Output = Found;
    type JsValue = NapiSearchResults;

    fn compute(&mut self) -> napi::Result<Found> {
        guard(|| {
            let results = match &self.semantic {
                Some((store, vector)) => self.catalog.search_fused_until(
                    &self.query,
                    self.limit,
                    &self.cancel,
                    store,
                    vector,
                ),
                None => self
                    .catalog
                    .search_until(&self.query, self.limit, &self.cancel),
            }
            .map_err(failure)?
            .ok_or_else(|| invalid_arg(UNSUPPLIED))?;
            let mut hits = Vec::with_capacity(results.hits.len() * 3);
            for hit in &results.hits {
                hits.extend([f64::from(hit.id), hit.score, f64::from(u8::from(hit.exact))]);
            }
            let suggestion = match results.total {
                0 => self
                    .catalog
                    .search_index()
                    .and_then(|index| index.suggest(&self.query)),
                _ => None,
            };
            Ok(Found {
                hits,
                total: results.total,
                suggestion,
            })
        })
    }

    fn resolve(&mut self, _env: Env, found: Found) -> napi::Result<NapiSearchResults> {
        Ok(NapiSearchResults {
            hits: Float64Array::new(found.hits),
            total: found.total as f64,
            suggestion: found.suggestion,
        })
    }
}

#[napi]
impl NativeCatalog {
    /// The best `limit` model-invocable skills for `query`, worked out on
    /// the libuv pool (the index is built there on the first search of the
    /// catalog); `cancel` makes it give up. With `vectors` and the query's
    /// `queryVector` (of the same model), meaning is fused with words.
    /// Throws while the runtime and JS-provider descriptions are still to
    /// be supplied.
    #[napi(catch_unwind, ts_return_type = "Promise<NapiSearchResults>")]
    pub fn search(
        &self,
        query: String,
        limit: u32,
        cancel: Option<&SearchCancel>,
        vectors: Option<&NativeVectors>,
        query_vector: Option<Float32Array>,
    ) -> napi::Result<AsyncTask<SearchTask>> {
        if !self.catalog().has_descriptions() {
            return Err(invalid_arg(UNSUPPLIED));
        }
        let semantic = match (vectors, query_vector) {
            (Some(v), Some(q)) => Some((Arc::clone(&v.store), q.to_vec())),
            _ => None,
        };
        Ok(AsyncTask::new(SearchTask {
            catalog: self.shared(),
            query,
            limit: limit as usize,
            cancel: cancel.map(SearchCancel::token).unwrap_or_default(),
            semantic,
        }))
    }

    /// Record that skill `name` was loaded from this catalog's view.
    #[napi(catch_unwind)]
    pub fn record_use(&self, name: String) {
        self.catalog().record_use(self.usage(), &name);
    }
}
