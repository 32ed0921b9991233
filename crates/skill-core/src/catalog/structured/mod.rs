//! Structured catalogs: the `{ name, description }` pairs a catalog message
//! publishes (the harness's `skill-catalog` message source), their digest, and
//! step planning against the pairs recorded in a history.
//!
//! - **Entries**: the model-invocable skills in name order (the entries of
//!   [`Catalog`]), each description normalised and cut exactly as for the text
//!   (every run of JS whitespace becomes one space, trimmed, cut to `maxLength`
//!   UTF-16 code units with `...` replacing the last 3) but **not** escaped.
//!   Descriptions are JS strings, kept as UTF-16 code units: a cut that splits a
//!   surrogate pair keeps the lone high surrogate JavaScript's `slice` keeps, and
//!   a description that is not well-formed UTF-16 stays exactly as it is when its
//!   code units are given ([`StructuredSkill::units`]).
//! - **Digest** ([`json::entries_digest`]): lowercase hex SHA-256 of the entries,
//!   each written as `JSON.stringify([name, description])`, joined with `\n`.
//! - **Text**: the catalog text of the same skills, as [`Catalog`] renders it
//!   (escaping happens only there). Rendering the entries as skills gives that
//!   text again: normalising and cutting a normalised, cut description changes
//!   nothing.
//! - **Budget**: with a [`Budget`], the text is the budgeted block and the
//!   entries are the pairs it shows: a shortened description as cut, a
//!   name-only entry with the description `""`, skills left out absent.

pub mod json;
mod plan;

pub use plan::{plan_structured_step, Queued, StructuredStep, StructuredUpdate};

use super::budget::{self, Shape};
use super::{render_message, render_update, Budget, Catalog, CatalogError};
use super::{CatalogReport, MessageKind, Origin};

/// One skill of a structured catalog.
#[derive(Clone, Copy, Debug)]
pub struct StructuredSkill<'a> {
    /// Kebab-case skill name.
    pub name: &'a str,
    /// Its description (a lone surrogate of a JS string reads as U+FFFD here).
    pub description: &'a str,
    /// The description's exact UTF-16 code units, when known (a JS string);
    /// `None`: those of `description`.
    pub units: Option<&'a [u16]>,
    /// Source and rank, for a budget's priority and the report.
    pub origin: Option<Origin<'a>>,
}

/// Structured entries, packed: names and descriptions back to back.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StructuredEntries {
    /// UTF-16 code units of every name and description, in entry order.
    pub units: Vec<u16>,
    /// Units of each name and description: `[name0, description0, name1, ...]`.
    pub lengths: Vec<u32>,
}

impl StructuredEntries {
    /// Number of entries.
    pub fn len(&self) -> usize {
        self.lengths.len() / 2
    }

    /// Whether there is no entry.
    pub fn is_empty(&self) -> bool {
        self.lengths.is_empty()
    }

    /// The `(name, description)` code units of each entry.
    pub fn pairs(&self) -> impl Iterator<Item = (&[u16], &[u16])> + '_ {
        let mut at = 0usize;
        self.lengths.chunks_exact(2).map(move |pair| {
            let name_end = at + pair[0] as usize;
            let end = name_end + pair[1] as usize;
            let out = (&self.units[at..name_end], &self.units[name_end..end]);
            at = end;
            out
        })
    }

    /// Appends one entry given as code units.
    pub fn push_units(&mut self, name: &[u16], description: &[u16]) {
        self.units.extend_from_slice(name);
        self.units.extend_from_slice(description);
        self.lengths.push(units_u32(name.len()));
        self.lengths.push(units_u32(description.len()));
    }

    /// Entries from UTF-16 code unit pairs.
    pub fn from_pairs<'p>(pairs: impl IntoIterator<Item = (&'p [u16], &'p [u16])>) -> Self {
        let mut entries = Self::default();
        for (name, description) in pairs {
            entries.push_units(name, description);
        }
        entries
    }

    /// Appends one entry.
    fn push(&mut self, name: &str, description: impl FnOnce(&mut Vec<u16>)) {
        let start = self.units.len();
        self.units.extend(name.encode_utf16());
        let name_end = self.units.len();
        description(&mut self.units);
        self.lengths.push(units_u32(name_end - start));
        self.lengths.push(units_u32(self.units.len() - name_end));
    }

    /// The digest of these entries.
    pub fn digest(&self) -> String {
        json::entries_digest(self.pairs())
    }
}

fn units_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// JS whitespace among the units below 0x100.
const LATIN1_WHITESPACE: [bool; 256] = {
    let mut table = [false; 256];
    let mut u = 0;
    while u < 256 {
        table[u] = matches!(u, 0x09..=0x0d | 0x20 | 0xa0);
        u += 1;
    }
    table
};

/// Whether a UTF-16 code unit is JS whitespace (`\s`; every one is in the
/// BMP, so a unit is a character here; see [`super::is_js_whitespace`]).
#[inline]
fn is_whitespace_unit(unit: u16) -> bool {
    match LATIN1_WHITESPACE.get(usize::from(unit)) {
        Some(&ws) => ws,
        None => matches!(
            unit,
            0x1680 | 0x2000..=0x200a | 0x2028 | 0x2029 | 0x202f | 0x205f | 0x3000 | 0xfeff
        ),
    }
}

/// Whether `chunk` is printable ASCII (space included) with no two spaces in a
/// row and no space at its end: text the normalisation leaves as it is, when
/// it follows a non-space. Branch-free, for the common case.
#[inline]
fn normalized_ascii(chunk: &[u16]) -> bool {
    let mut ok = true;
    let mut space = false;
    for &u in chunk {
        let is_space = u == 0x20;
        ok &= (0x20..0x7f).contains(&u) & !(is_space & space);
        space = is_space;
    }
    ok & !space
}

/// Appends the description whose code units are `units`, normalised and cut
/// to `max_len` units (at least 3): the JS
/// `d.replace(/\s+/g, ' ').trim()`, then `.slice(0, max_len - 3) + '...'` when
/// longer. Returns the units its escaping adds in the text (`&` 4, `<` `>` 3).
///
/// Runs already normalised (non-whitespace units, and single spaces between
/// them) are copied at once; the scan stops as soon as the text is known to be
/// longer than `max_len`.
pub fn push_normalized(out: &mut Vec<u16>, units: &[u16], max_len: usize) -> usize {
    let max_len = max_len.max(super::MIN_MAX_LENGTH);
    let start = out.len();
    let n = units.len();
    let mut i = 0;
    // Leading whitespace.
    while i < n && is_whitespace_unit(units[i]) {
        i += 1;
    }
    while i < n {
        let run_start = i;
        loop {
            // Eight units at once while they are printable ASCII with single
            // spaces between non-spaces (the usual description text).
            if i + 8 <= n && normalized_ascii(&units[i..i + 8]) {
                i += 8;
            } else if i < n && !is_whitespace_unit(units[i]) {
                i += 1;
            } else if i + 1 < n && units[i] == 0x20 && !is_whitespace_unit(units[i + 1]) {
                i += 2;
            } else {
                break;
            }
        }
        // Room for one unit more than the limit tells a longer text apart.
        let room = (start + max_len + 1).saturating_sub(out.len());
        let run = &units[run_start..i];
        out.extend_from_slice(&run[..run.len().min(room)]);
        if out.len() - start > max_len {
            out.truncate(start + max_len - 3);
            out.extend_from_slice(&[u16::from(b'.'); 3]);
            break;
        }
        while i < n && is_whitespace_unit(units[i]) {
            i += 1;
        }
        if i < n {
            // One space for the whitespace between runs (none at the end).
            out.push(u16::from(b' '));
        }
    }
    // Counted in 16-bit lanes (at most 4 * 1024 per block).
    let mut extra = 0;
    for block in out[start..].chunks(1024) {
        let mut sum: u16 = 0;
        for &u in block {
            sum += 4 * u16::from(u == 0x26) + 3 * u16::from((u == 0x3c) | (u == 0x3e));
        }
        extra += usize::from(sum);
    }
    extra
}

/// Skills checked and put in name order, ready to give their structured
/// entries, digest, text and report.
#[derive(Clone, Debug)]
pub struct StructuredCatalog<'a> {
    catalog: Catalog<'a>,
    /// Exact code units of each entry's description, when known.
    units: Vec<Option<&'a [u16]>>,
}

/// Structured entries, their digest and how each skill appears.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Structured {
    /// The published pairs.
    pub entries: StructuredEntries,
    /// Their digest.
    pub digest: String,
    /// How each skill appears (as [`Catalog::render`] reports it).
    pub report: CatalogReport,
    /// The text entries block, when already rendered (under a budget).
    block: Option<String>,
}

impl<'a> StructuredCatalog<'a> {
    /// Checks names and `max_len` and sorts by name (stable, as
    /// [`Catalog::new`] does). Origins are used when every skill has one.
    pub fn new(skills: Vec<StructuredSkill<'a>>, max_len: usize) -> Result<Self, CatalogError> {
        let mut skills = skills;
        if !skills.windows(2).all(|w| w[0].name <= w[1].name) {
            skills.sort_by(|a, b| a.name.cmp(b.name));
        }
        let units = skills.iter().map(|s| s.units).collect();
        let catalog = if !skills.is_empty() && skills.iter().all(|s| s.origin.is_some()) {
            Catalog::with_origins(
                skills.iter().map(|s| {
                    (
                        s.name,
                        s.description,
                        s.origin.unwrap_or(Origin::of_source("")),
                    )
                }),
                max_len,
            )?
        } else {
            Catalog::new(skills.iter().map(|s| (s.name, s.description)), max_len)?
        };
        Ok(Self { catalog, units })
    }

    /// Fits the published entries into `budget` (see [`super::budget`]).
    pub fn with_budget(mut self, budget: Option<Budget>) -> Self {
        self.catalog = self.catalog.with_budget(budget);
        self
    }

    /// The text catalog of the same skills.
    pub fn catalog(&self) -> &Catalog<'a> {
        &self.catalog
    }

    /// Number of skills (listed or not).
    pub fn len(&self) -> usize {
        self.catalog.len()
    }

    /// Whether there is no model-invocable skill.
    pub fn is_empty(&self) -> bool {
        self.catalog.is_empty()
    }

    /// Appends the description of entry `i` normalised and cut to `max_len`
    /// (`scratch` holds the UTF-16 of a description known as text only).
    fn push_description(
        &self,
        out: &mut Vec<u16>,
        i: usize,
        max_len: usize,
        scratch: &mut Vec<u16>,
    ) -> usize {
        match self.units[i] {
            Some(units) => push_normalized(out, units, max_len),
            None => {
                let text = self.catalog.items[i].1;
                scratch.clear();
                if text.is_ascii() {
                    // One unit per byte, widened at once.
                    scratch.resize(text.len(), 0);
                    for (unit, &byte) in scratch.iter_mut().zip(text.as_bytes()) {
                        *unit = u16::from(byte);
                    }
                } else {
                    scratch.extend(text.encode_utf16());
                }
                push_normalized(out, scratch, max_len)
            }
        }
    }

    /// The published entries, their digest and the report.
    pub fn render(&self) -> Structured {
        let max_len = self.catalog.max_len;
        let mut entries = StructuredEntries {
            units: Vec::with_capacity(self.catalog.size_hint()),
            lengths: Vec::with_capacity(self.len() * 2),
        };
        let mut scratch = Vec::new();
        let Some(budget) = &self.catalog.budget else {
            // Every entry in full; the text's length follows from the entries.
            let mut chars = self.len().saturating_sub(1);
            for (i, (name, _)) in self.catalog.items.iter().enumerate() {
                let mut escapes = 0;
                entries.push(name, |out| {
                    escapes = self.push_description(out, i, max_len, &mut scratch)
                });
                let description = entries.lengths.last().copied().unwrap_or(0) as usize;
                chars += 6 + name.len() + description + escapes;
            }
            let report = CatalogReport::unbudgeted(&self.catalog, chars);
            return Structured {
                digest: entries.digest(),
                entries,
                report,
                block: None,
            };
        };
        let (block, shapes) = budget::render_shaped(&self.catalog, budget);
        for (i, ((name, _), shape)) in self.catalog.items.iter().zip(shapes).enumerate() {
            match shape {
                Shape::Full => entries.push(name, |out| {
                    self.push_description(out, i, max_len, &mut scratch);
                }),
                Shape::Cut(cap) => entries.push(name, |out| {
                    self.push_description(out, i, cap, &mut scratch);
                }),
                Shape::NameOnly => entries.push(name, |_| {}),
                Shape::Omitted => {}
            }
        }
        Structured {
            digest: entries.digest(),
            entries,
            report: block.report,
            block: Some(block.text),
        }
    }

    /// The text entries block of `structured` (this catalog's [`render`](Self::render)).
    pub fn block(&self, structured: &Structured) -> String {
        match &structured.block {
            Some(block) => block.clone(),
            None => self.catalog.entries(),
        }
    }

    /// The catalog message of `kind` for `structured`: today's message text.
    pub fn message(&self, structured: &Structured, kind: MessageKind) -> String {
        let block = self.block(structured);
        match kind {
            MessageKind::Initial => render_message(&block),
            MessageKind::Replacement => render_update(&block),
        }
    }
}

#[cfg(test)]
mod tests;
