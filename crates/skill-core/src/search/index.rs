//! The index of one catalog: a sorted dictionary of terms (so every term a
//! prefix starts is one contiguous range), each with its postings (which
//! skill holds it, how often in the name and in the description), and each
//! skill's field lengths for the BM25 length normalisation.

use super::fold::words;
use super::stem::stem;
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
    /// Its rank (lower wins ties).
    pub rank: f64,
}

/// How often one skill holds one term.
#[derive(Clone, Copy, Debug)]
pub(super) struct Posting {
    pub(super) doc: u32,
    pub(super) name: u16,
    pub(super) desc: u16,
}

/// One term of the dictionary.
#[derive(Debug)]
pub(super) struct Term {
    /// The stem.
    pub(super) text: Box<str>,
    /// The first words seen for it, at most [`MAX_SURFACES`] (typos are
    /// matched against words, not stems).
    pub(super) surfaces: Vec<Box<str>>,
    /// In document order.
    pub(super) postings: Vec<Posting>,
}

/// One indexed skill.
#[derive(Debug)]
pub(super) struct Doc {
    pub(super) id: u32,
    pub(super) name: Box<str>,
    pub(super) rank: f64,
    pub(super) name_len: u32,
    pub(super) desc_len: u32,
}

/// A search index over a set of skills (see the [`super`] docs).
#[derive(Debug, Default)]
pub struct Index {
    pub(super) terms: Vec<Term>,
    pub(super) docs: Vec<Doc>,
    /// Doc positions sorted by name (for the exact-name rule).
    pub(super) by_name: Vec<u32>,
    pub(super) avg_name: f64,
    pub(super) avg_desc: f64,
}

/// Longest word indexed (longer ones are cut: no real word is that long,
/// and a run of garbage must not cost more than its share).
pub(super) const MAX_WORD: usize = 64;

/// Most distinct words kept per term.
const MAX_SURFACES: usize = 4;

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
    if word.len() <= MAX_WORD {
        return word;
    }
    let mut end = MAX_WORD;
    while !word.is_char_boundary(end) {
        end -= 1;
    }
    &word[..end]
}

impl Index {
    /// Indexes `items` (names are split into words at every `-`).
    pub fn build<'a>(items: impl IntoIterator<Item = Item<'a>>) -> Self {
        // stem → term, and folded word → term: a word seen before is one
        // lookup (most words of a catalog repeat), a new one is stemmed.
        let mut stems: HashMap<Box<str>, u32> = HashMap::default();
        let mut known: HashMap<Box<str>, u32> = HashMap::default();
        let mut terms: Vec<Term> = Vec::new();
        let mut docs = Vec::new();
        let (mut name_total, mut desc_total) = (0u64, 0u64);
        // (term, name count, description count) of the current skill.
        let mut counts: Vec<(u32, u16, u16)> = Vec::new();
        let mut term_of = |word: &str| -> u32 {
            let word = cut(word);
            if let Some(&id) = known.get(word) {
                return id;
            }
            let stemmed = stem(word);
            let id = match stems.get(&*stemmed) {
                Some(&id) => id,
                None => {
                    let id = u32::try_from(terms.len()).unwrap_or(u32::MAX);
                    stems.insert((*stemmed).into(), id);
                    terms.push(Term {
                        text: (*stemmed).into(),
                        surfaces: Vec::new(),
                        postings: Vec::new(),
                    });
                    id
                }
            };
            if let Some(term) = terms.get_mut(id as usize) {
                if term.surfaces.len() < MAX_SURFACES {
                    term.surfaces.push(word.into());
                }
            }
            known.insert(word.into(), id);
            id
        };
        // Each skill's counts: a range of `flat`.
        let mut ranges: Vec<std::ops::Range<usize>> = Vec::new();
        let mut flat: Vec<(u32, u16, u16)> = Vec::new();
        for item in items {
            counts.clear();
            let mut add = |id: u32, in_name: bool| match counts.iter_mut().find(|c| c.0 == id) {
                Some(c) if in_name => c.1 = c.1.saturating_add(1),
                Some(c) => c.2 = c.2.saturating_add(1),
                None => counts.push((id, u16::from(in_name), u16::from(!in_name))),
            };
            let mut name_len = 0u32;
            words(item.name, |w| {
                name_len += 1;
                add(term_of(w), true);
            });
            let mut desc_len = 0u32;
            words(item.description, |w| {
                desc_len += 1;
                add(term_of(w), false);
            });
            let at = flat.len();
            flat.extend_from_slice(&counts);
            ranges.push(at..flat.len());
            name_total += u64::from(name_len);
            desc_total += u64::from(desc_len);
            docs.push(Doc {
                id: item.id,
                name: item.name.into(),
                rank: item.rank,
                name_len,
                desc_len,
            });
        }
        for (doc, range) in ranges.into_iter().enumerate() {
            let doc = u32::try_from(doc).unwrap_or(u32::MAX);
            for &(term, name, desc) in &flat[range] {
                terms[term as usize]
                    .postings
                    .push(Posting { doc, name, desc });
            }
        }
        terms.sort_by(|a, b| a.text.cmp(&b.text));
        let mut by_name: Vec<u32> = (0..u32::try_from(docs.len()).unwrap_or(u32::MAX)).collect();
        by_name.sort_by(|&a, &b| docs[a as usize].name.cmp(&docs[b as usize].name));
        let n = docs.len().max(1) as f64;
        Index {
            terms,
            docs,
            by_name,
            avg_name: (name_total as f64 / n).max(1.0),
            avg_desc: (desc_total as f64 / n).max(1.0),
        }
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
        self.terms.len()
    }

    /// The dictionary positions of the terms starting with `prefix`.
    pub(super) fn prefix_range(&self, prefix: &str) -> std::ops::Range<usize> {
        let start = self.terms.partition_point(|t| &*t.text < prefix);
        let len = self.terms[start..].partition_point(|t| t.text.starts_with(prefix));
        start..start + len
    }

    /// The position of the skill named `name`.
    pub(super) fn doc_named(&self, name: &str) -> Option<u32> {
        let at = self
            .by_name
            .binary_search_by(|&d| (*self.docs[d as usize].name).cmp(name))
            .ok()?;
        Some(self.by_name[at])
    }
}
