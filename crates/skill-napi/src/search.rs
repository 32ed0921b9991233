//! Binding for `skill_core::search` on a registry catalog: search, the
//! did-you-mean of a query that matched nothing, and the loads that feed the
//! `prefer: 'used'` budget priority.

use crate::catalog::UNSUPPLIED;
use crate::registry::NativeCatalog;
use crate::util::invalid_arg;
use napi::bindgen_prelude::Float64Array;
use napi_derive::napi;

/// The best matches of a query.
#[napi(object, object_from_js = false)]
pub struct NapiSearchResults {
    /// Three numbers per hit, best first: the skill's position in the
    /// catalog (as in its winners), its score, and 1 when the query is its
    /// name (else 0).
    pub hits: Float64Array,
    /// How many model-invocable skills matched.
    pub total: f64,
}

#[napi]
impl NativeCatalog {
    /// The best `limit` model-invocable skills for `query`. Throws while
    /// the runtime and JS-provider descriptions are still to be supplied.
    #[napi(catch_unwind)]
    pub fn search(&self, query: String, limit: u32) -> napi::Result<NapiSearchResults> {
        let results = self
            .catalog()
            .search(&query, limit as usize)
            .ok_or_else(|| invalid_arg(UNSUPPLIED))?;
        let mut hits = Vec::with_capacity(results.hits.len() * 3);
        for hit in &results.hits {
            hits.extend([f64::from(hit.id), hit.score, f64::from(u8::from(hit.exact))]);
        }
        Ok(NapiSearchResults {
            hits: Float64Array::new(hits),
            total: results.total as f64,
        })
    }

    /// `query` with its words that match nothing replaced by the closest
    /// indexed words, or `null` when none could be corrected.
    #[napi(catch_unwind)]
    pub fn suggest(&self, query: String) -> napi::Result<Option<String>> {
        let index = self
            .catalog()
            .search_index()
            .ok_or_else(|| invalid_arg(UNSUPPLIED))?;
        Ok(index.suggest(&query))
    }

    /// Record that skill `name` was loaded from this catalog's view.
    #[napi(catch_unwind)]
    pub fn record_use(&self, name: String) {
        self.catalog().record_use(self.usage(), &name);
    }
}
