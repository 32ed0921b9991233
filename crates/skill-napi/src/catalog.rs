//! Binding for the catalog renderer (see `skill_core::catalog`).
//!
//! Catalog inputs cross the boundary packed (the JS layer in `lib/catalog.js`
//! builds them): a few strings ("chunks") holding every model-invocable name and
//! description back to back, and a `Uint32Array` of their lengths in UTF-16 code
//! units (`[name0, description0, name1, description1, ...]`, JS `.length`). A
//! handful of string conversions and one borrowed typed array replace thousands of
//! property reads. Chunks stay small (a pair never spans two) so V8 builds them in
//! its regular heap: one string of the whole catalog would land in large-object
//! space, which costs more than the rest of the packing.
//!
//! When the skills are an array the registry returned, and still hold what it
//! returned, JS passes the registry's `NativeCatalog` instead (first argument;
//! the chunks are then empty): the names and descriptions are read in place from
//! the merged catalog, and nothing is packed or converted.
//!
//! Every render export takes `(registry, chunks, lengths, layout)` and then its
//! own arguments; `layout` is `{ max, budget, pinned, sources, origins }`
//! (`budget` undefined for an unbudgeted catalog, and then `pinned` is
//! ignored). `sources` and `origins` give each model-invocable skill its
//! source label (`origins[k]` indexes `sources`, one per entry in input
//! order); with them the report counts per source and a budget gives way by
//! rank: the registry's ranks for its own catalog, the ranks the source labels
//! stand for otherwise (`skill_core::catalog::source_rank`).

// Unit-test builds do not register the exports, which then look unused.
#![cfg_attr(test, allow(dead_code))]

use crate::registry::NativeCatalog;
use crate::util::invalid_arg;
use napi::bindgen_prelude::{ClassInstance, ToNapiValue, Uint32Array};
use napi_derive::napi;
use skill_core::catalog::{
    self, Budget, Catalog, CatalogError, CatalogReport, ContentLayout, Entries, MessageKind,
    Origin, SourceReport,
};
use skill_core::local::Source;
use skill_core::model::ResourceBase;
use skill_core::registry::Winner;

/// A string returned to JS; ASCII text (the usual catalog) is handed over as
/// Latin-1, which V8 copies as is instead of decoding UTF-8.
pub struct Text(pub(crate) String);

/// A JS string of the Latin-1 `bytes` (copied).
///
/// # Safety
/// `env` must be a valid environment of the current call.
pub(crate) unsafe fn latin1_string(
    env: napi::sys::napi_env,
    bytes: &[u8],
) -> napi::Result<napi::sys::napi_value> {
    let mut value = std::ptr::null_mut();
    // SAFETY: `env` is valid per the caller's contract; the pointer and length
    // describe `bytes`, copied by the call.
    let status = unsafe {
        napi::sys::napi_create_string_latin1(
            env,
            bytes.as_ptr().cast(),
            bytes.len() as isize,
            &mut value,
        )
    };
    if status == napi::sys::Status::napi_ok {
        Ok(value)
    } else {
        Err(napi::Error::new(
            napi::Status::GenericFailure,
            "failed to create a JS string",
        ))
    }
}

impl ToNapiValue for Text {
    unsafe fn to_napi_value(
        env: napi::sys::napi_env,
        val: Self,
    ) -> napi::Result<napi::sys::napi_value> {
        if !val.0.is_ascii() {
            // SAFETY: forwarded from the caller's contract.
            return unsafe { String::to_napi_value(env, val.0) };
        }
        // SAFETY: forwarded from the caller's contract; ASCII is Latin-1.
        unsafe { latin1_string(env, val.0.as_bytes()) }
    }
}

pub(crate) fn catalog_error(error: CatalogError) -> napi::Error {
    invalid_arg(error)
}

/// Byte length of the prefix of `text` that holds `units` UTF-16 code units, or
/// `None` when `text` is shorter or the count ends inside a surrogate pair.
fn utf16_prefix_bytes(text: &str, units: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut counted = 0usize;
    let mut i = 0usize;
    while counted < units {
        let b = *bytes.get(i)?;
        let (width, w16) = match b {
            0x00..=0x7f => (1, 1),
            0xc0..=0xdf => (2, 1),
            0xe0..=0xef => (3, 1),
            _ => (4, 2),
        };
        counted += w16;
        i += width;
    }
    (counted == units && i <= bytes.len()).then_some(i)
}

/// Takes the prefix of `rest` holding `units` UTF-16 code units.
fn take<'a>(rest: &mut &'a str, ascii: bool, units: u32) -> Result<&'a str, &'static str> {
    let units = units as usize;
    let end = if ascii {
        (units <= rest.len()).then_some(units)
    } else {
        utf16_prefix_bytes(rest, units)
    };
    let end = end
        .filter(|&end| rest.is_char_boundary(end))
        .ok_or(MISMATCH)?;
    let (head, tail) = rest.split_at(end);
    *rest = tail;
    Ok(head)
}

pub(crate) const MISMATCH: &str = "packed catalog lengths do not match the packed text";

/// Splits the packed catalog chunks into `(name, description)` pairs. A pair
/// never spans two chunks.
pub(crate) fn unpack<'a, S: AsRef<str>>(
    chunks: &'a [S],
    lengths: &[u32],
) -> Result<Vec<(&'a str, &'a str)>, &'static str> {
    if !lengths.len().is_multiple_of(2) {
        return Err("packed catalog lengths must come in (name, description) pairs");
    }
    let mut items = Vec::with_capacity(lengths.len() / 2);
    let mut chunks = chunks.iter().map(AsRef::as_ref);
    let mut rest: &str = "";
    let mut ascii = true;
    for pair in lengths.chunks_exact(2) {
        while rest.is_empty() {
            let Some(next) = chunks.next() else { break };
            rest = next;
            ascii = rest.is_ascii();
        }
        let name = take(&mut rest, ascii, pair[0])?;
        let description = take(&mut rest, ascii, pair[1])?;
        items.push((name, description));
    }
    if !rest.is_empty() || chunks.any(|c| !c.is_empty()) {
        return Err(MISMATCH);
    }
    Ok(items)
}

/// How the entries are laid out (checked by the JS layer).
#[napi(object, object_to_js = false)]
pub struct NapiLayout {
    /// Description limit (`maxLength`).
    pub max: u32,
    /// Most UTF-16 units the entries block may take; none: every entry in full.
    pub budget: Option<u32>,
    /// Names and globs that keep their description under the budget, highest
    /// priority first.
    pub pinned: Option<Vec<String>>,
    /// Distinct source labels of the skills.
    pub sources: Option<Vec<String>>,
    /// For each model-invocable skill in input order, its label in `sources`.
    pub origins: Option<Uint32Array>,
    /// The search tool the last line of a budgeted block names (`searchTool`).
    pub search_tool: Option<String>,
    /// `prefer: 'used'`: the skills the registry loaded come right after the
    /// pins (only for the registry's own catalog).
    pub prefer_used: Option<bool>,
}

impl NapiLayout {
    /// The budget these options ask for (`None` without one), taking the
    /// pins, the search tool and, for `registry`'s catalog with
    /// `prefer_used`, the skills loaded in its view.
    pub(crate) fn take_budget(
        &mut self,
        registry: Option<&NativeCatalog>,
    ) -> napi::Result<Option<Budget>> {
        let Some(chars) = self.budget else {
            return Ok(None);
        };
        let pinned = self.pinned.take().unwrap_or_default();
        let mut budget = Budget::new(chars as usize, pinned)
            .and_then(|b| b.with_search_tool(self.search_tool.take()))
            .map_err(catalog_error)?;
        if let (Some(true), Some(registry)) = (self.prefer_used, registry) {
            let preferred = registry.catalog().preferred(registry.usage());
            budget = budget.with_preferred(preferred.to_vec());
        }
        Ok(Some(budget))
    }
}

/// The source label `origins[k]` names.
pub(crate) fn source_at<'a>(
    sources: &'a [String],
    origins: &[u32],
    k: usize,
) -> napi::Result<&'a str> {
    origins
        .get(k)
        .and_then(|&i| sources.get(i as usize))
        .map(String::as_str)
        .ok_or_else(|| invalid_arg("catalog origins do not match the skills and their sources"))
}

/// The rank each source label stands for ([`skill_core::catalog::source_rank`]),
/// computed once per label.
pub(crate) fn source_ranks(sources: &[String]) -> Vec<f64> {
    sources.iter().map(|s| catalog::source_rank(s)).collect()
}

/// The origin `origins[k]` names, ranked by its label (`ranks` from
/// [`source_ranks`]).
pub(crate) fn origin_at<'a>(
    sources: &'a [String],
    ranks: &[f64],
    origins: &[u32],
    k: usize,
) -> napi::Result<Origin<'a>> {
    let source = source_at(sources, origins, k)?;
    let rank = origins
        .get(k)
        .and_then(|&i| ranks.get(i as usize))
        .copied()
        .unwrap_or(catalog::UNKNOWN_SOURCE_RANK);
    Ok(Origin::new(source, rank))
}

/// The rank and folder of each model-invocable winner of a registry catalog,
/// in entry order: the registry knows every winner's rank, and the folder a
/// native (local) winner's file was found in.
pub(crate) fn registry_origins(
    merged: &skill_core::registry::Catalog,
) -> impl Iterator<Item = (f64, Option<&str>)> + '_ {
    merged
        .entries()
        .iter()
        .filter(|e| e.invocation.model_invocable)
        .map(|e| {
            let folder = match &e.winner {
                Winner::Native { candidate, .. } => {
                    candidate.path.as_deref().and_then(catalog::skill_folder)
                }
                _ => None,
            };
            (e.rank, folder)
        })
}

/// Checks that there is one origin per skill.
pub(crate) fn check_origins(origins: &[u32], count: usize) -> napi::Result<()> {
    if origins.len() == count {
        Ok(())
    } else {
        Err(invalid_arg(
            "catalog origins do not match the skills and their sources",
        ))
    }
}

/// A registry catalog whose runtime and JS-provider descriptions have not been
/// handed over yet (`catalogSourceOf` in `lib/registry.js` does that first).
pub(crate) const UNSUPPLIED: &str = "the registry catalog's descriptions have not been supplied";

/// The catalog an export renders: the registry's own merged catalog when JS
/// passes one (names and descriptions are read in place, nothing is packed),
/// else the packed chunks, laid out as `layout` says.
fn with_catalog<T>(
    registry: Option<&NativeCatalog>,
    chunks: &[String],
    lengths: &Uint32Array,
    mut layout: NapiLayout,
    f: impl FnOnce(&Catalog<'_>) -> T,
) -> napi::Result<T> {
    let max_len = layout.max as usize;
    let budget = layout.take_budget(registry)?;
    let sources = layout.sources.unwrap_or_default();
    let origins = layout.origins.as_ref().map(|o| o.as_ref());
    let catalog = match registry {
        Some(registry) => {
            let merged = registry.catalog();
            let entries = merged
                .model_entries()
                .ok_or_else(|| invalid_arg(UNSUPPLIED))?;
            match origins {
                None => Catalog::new(entries, max_len),
                Some(origins) => {
                    let mut items = Vec::with_capacity(origins.len());
                    for (k, ((name, description), (rank, folder))) in
                        entries.zip(registry_origins(merged)).enumerate()
                    {
                        let source = source_at(&sources, origins, k)?;
                        items.push((
                            name,
                            description,
                            Origin::new(source, rank).in_folder(folder),
                        ));
                    }
                    check_origins(origins, items.len())?;
                    Catalog::with_origins(items, max_len)
                }
            }
        }
        None => {
            let items = unpack(chunks, lengths.as_ref()).map_err(invalid_arg)?;
            match origins {
                None => Catalog::new(items, max_len),
                Some(origins) => {
                    check_origins(origins, items.len())?;
                    let ranks = source_ranks(&sources);
                    let mut ranked = Vec::with_capacity(items.len());
                    for (k, (name, description)) in items.into_iter().enumerate() {
                        let origin = origin_at(&sources, &ranks, origins, k)?;
                        ranked.push((name, description, origin));
                    }
                    Catalog::with_origins(ranked, max_len)
                }
            }
        }
    }
    .map_err(catalog_error)?
    .with_budget(budget);
    Ok(f(&catalog))
}

/// How each model-invocable skill appears in the entries block.
#[napi(object, object_from_js = false)]
pub struct NapiCatalogReport {
    /// Model-invocable skills.
    pub total: f64,
    /// Entries shown as without a budget.
    pub full: f64,
    /// Entries whose description the budget cut.
    pub shortened: f64,
    /// Entries shown by name only.
    pub name_only: f64,
    /// Skills left out (counted by the last line).
    pub omitted: f64,
    /// Length of the entries block in UTF-16 code units.
    pub chars: f64,
    /// The same counts per source, nearest source first (empty without
    /// `sources`); the JS layer turns it into a record.
    pub by_source: Vec<NapiSourceReport>,
}

/// How the model-invocable skills of one source appear in the entries block.
#[napi(object, object_from_js = false)]
pub struct NapiSourceReport {
    /// The source label.
    pub source: String,
    /// Skills of this source.
    pub total: f64,
    /// Entries shown as without a budget.
    pub full: f64,
    /// Entries whose description the budget cut.
    pub shortened: f64,
    /// Entries shown by name only.
    pub name_only: f64,
    /// Skills left out.
    pub omitted: f64,
}

impl From<SourceReport> for NapiSourceReport {
    fn from(r: SourceReport) -> Self {
        Self {
            source: r.source,
            total: r.total as f64,
            full: r.full as f64,
            shortened: r.shortened as f64,
            name_only: r.name_only as f64,
            omitted: r.omitted as f64,
        }
    }
}

impl From<CatalogReport> for NapiCatalogReport {
    fn from(r: CatalogReport) -> Self {
        Self {
            total: r.total as f64,
            full: r.full as f64,
            shortened: r.shortened as f64,
            name_only: r.name_only as f64,
            omitted: r.omitted as f64,
            chars: r.chars as f64,
            by_source: r.by_source.into_iter().map(Into::into).collect(),
        }
    }
}

/// Joined catalog entries (see the module docs for the arguments).
#[napi(catch_unwind, js_name = "catalogEntries", ts_return_type = "string")]
pub fn catalog_entries(
    registry: Option<ClassInstance<NativeCatalog>>,
    chunks: Vec<String>,
    lengths: Uint32Array,
    layout: NapiLayout,
) -> napi::Result<Text> {
    with_catalog(registry.as_deref(), &chunks, &lengths, layout, |c| {
        Text(c.entries())
    })
}

/// Digest (lowercase hex SHA-256) of the catalog entries.
#[napi(catch_unwind, js_name = "catalogDigest")]
pub fn catalog_digest(
    registry: Option<ClassInstance<NativeCatalog>>,
    chunks: Vec<String>,
    lengths: Uint32Array,
    layout: NapiLayout,
) -> napi::Result<String> {
    with_catalog(registry.as_deref(), &chunks, &lengths, layout, |c| {
        c.digest()
    })
}

/// Entries, their digest and the report in one call.
#[napi(object, object_from_js = false)]
pub struct NapiCatalogEntries {
    /// Joined entries.
    #[napi(ts_type = "string")]
    pub entries: Text,
    /// Digest of `entries`.
    pub digest: String,
    /// How each skill appears in `entries`.
    pub report: NapiCatalogReport,
}

/// Entries, their digest and the report in one crossing.
#[napi(catch_unwind, js_name = "catalogRender")]
pub fn catalog_render(
    registry: Option<ClassInstance<NativeCatalog>>,
    chunks: Vec<String>,
    lengths: Uint32Array,
    layout: NapiLayout,
) -> napi::Result<NapiCatalogEntries> {
    with_catalog(registry.as_deref(), &chunks, &lengths, layout, |c| {
        let Entries { text, report } = c.render();
        NapiCatalogEntries {
            digest: catalog::digest_hex(&text),
            entries: Text(text),
            report: report.into(),
        }
    })
}

/// Initial (`replacement: false`) or replacement catalog message.
#[napi(catch_unwind, js_name = "catalogMessage", ts_return_type = "string")]
pub fn catalog_message(
    registry: Option<ClassInstance<NativeCatalog>>,
    chunks: Vec<String>,
    lengths: Uint32Array,
    layout: NapiLayout,
    replacement: bool,
) -> napi::Result<Text> {
    let kind = if replacement {
        MessageKind::Replacement
    } else {
        MessageKind::Initial
    };
    with_catalog(registry.as_deref(), &chunks, &lengths, layout, |c| {
        Text(c.message(kind).text)
    })
}

/// A catalog message to publish.
#[napi(object, object_from_js = false)]
pub struct NapiCatalogUpdate {
    /// `'initial'` or `'replacement'`.
    pub kind: String,
    /// Message text.
    #[napi(ts_type = "string")]
    pub text: Text,
    /// Digest of the entries in `text`.
    pub digest: String,
    /// How each skill appears in the entries.
    pub report: NapiCatalogReport,
}

/// Plans the catalog message for a complete snapshot; `null` when nothing
/// needs publishing.
#[napi(catch_unwind, js_name = "catalogPlan")]
pub fn catalog_plan(
    registry: Option<ClassInstance<NativeCatalog>>,
    chunks: Vec<String>,
    lengths: Uint32Array,
    layout: NapiLayout,
    visible_digest: Option<String>,
    published: bool,
) -> napi::Result<Option<NapiCatalogUpdate>> {
    with_catalog(registry.as_deref(), &chunks, &lengths, layout, |c| {
        catalog::plan_step(c, visible_digest.as_deref(), published).map(|u| NapiCatalogUpdate {
            kind: u.kind.as_str().to_string(),
            text: Text(u.text),
            digest: u.digest,
            report: u.report.into(),
        })
    })
}

/// Digest of the catalog held by a stored message text, or `null` when the
/// text holds none.
#[napi(catch_unwind, js_name = "catalogContentDigest")]
pub fn catalog_content_digest(text: String) -> Option<String> {
    catalog::content_digest(&text)
}

/// `resourceBase` of a loaded skill, checked by the JS layer.
#[napi(object)]
pub struct NapiResourceBase {
    /// `'directory'`, `'url'` or `'opaque'`.
    pub kind: String,
    /// Directory path (`directory`).
    pub path: Option<String>,
    /// Base URL (`url`).
    pub url: Option<String>,
    /// Description (`opaque`).
    pub description: Option<String>,
}

fn resource_base(base: NapiResourceBase) -> napi::Result<ResourceBase> {
    let missing = |field: &str| {
        invalid_arg(format!(
            "resourceBase.{field} must be a string for kind {:?}",
            base.kind
        ))
    };
    match base.kind.as_str() {
        "directory" => Ok(ResourceBase::Directory {
            path: base.path.clone().ok_or_else(|| missing("path"))?,
        }),
        "url" => Ok(ResourceBase::Url {
            url: base.url.clone().ok_or_else(|| missing("url"))?,
        }),
        "opaque" => Ok(ResourceBase::Opaque {
            description: base
                .description
                .clone()
                .ok_or_else(|| missing("description"))?,
        }),
        other => Err(invalid_arg(format!(
            "resourceBase.kind must be 'directory', 'url' or 'opaque' (got {other:?})"
        ))),
    }
}

/// The `skill` tool result for a loaded skill; `spaced` selects the layout of
/// harness release 0.1.1-rc.2 (a blank line before `<skill_instructions>`).
#[napi(catch_unwind, js_name = "renderSkillContentNative")]
pub fn render_skill_content_native(
    name: String,
    provider: String,
    resource_base_value: Option<NapiResourceBase>,
    content: String,
    spaced: Option<bool>,
) -> napi::Result<String> {
    let base = resource_base_value.map(resource_base).transpose()?;
    let layout = if spaced == Some(true) {
        ContentLayout::Spaced
    } else {
        ContentLayout::Compact
    };
    Ok(catalog::render_skill_content_as(
        layout,
        &name,
        &provider,
        base.as_ref(),
        &content,
    ))
}

/// `text` with `&`, `<` and `>` escaped as `&amp;`, `&lt;`, `&gt;` (the rule
/// of the catalog descriptions and the `skill` tool result).
#[napi(catch_unwind, js_name = "escapeTextNative")]
pub fn escape_text_native(text: String) -> String {
    catalog::escape_text(&text)
}

/// The rank of the `bundled` source (the lowest-priority local root).
#[napi(catch_unwind, js_name = "bundledSkillRankNative")]
pub fn bundled_skill_rank_native() -> f64 {
    Source::Bundled.rank()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unpacks_by_utf16_lengths() {
        let text = ["a-skillé😀xb\u{fffd}"];
        let items = unpack(&text, &[7, 4, 1, 1]).expect("valid");
        assert_eq!(items, vec![("a-skill", "é😀x"), ("b", "\u{fffd}")]);
        let chunks = ["a-skillx", "", "bcdé"];
        let items = unpack(&chunks, &[7, 1, 1, 3]).expect("valid");
        assert_eq!(items, vec![("a-skill", "x"), ("b", "cdé")]);
        assert_eq!(unpack::<&str>(&[], &[]), Ok(vec![]));
        assert_eq!(unpack(&[""], &[]), Ok(vec![]));
        assert!(unpack(&["ab"], &[1]).is_err());
        assert!(unpack(&["ab"], &[1, 2]).is_err());
        assert!(unpack(&["abc"], &[1, 1]).is_err());
        assert!(unpack(&["ab", "c"], &[1, 1]).is_err());
        // A pair may not span chunks.
        assert!(unpack(&["a", "b"], &[1, 1]).is_err());
        // A count that ends inside a surrogate pair.
        assert!(unpack(&["a😀"], &[2, 1]).is_err());
        assert_eq!(utf16_prefix_bytes("😀", 2), Some(4));
        assert_eq!(utf16_prefix_bytes("😀", 1), None);
    }
}
