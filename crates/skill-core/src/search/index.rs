//! The index of one catalog: a sorted dictionary of terms (so every term a
//! prefix starts is one contiguous range), each with its postings (which
//! skill holds it, how much in each field), and each skill's field lengths
//! for the BM25 length normalisation.
//!
//! Everything lives in a few flat arrays (texts back to back, postings in
//! one array with an offset per term), so an index of 100,000 skills is a
//! handful of allocations, and building it touches each word once.

use super::fold::words;
use super::stem::stem;
use super::template::{shared_floor, Phrases, UNITS};
use crate::cancel::CancelToken;
use foldhash::HashMap;

/// One skill to index.
#[derive(Clone, Copy, Debug)]
pub struct Item<'a> {
    /// The caller's id for it (handed back in each [`super::Hit`]).
    pub id: u32,
    /// Its name (kebab-case; its words are the name field).
    pub name: &'a str,
    /// Its description.
    pub description: &'a str,
    /// More text about it, weighing less: its `whenToUse` and the opening
    /// of its body, when the provider has them (may be empty).
    pub extra: &'a str,
    /// Its rank (lower wins ties).
    pub rank: f64,
}

/// The fields of a skill, in posting order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Field {
    Name = 0,
    Description = 1,
    Extra = 2,
}

/// How much one skill holds one term, per field, in units (one occurrence
/// is [`UNITS`], one in a shared phrase less; saturating).
#[derive(Clone, Copy, Debug)]
pub(super) struct Posting {
    pub(super) doc: u32,
    pub(super) units: [u8; 3],
}

/// One indexed skill.
#[derive(Clone, Copy, Debug)]
pub(super) struct Doc {
    pub(super) id: u32,
    pub(super) rank: f64,
    /// Field lengths, in units.
    pub(super) len: [u32; 3],
}

/// The build was cancelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("search cancelled")]
pub struct Cancelled;

/// A search index over a set of skills (see the [`super`] docs).
#[derive(Debug, Default)]
pub struct Index {
    /// The stems, sorted, back to back; term `t` is
    /// `term_text[term_at[t]..term_at[t + 1]]`.
    pub(super) term_text: String,
    pub(super) term_at: Vec<u32>,
    /// Term `t`'s postings are `postings[post_at[t]..post_at[t + 1]]`, in
    /// document order.
    pub(super) post_at: Vec<u32>,
    pub(super) postings: Vec<Posting>,
    /// The first words seen for each term (typos are matched against words,
    /// not stems): `(term, start, end)` into `surface_text`.
    pub(super) surfaces: Vec<(u32, u32, u32)>,
    pub(super) surface_text: String,
    pub(super) docs: Vec<Doc>,
    /// Names back to back; doc `d`'s is `names[name_at[d]..name_at[d + 1]]`.
    pub(super) names: String,
    pub(super) name_at: Vec<u32>,
    /// Doc positions sorted by name (for the exact-name rule).
    pub(super) by_name: Vec<u32>,
    /// Average field lengths (units).
    pub(super) avg: [f64; 3],
}

/// Longest word indexed (longer ones are cut: no real word is that long,
/// and a run of garbage must not cost more than its share).
pub(super) const MAX_WORD: usize = 64;

/// Most distinct words kept per term.
const MAX_SURFACES: usize = 2;

/// Items between two looks at the cancel token.
const CHECK_EVERY: usize = 1024;

/// Calls `f` with the stem and the folded word of each word of `text` (a
/// query's words; [`Index::build`] stems each distinct word once).
pub(super) fn terms_of(text: &str, mut f: impl FnMut(&str, &str)) {
    words(text, |word| {
        let word = cut(word);
        f(&stem(word), word);
    });
}

/// `word` cut to [`MAX_WORD`] bytes, on a character boundary.
fn cut(word: &str) -> &str {
    crate::model::cut_at(word, MAX_WORD)
}

fn offset(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The dictionary while it is built: terms in order of first sight.
#[derive(Default)]
struct Dictionary {
    /// Folded word → term.
    known: HashMap<Box<str>, u32>,
    /// Stem → term.
    stems: HashMap<Box<str>, u32>,
    text: String,
    at: Vec<(u32, u32)>,
    surfaces: Vec<(u32, u32, u32)>,
    surface_counts: Vec<u8>,
    surface_text: String,
}

impl Dictionary {
    fn term(&mut self, word: &str) -> u32 {
        let word = cut(word);
        if let Some(&id) = self.known.get(word) {
            return id;
        }
        let stemmed = stem(word);
        let id = match self.stems.get(&*stemmed) {
            Some(&id) => id,
            None => {
                let id = offset(self.at.len());
                let start = offset(self.text.len());
                self.text.push_str(&stemmed);
                self.at.push((start, offset(self.text.len())));
                self.surface_counts.push(0);
                self.stems.insert((*stemmed).into(), id);
                id
            }
        };
        if let Some(count) = self.surface_counts.get_mut(id as usize) {
            if usize::from(*count) < MAX_SURFACES {
                *count += 1;
                let start = offset(self.surface_text.len());
                self.surface_text.push_str(word);
                self.surfaces
                    .push((id, start, offset(self.surface_text.len())));
            }
        }
        self.known.insert(word.into(), id);
        id
    }

    fn text(&self, t: u32) -> &str {
        let (a, b) = self.at[t as usize];
        &self.text[a as usize..b as usize]
    }
}

impl Index {
    /// Indexes `items` (names are split into words at every `-`).
    pub fn build<'a>(items: impl IntoIterator<Item = Item<'a>>) -> Self {
        // A token nobody cancels: the build always completes.
        Self::build_until(items, &CancelToken::new()).unwrap_or_default()
    }

    /// [`Index::build`], giving up when `cancel` is cancelled.
    pub fn build_until<'a>(
        items: impl IntoIterator<Item = Item<'a>>,
        cancel: &CancelToken,
    ) -> Result<Self, Cancelled> {
        let mut dict = Dictionary::default();
        // Every skill's terms, field after field: `tokens[ends[d - 1].2 ..
        // ends[d].0]` its name, then its description, then its extra text.
        let mut tokens: Vec<u32> = Vec::new();
        let mut ends: Vec<[u32; 3]> = Vec::new();
        let mut docs: Vec<Doc> = Vec::new();
        let mut names = String::new();
        let mut name_at = vec![0u32];
        let mut phrases = Phrases::default();
        for (n, item) in items.into_iter().enumerate() {
            if n % CHECK_EVERY == CHECK_EVERY - 1 && cancel.is_cancelled() {
                return Err(Cancelled);
            }
            let mut end = [0u32; 3];
            for (f, text) in [item.name, item.description, item.extra]
                .into_iter()
                .enumerate()
            {
                words(text, |w| tokens.push(dict.term(w)));
                end[f] = offset(tokens.len());
            }
            phrases.add(&tokens[end[0] as usize..end[1] as usize]);
            ends.push(end);
            names.push_str(item.name);
            name_at.push(offset(names.len()));
            docs.push(Doc {
                id: item.id,
                rank: item.rank,
                len: [0; 3],
            });
        }
        if cancel.is_cancelled() {
            return Err(Cancelled);
        }
        let floor = shared_floor(docs.len());
        let terms = dict.at.len();
        // Each skill's (term, units per field), one entry per term it holds
        // (in order of first occurrence: postings only need the skills in
        // order); counted per term for the posting offsets.
        let mut flat: Vec<(u32, [u8; 3])> = Vec::with_capacity(tokens.len());
        let mut doc_at: Vec<u32> = Vec::with_capacity(docs.len() + 1);
        let mut per_term = vec![0u32; terms];
        // For each term, the last skill that held it and its entry there.
        let mut last_doc = vec![u32::MAX; terms];
        let mut last_entry = vec![0u32; terms];
        let mut units = Vec::new();
        let mut totals = [0u64; 3];
        let mut phrase_at = 0usize;
        for (d, end) in ends.iter().enumerate() {
            if d % CHECK_EVERY == CHECK_EVERY - 1 && cancel.is_cancelled() {
                return Err(Cancelled);
            }
            let start = if d == 0 { 0 } else { ends[d - 1][2] as usize };
            let ranges = [
                start..end[0] as usize,
                end[0] as usize..end[1] as usize,
                end[1] as usize..end[2] as usize,
            ];
            let doc = offset(d);
            doc_at.push(offset(flat.len()));
            let mut len = [0u32; 3];
            for (f, range) in ranges.into_iter().enumerate() {
                let terms = &tokens[range];
                if f == Field::Description as usize {
                    phrases.units(terms, floor, &mut phrase_at, &mut units);
                } else {
                    units.clear();
                    units.resize(terms.len(), UNITS);
                }
                for (&t, &u) in terms.iter().zip(&units) {
                    len[f] += u32::from(u);
                    let t = t as usize;
                    if last_doc[t] == doc {
                        let slot = &mut flat[last_entry[t] as usize].1[f];
                        *slot = slot.saturating_add(u);
                    } else {
                        last_doc[t] = doc;
                        last_entry[t] = offset(flat.len());
                        let mut u3 = [0u8; 3];
                        u3[f] = u;
                        flat.push((offset(t), u3));
                        per_term[t] += 1;
                    }
                }
            }
            for f in 0..3 {
                totals[f] += u64::from(len[f]);
            }
            docs[d].len = len;
        }
        doc_at.push(offset(flat.len()));
        drop(tokens);
        // Terms in dictionary order, postings grouped by term.
        let mut order: Vec<u32> = (0..offset(terms)).collect();
        order.sort_unstable_by(|&a, &b| dict.text(a).cmp(dict.text(b)));
        let mut rank_of = vec![0u32; terms];
        for (sorted, &t) in order.iter().enumerate() {
            rank_of[t as usize] = offset(sorted);
        }
        let mut post_at = Vec::with_capacity(terms + 1);
        let mut term_text = String::with_capacity(dict.text.len());
        let mut term_at = Vec::with_capacity(terms + 1);
        let mut total = 0u32;
        for &t in &order {
            post_at.push(total);
            total += per_term[t as usize];
            term_at.push(offset(term_text.len()));
            term_text.push_str(dict.text(t));
        }
        post_at.push(total);
        term_at.push(offset(term_text.len()));
        // Where the next posting of each term (by sorted position) goes.
        let mut next: Vec<u32> = post_at[..terms].to_vec();
        let mut postings = vec![
            Posting {
                doc: 0,
                units: [0; 3]
            };
            total as usize
        ];
        for d in 0..docs.len() {
            for &(t, units) in &flat[doc_at[d] as usize..doc_at[d + 1] as usize] {
                let slot = &mut next[rank_of[t as usize] as usize];
                postings[*slot as usize] = Posting {
                    doc: offset(d),
                    units,
                };
                *slot += 1;
            }
        }
        let mut surfaces: Vec<(u32, u32, u32)> = dict
            .surfaces
            .iter()
            .map(|&(t, a, b)| (rank_of[t as usize], a, b))
            .collect();
        surfaces.sort_unstable();
        let n = docs.len().max(1) as f64;
        let mut by_name: Vec<u32> = (0..offset(docs.len())).collect();
        let name_of =
            |d: u32| &names[name_at[d as usize] as usize..name_at[d as usize + 1] as usize];
        // A catalog hands its skills over in name order already.
        if !by_name.is_sorted_by(|&a, &b| name_of(a) <= name_of(b)) {
            by_name.sort_by(|&a, &b| name_of(a).cmp(name_of(b)));
        }
        Ok(Index {
            term_text,
            term_at,
            post_at,
            postings,
            surfaces,
            surface_text: dict.surface_text,
            docs,
            by_name,
            avg: totals.map(|t| (t as f64 / n).max(1.0)),
            names,
            name_at,
        })
    }

    /// Number of skills indexed.
    pub fn len(&self) -> usize {
        self.docs.len()
    }

    /// Whether no skill is indexed.
    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// Number of distinct terms.
    pub fn term_count(&self) -> usize {
        self.term_at.len().saturating_sub(1)
    }

    /// The bytes the index holds (its arrays' capacities).
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        self.term_text.capacity()
            + self.term_at.capacity() * size_of::<u32>()
            + self.post_at.capacity() * size_of::<u32>()
            + self.postings.capacity() * size_of::<Posting>()
            + self.surfaces.capacity() * size_of::<(u32, u32, u32)>()
            + self.surface_text.capacity()
            + self.docs.capacity() * size_of::<Doc>()
            + self.names.capacity()
            + self.name_at.capacity() * size_of::<u32>()
            + self.by_name.capacity() * size_of::<u32>()
    }

    /// Term `t`'s stem.
    pub(super) fn term(&self, t: usize) -> &str {
        &self.term_text[self.term_at[t] as usize..self.term_at[t + 1] as usize]
    }

    /// Term `t`'s postings.
    pub(super) fn postings_of(&self, t: usize) -> &[Posting] {
        &self.postings[self.post_at[t] as usize..self.post_at[t + 1] as usize]
    }

    /// The words seen for the terms, `(term, word)`.
    pub(super) fn surfaces(&self) -> impl Iterator<Item = (usize, &str)> {
        self.surfaces
            .iter()
            .map(|&(t, a, b)| (t as usize, &self.surface_text[a as usize..b as usize]))
    }

    /// Doc `d`'s name.
    pub(super) fn name(&self, d: u32) -> &str {
        &self.names[self.name_at[d as usize] as usize..self.name_at[d as usize + 1] as usize]
    }

    /// The dictionary positions of the terms starting with `prefix`.
    pub(super) fn prefix_range(&self, prefix: &str) -> std::ops::Range<usize> {
        let n = self.term_count();
        let start = partition(n, |t| self.term(t) < prefix);
        let len = partition(n - start, |i| self.term(start + i).starts_with(prefix));
        start..start + len
    }

    /// The position of the skill named `name`.
    pub(super) fn doc_named(&self, name: &str) -> Option<u32> {
        let at = self
            .by_name
            .binary_search_by(|&d| self.name(d).cmp(name))
            .ok()?;
        Some(self.by_name[at])
    }
}

/// The first `i` in `0..n` for which `pred` is false (`pred` true, then
/// false).
fn partition(n: usize, pred: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if pred(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}
