//! Binding for structured catalogs and `/name` gestures (see
//! `skill_core::catalog::structured` and `skill_core::catalog::gesture`).
//!
//! Skills cross as in `catalog.rs` (the registry's own catalog, or packed
//! chunks and lengths, and the same `layout`), except that packed chunks are
//! read as UTF-16 code units: a description that is not well-formed UTF-16
//! keeps its lone surrogates, which `JSON.stringify` escapes one by one. (The
//! JS layer packs, rather than passes the registry's catalog, when a registry
//! description is not well-formed.) Entries come back packed the same way: one
//! string of every name and description back to back and a `Uint32Array` of
//! their lengths in code units; the JS layer slices them into objects.

// Unit-test builds do not register the exports, which then look unused.
#![cfg_attr(test, allow(dead_code))]

use crate::catalog::{
    catalog_error, check_origins, latin1_string, origin_at, registry_origins, source_at,
    source_ranks, unpack, NapiCatalogReport, NapiLayout, MISMATCH, UNSUPPLIED,
};
use crate::registry::NativeCatalog;
use crate::util::invalid_arg;
use napi::bindgen_prelude::{ClassInstance, ToNapiValue, Uint32Array, Utf16String};
use napi_derive::napi;
use skill_core::catalog::gesture::{has_gesture, scan_gestures_among, scan_gestures_joined};
use skill_core::catalog::structured::{
    json, plan_structured_step, Queued, Structured, StructuredCatalog, StructuredSkill,
    StructuredStep,
};
use skill_core::catalog::Origin;

/// A JS string given as UTF-16 code units (not necessarily well-formed);
/// handed over as Latin-1 when every unit fits in one byte.
pub struct Text16(pub(crate) Vec<u16>);

impl ToNapiValue for Text16 {
    unsafe fn to_napi_value(
        env: napi::sys::napi_env,
        val: Self,
    ) -> napi::Result<napi::sys::napi_value> {
        if val.0.iter().fold(true, |all, &u| all & (u < 0x100)) {
            let mut bytes = vec![0u8; val.0.len()];
            narrow(&mut bytes, &val.0);
            // SAFETY: forwarded from the caller's contract.
            return unsafe { latin1_string(env, &bytes) };
        }
        // SAFETY: forwarded from the caller's contract.
        unsafe { Utf16String::to_napi_value(env, Utf16String::from(val.0)) }
    }
}

/// Writes each unit (all below 0x100) as one byte.
fn narrow(bytes: &mut [u8], units: &[u16]) {
    for (byte, &unit) in bytes.iter_mut().zip(units) {
        *byte = unit as u8;
    }
}

/// The UTF-8 of a JS string's code units, a lone surrogate as U+FFFD
/// (`String::from_utf16_lossy`, with runs of ASCII copied at once).
fn utf16_to_string(units: &[u16]) -> String {
    let mut out: Vec<u8> = Vec::with_capacity(units.len() + units.len() / 4);
    let mut i = 0;
    while i < units.len() {
        let start = i;
        while i < units.len() && units[i] < 0x80 {
            i += 1;
        }
        let at = out.len();
        out.resize(at + (i - start), 0);
        narrow(&mut out[at..], &units[start..i]);
        let rest_start = i;
        while i < units.len() && units[i] >= 0x80 {
            i += 1;
        }
        for c in char::decode_utf16(units[rest_start..i].iter().copied()) {
            let c = c.unwrap_or(char::REPLACEMENT_CHARACTER);
            let mut buf = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        }
    }
    // Only whole characters were written: this is valid UTF-8.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// A `(name, description)` pair of code units.
type Pair16<'a> = (&'a [u16], &'a [u16]);

/// Splits UTF-16 chunks into `(name, description)` code unit pairs by their
/// lengths; a pair never spans two chunks (the rule of `catalog::unpack`).
pub(crate) fn unpack16<'a>(
    chunks: &'a [Utf16String],
    lengths: &[u32],
) -> Result<Vec<Pair16<'a>>, &'static str> {
    if !lengths.len().is_multiple_of(2) {
        return Err("packed catalog lengths must come in (name, description) pairs");
    }
    let mut items = Vec::with_capacity(lengths.len() / 2);
    let mut chunks = chunks.iter().map(|c| &c[..]);
    let mut rest: &[u16] = &[];
    let take = |rest: &mut &'a [u16], n: u32| {
        let n = n as usize;
        if n > rest.len() {
            return Err(MISMATCH);
        }
        let (head, tail) = rest.split_at(n);
        *rest = tail;
        Ok(head)
    };
    for pair in lengths.chunks_exact(2) {
        while rest.is_empty() {
            let Some(next) = chunks.next() else { break };
            rest = next;
        }
        let name = take(&mut rest, pair[0])?;
        let description = take(&mut rest, pair[1])?;
        items.push((name, description));
    }
    if !rest.is_empty() || chunks.any(|c| !c.is_empty()) {
        return Err(MISMATCH);
    }
    Ok(items)
}

/// The structured catalog an export works on (the registry's, or the packed
/// skills), laid out as `layout` says.
pub(crate) fn with_structured<T>(
    registry: Option<&NativeCatalog>,
    chunks: &[Utf16String],
    lengths: &Uint32Array,
    mut layout: NapiLayout,
    f: impl FnOnce(&StructuredCatalog<'_>) -> T,
) -> napi::Result<T> {
    let max_len = layout.max as usize;
    let budget = layout.take_budget(registry)?;
    let sources = layout.sources.unwrap_or_default();
    let origins = layout.origins.as_ref().map(|o| o.as_ref());
    // The packed text as UTF-8 (lone surrogates as U+FFFD, one unit each, so
    // the lengths still apply), for the text catalog.
    let lossy: Vec<String>;
    let mut skills = Vec::new();
    match registry {
        Some(registry) => {
            let merged = registry.catalog();
            let entries = merged
                .model_entries()
                .ok_or_else(|| invalid_arg(UNSUPPLIED))?;
            for (k, ((name, description), (rank, folder))) in
                entries.zip(registry_origins(merged)).enumerate()
            {
                let origin = match origins {
                    Some(origins) => {
                        Some(Origin::new(source_at(&sources, origins, k)?, rank).in_folder(folder))
                    }
                    None => None,
                };
                skills.push(StructuredSkill {
                    name,
                    description,
                    units: None,
                    origin,
                });
            }
        }
        None => {
            let pairs = unpack16(chunks, lengths.as_ref()).map_err(invalid_arg)?;
            lossy = chunks.iter().map(|c| utf16_to_string(c)).collect();
            let texts = unpack(&lossy, lengths.as_ref()).map_err(invalid_arg)?;
            let ranks = source_ranks(&sources);
            for (k, ((_, units), (name, description))) in pairs.into_iter().zip(texts).enumerate() {
                let origin = match origins {
                    Some(origins) => Some(origin_at(&sources, &ranks, origins, k)?),
                    None => None,
                };
                skills.push(StructuredSkill {
                    name,
                    description,
                    units: Some(units),
                    origin,
                });
            }
        }
    }
    if let Some(origins) = origins {
        check_origins(origins, skills.len())?;
    }
    let catalog = StructuredCatalog::new(skills, max_len)
        .map_err(catalog_error)?
        .with_budget(budget);
    Ok(f(&catalog))
}

/// Structured entries, packed, with their digest and the report.
#[napi(object, object_from_js = false)]
pub struct NapiStructured {
    /// Every name and description back to back.
    #[napi(ts_type = "string")]
    pub units: Text16,
    /// Code units of each name and description.
    pub lengths: Uint32Array,
    /// Digest of the entries.
    pub digest: String,
    /// How each skill appears.
    pub report: NapiCatalogReport,
}

impl From<Structured> for NapiStructured {
    fn from(s: Structured) -> Self {
        Self {
            units: Text16(s.entries.units),
            lengths: Uint32Array::new(s.entries.lengths),
            digest: s.digest,
            report: s.report.into(),
        }
    }
}

/// Structured entries of the model-invocable skills, their digest and the
/// report.
#[napi(catch_unwind, js_name = "structuredRender")]
pub fn structured_render(
    registry: Option<ClassInstance<NativeCatalog>>,
    chunks: Vec<Utf16String>,
    lengths: Uint32Array,
    layout: NapiLayout,
) -> napi::Result<NapiStructured> {
    with_structured(registry.as_deref(), &chunks, &lengths, layout, |c| {
        c.render().into()
    })
}

/// What to do before a model step.
#[napi(object, object_from_js = false)]
pub struct NapiStructuredStep {
    /// `'none'`, `'withdraw'`, `'initial'` or `'replacement'`.
    pub kind: String,
    /// The queued catalog to withdraw (`withdraw`).
    pub index: Option<u32>,
    /// The queued catalog this one replaces (`initial`, `replacement`).
    pub replaces: Option<u32>,
    /// The message text (`initial`, `replacement`).
    #[napi(ts_type = "string | undefined")]
    pub text: Option<crate::catalog::Text>,
    /// The published entries (`initial`, `replacement`).
    pub structured: Option<NapiStructured>,
}

/// Plans the catalog for a complete snapshot against the history's baseline
/// digest and the catalog the step already queued (`queuedIndex` and
/// `queuedDigest` together, or neither).
#[napi(catch_unwind, js_name = "structuredPlan")]
#[allow(clippy::too_many_arguments)]
pub fn structured_plan(
    registry: Option<ClassInstance<NativeCatalog>>,
    chunks: Vec<Utf16String>,
    lengths: Uint32Array,
    layout: NapiLayout,
    baseline: Option<String>,
    published: bool,
    queued_index: Option<u32>,
    queued_digest: Option<String>,
) -> napi::Result<NapiStructuredStep> {
    let queued = match (queued_index, queued_digest.as_deref()) {
        (Some(index), Some(digest)) => Some(Queued {
            index: index as usize,
            digest,
        }),
        (None, None) => None,
        _ => return Err(invalid_arg("queuedIndex and queuedDigest go together")),
    };
    with_structured(registry.as_deref(), &chunks, &lengths, layout, |c| {
        let none = |kind: &str, index: Option<u32>| NapiStructuredStep {
            kind: kind.to_string(),
            index,
            replaces: None,
            text: None,
            structured: None,
        };
        match plan_structured_step(c, baseline.as_deref(), published, queued) {
            StructuredStep::None => none("none", None),
            StructuredStep::Withdraw { index } => none("withdraw", Some(index_u32(index))),
            StructuredStep::Publish(update) => {
                let update = *update;
                NapiStructuredStep {
                    kind: update.kind.as_str().to_string(),
                    index: None,
                    replaces: update.replaces.map(index_u32),
                    text: Some(crate::catalog::Text(update.text)),
                    structured: Some(update.structured.into()),
                }
            }
        }
    })
}

fn index_u32(index: usize) -> u32 {
    u32::try_from(index).unwrap_or(u32::MAX)
}

/// Digest of structured entries given packed like skills (names need not be
/// skill names).
#[napi(catch_unwind, js_name = "structuredDigest")]
pub fn structured_digest(chunks: Vec<Utf16String>, lengths: Uint32Array) -> napi::Result<String> {
    let pairs = unpack16(&chunks, lengths.as_ref()).map_err(invalid_arg)?;
    Ok(json::entries_digest(pairs))
}

/// The skill names of the `/name` gestures in a user's text, first occurrence
/// order, each once, joined by single spaces (skill names hold none): one
/// string crosses the boundary however many names there are, and JS splits it
/// (a million names as a million Node-API strings cost seconds).
#[napi(catch_unwind, js_name = "scanSkillGestures")]
pub fn scan_skill_gestures(text: String) -> String {
    scan_gestures_joined(&text)
}

/// Whether a user's text holds a `/name` gesture (internal: lets
/// `collectSkillInvocations` skip the skill listing when there is none).
#[napi(catch_unwind, js_name = "hasSkillGesture")]
pub fn has_skill_gesture(text: String) -> bool {
    has_gesture(&text)
}

/// The `/name` gestures of `texts` (in order, as one text) whose name is one
/// of `names`, first occurrence order, each once, joined by single spaces
/// (internal: `collectSkillInvocations` passes the user-invocable skills, so
/// the names that cannot be skills are never built).
#[napi(catch_unwind, js_name = "scanSkillGesturesAmong")]
pub fn scan_skill_gestures_among(texts: Vec<String>, names: Vec<String>) -> String {
    let candidates: Vec<&str> = names.iter().map(String::as_str).collect();
    scan_gestures_among(&texts, &candidates).join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_js_strings_like_from_utf16_lossy() {
        for text in [
            &[][..],
            &[0x61, 0x62][..],
            &[0xe9, 0x4e2d, 0xd83d, 0xde00, 0x61][..],
            &[0xd800, 0x61, 0xdc00][..],
            &[0x61, 0xd83d][..],
            &[0xde00, 0xd83d, 0xd83d, 0xde00, 0x7f, 0x80][..],
        ] {
            assert_eq!(
                utf16_to_string(text),
                String::from_utf16_lossy(text),
                "{text:?}"
            );
        }
    }

    #[test]
    fn unpacks_utf16_by_lengths() {
        let chunks = [
            Utf16String::from(vec![0x61, 0x62, 0xd83d, 0x78]),
            Utf16String::from(vec![]),
            Utf16String::from(vec![0x63, 0x64]),
        ];
        let pairs = unpack16(&chunks, &[2, 2, 1, 1]).expect("valid");
        assert_eq!(
            pairs,
            vec![
                (&[0x61u16, 0x62][..], &[0xd83du16, 0x78][..]),
                (&[0x63u16][..], &[0x64u16][..])
            ]
        );
        assert!(unpack16(&chunks, &[2, 2, 1]).is_err());
        assert!(unpack16(&chunks, &[2, 2, 1, 0]).is_err());
        assert!(unpack16(&chunks, &[2, 3, 1, 1]).is_err());
        assert_eq!(unpack16(&[], &[]), Ok(vec![]));
    }
}
