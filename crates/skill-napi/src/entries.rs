//! Binding for published catalog entries kept on the native side, and the
//! deltas between them (see `skill_core::catalog::delta`). The `skill` tool
//! plugin holds the catalog a model was last given as a [`NativeEntries`] and
//! asks it what changed: only the changes cross into JS.

// Unit-test builds do not register the exports, which then look unused.
#![cfg_attr(test, allow(dead_code))]

use crate::catalog::{NapiCatalogReport, NapiLayout};
use crate::registry::NativeCatalog;
use crate::structured::{unpack16, with_structured, Text16};
use crate::util::invalid_arg;
use napi::bindgen_prelude::{ClassInstance, Uint32Array, Utf16String};
use napi_derive::napi;
use skill_core::catalog::delta::{self, Delta};
use skill_core::catalog::structured::StructuredEntries;
use std::sync::OnceLock;

/// A catalog's structured entries (name order) and their digest, hashed
/// when first asked for (a chain of recorded deltas needs only the last).
#[napi]
pub struct NativeEntries {
    entries: StructuredEntries,
    digest: OnceLock<String>,
}

impl NativeEntries {
    fn new(entries: StructuredEntries) -> Self {
        Self {
            entries,
            digest: OnceLock::new(),
        }
    }
}

/// Entries packed as JS reads them: every name and description back to back.
#[napi(object, object_from_js = false)]
pub struct NapiPacked {
    /// Every name and description back to back.
    #[napi(ts_type = "string")]
    pub units: Text16,
    /// Code units of each name and description.
    pub lengths: Uint32Array,
}

impl From<StructuredEntries> for NapiPacked {
    fn from(entries: StructuredEntries) -> Self {
        Self {
            units: Text16(entries.units),
            lengths: Uint32Array::new(entries.lengths),
        }
    }
}

/// What changed between two catalogs (the removed entries have empty descriptions).
#[napi(object, object_from_js = false)]
pub struct NapiDelta {
    pub added: NapiPacked,
    pub changed: NapiPacked,
    pub removed: NapiPacked,
}

/// Entries packed like skills (chunks of text, UTF-16 lengths in pairs).
fn packed(chunks: &[Utf16String], lengths: &Uint32Array) -> napi::Result<StructuredEntries> {
    let pairs = unpack16(chunks, lengths.as_ref()).map_err(invalid_arg)?;
    Ok(StructuredEntries::from_pairs(pairs))
}

#[napi]
impl NativeEntries {
    /// Entries given packed like skills (names need not be skill names), in
    /// the order given.
    #[napi(factory, catch_unwind)]
    pub fn from_packed(chunks: Vec<Utf16String>, lengths: Uint32Array) -> napi::Result<Self> {
        Ok(Self::new(packed(&chunks, &lengths)?))
    }

    /// Digest of the entries.
    #[napi(getter, catch_unwind)]
    pub fn digest(&self) -> String {
        self.digest.get_or_init(|| self.entries.digest()).clone()
    }

    /// Number of entries.
    #[napi(getter, catch_unwind)]
    pub fn count(&self) -> u32 {
        u32::try_from(self.entries.len()).unwrap_or(u32::MAX)
    }

    /// Whether the names are strictly increasing (deltas apply only then).
    #[napi(catch_unwind)]
    pub fn in_name_order(&self) -> bool {
        delta::in_name_order(&self.entries)
    }

    /// The entries, packed.
    #[napi(catch_unwind)]
    pub fn packed(&self) -> NapiPacked {
        self.entries.clone().into()
    }

    /// What changed from these entries to `after` (both in name order).
    #[napi(catch_unwind)]
    pub fn diff(&self, after: &NativeEntries) -> NapiDelta {
        let Delta {
            added,
            changed,
            removed,
        } = delta::diff(&self.entries, &after.entries);
        NapiDelta {
            added: added.into(),
            changed: changed.into(),
            removed: removed.into(),
        }
    }

    /// The entries after a recorded delta (each list packed like skills;
    /// removed names with empty descriptions), or `null` when it does not fit.
    #[napi(catch_unwind)]
    #[allow(clippy::too_many_arguments)]
    pub fn apply(
        &self,
        added: Vec<Utf16String>,
        added_lengths: Uint32Array,
        changed: Vec<Utf16String>,
        changed_lengths: Uint32Array,
        removed: Vec<Utf16String>,
        removed_lengths: Uint32Array,
    ) -> napi::Result<Option<NativeEntries>> {
        let delta = Delta {
            added: packed(&added, &added_lengths)?,
            changed: packed(&changed, &changed_lengths)?,
            removed: packed(&removed, &removed_lengths)?,
        };
        if !delta::in_name_order(&self.entries) {
            return Ok(None);
        }
        Ok(delta::apply(&self.entries, &delta).map(NativeEntries::new))
    }
}

/// Structured entries kept natively, their digest and the report.
#[napi(object, object_from_js = false)]
pub struct NapiStructuredNative {
    pub entries: NativeEntries,
    pub digest: String,
    pub report: NapiCatalogReport,
}

/// The structured catalog of the model-invocable skills, its entries kept on
/// the native side (see `structuredRender` for the arguments).
#[napi(catch_unwind, js_name = "structuredNative")]
pub fn structured_native(
    registry: Option<ClassInstance<NativeCatalog>>,
    chunks: Vec<Utf16String>,
    lengths: Uint32Array,
    layout: NapiLayout,
) -> napi::Result<NapiStructuredNative> {
    with_structured(registry.as_deref(), &chunks, &lengths, layout, |c| {
        let structured = c.render();
        NapiStructuredNative {
            digest: structured.digest.clone(),
            report: structured.report.into(),
            entries: NativeEntries {
                entries: structured.entries,
                digest: OnceLock::from(structured.digest),
            },
        }
    })
}
