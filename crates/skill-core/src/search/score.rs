//! Ranking: the exact name first, then a BM25 score over two fields (BM25F:
//! a term in the name counts [`NAME_WEIGHT`] times one in the description),
//! where each query word matches its own stem exactly, the longer terms it is
//! a prefix of, and (only when neither exists) terms one or two edits away;
//! ties by rank, then name.

use super::fold::{fold, words};
use super::index::{terms_of, Index, Posting};

/// BM25 term-frequency saturation.
const K1: f64 = 1.2;
/// BM25 length normalisation.
const B: f64 = 0.75;
/// Weight of a name occurrence against a description occurrence.
pub const NAME_WEIGHT: f64 = 3.0;
/// Weight of a term a query word is only a prefix of, at most (scaled down
/// by how much of the term the word covers).
const PREFIX_WEIGHT: f64 = 0.8;
/// Weight of a term a few edits away from a query word that matched nothing.
const FUZZY_WEIGHT: f64 = 0.4;
/// Most query words considered (the rest are ignored).
pub const MAX_QUERY_WORDS: usize = 32;
/// Most terms one query word expands to by prefix (the shortest first).
const MAX_EXPANSIONS: usize = 64;
/// Shortest query word (in bytes) matched as a prefix.
const MIN_PREFIX: usize = 3;

/// Words a query leaves out unless it holds nothing else: they say how a
/// request is put, not what it is about.
pub(super) const STOP_WORDS: &[&str] = &[
    "a",
    "about",
    "all",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "been",
    "but",
    "by",
    "can",
    "could",
    "do",
    "does",
    "for",
    "from",
    "get",
    "got",
    "has",
    "have",
    "help",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "let",
    "like",
    "make",
    "me",
    "my",
    "need",
    "no",
    "not",
    "of",
    "on",
    "or",
    "our",
    "out",
    "please",
    "so",
    "some",
    "something",
    "that",
    "the",
    "their",
    "them",
    "then",
    "there",
    "these",
    "this",
    "those",
    "to",
    "up",
    "us",
    "use",
    "using",
    "want",
    "was",
    "we",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "why",
    "will",
    "with",
    "would",
    "you",
    "your",
];

fn is_stop_word(word: &str) -> bool {
    STOP_WORDS.binary_search(&word).is_ok()
}

/// One result.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hit {
    /// The id the item was indexed with.
    pub id: u32,
    /// Its relevance (higher is better; 0 only for an exact name whose words
    /// say nothing else).
    pub score: f64,
    /// Whether the query is the skill's name.
    pub exact: bool,
}

/// The best matches of a query and how many skills matched at all.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Results {
    /// At most `limit` hits, best first.
    pub hits: Vec<Hit>,
    /// How many skills matched.
    pub total: usize,
}

/// A query's words: folded, stop words left out (unless nothing else is
/// left), stemmed, each once, at most [`MAX_QUERY_WORDS`].
pub(super) struct Query {
    /// `(stem, folded word)`.
    pub(super) terms: Vec<(String, String)>,
}

impl Query {
    pub(super) fn parse(text: &str) -> Self {
        let mut all: Vec<(String, String)> = Vec::new();
        terms_of(text, |stem, word| {
            if all.len() < MAX_QUERY_WORDS * 4 && !all.iter().any(|(s, _)| s == stem) {
                all.push((stem.to_string(), word.to_string()));
            }
        });
        let content: Vec<(String, String)> = all
            .iter()
            .filter(|(_, w)| !is_stop_word(w))
            .cloned()
            .collect();
        let mut terms = if content.is_empty() { all } else { content };
        terms.truncate(MAX_QUERY_WORDS);
        Query { terms }
    }
}

/// The query spelled as a skill name: its folded words joined with `-`.
fn as_name(text: &str) -> String {
    let mut name = String::new();
    words(text, |w| {
        if !name.is_empty() {
            name.push('-');
        }
        name.push_str(w);
    });
    name
}

/// Optimal-string-alignment distance of `a` and `b` (bytes), or `None` when
/// it is more than `max`.
pub(super) fn distance(a: &[u8], b: &[u8], max: usize) -> Option<usize> {
    if a.len().abs_diff(b.len()) > max {
        return None;
    }
    let mut prev2: Vec<usize> = Vec::new();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut row = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (prev[j] + 1).min(row[j - 1] + 1).min(prev[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(prev2[j - 2] + 1);
            }
            row[j] = d;
        }
        if row.iter().min().is_some_and(|&m| m > max) {
            return None;
        }
        prev2 = std::mem::replace(&mut prev, row);
    }
    let d = prev[b.len()];
    (d <= max).then_some(d)
}

/// Edits allowed between a query word of `len` bytes and a term.
fn fuzz(len: usize) -> usize {
    match len {
        0..=3 => 0,
        4..=7 => 1,
        _ => 2,
    }
}

impl Index {
    /// The dictionary terms a query stem matches, with their weights: itself,
    /// the terms it is a prefix of, or (neither existing) terms a few edits
    /// away.
    fn expand(&self, stem: &str, word: &str, out: &mut Vec<(usize, f64)>) {
        self.expand_as(stem, word, out, true);
    }

    /// [`Index::expand`]; without `fuzzy`, no terms a few edits away.
    fn expand_as(&self, stem: &str, word: &str, out: &mut Vec<(usize, f64)>, fuzzy: bool) {
        out.clear();
        let range = self.prefix_range(stem);
        for t in range.clone() {
            if &*self.terms[t].text == stem {
                out.push((t, 1.0));
            }
        }
        if stem.len() >= MIN_PREFIX {
            let mut longer: Vec<usize> = range.filter(|&t| &*self.terms[t].text != stem).collect();
            longer.sort_by_key(|&t| (self.terms[t].text.len(), t));
            longer.truncate(MAX_EXPANSIONS);
            out.extend(longer.into_iter().map(|t| {
                let cover = stem.len() as f64 / self.terms[t].text.len() as f64;
                (t, PREFIX_WEIGHT * (0.5 + 0.5 * cover))
            }));
        }
        if out.is_empty() && fuzzy {
            // Typos are in words, not stems: the word against each term's words.
            let max = fuzz(word.len());
            if max == 0 || !word.is_ascii() {
                return;
            }
            for (t, term) in self.terms.iter().enumerate() {
                let d = term
                    .surfaces
                    .iter()
                    .filter_map(|s| distance(word.as_bytes(), s.as_bytes(), max))
                    .min();
                if let Some(d) = d {
                    out.push((t, FUZZY_WEIGHT / d.max(1) as f64));
                }
            }
        }
    }

    fn idf(&self, df: usize) -> f64 {
        let n = self.docs.len() as f64;
        let df = df as f64;
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
    }

    /// The BM25F term-frequency part of one posting.
    fn tf(&self, p: &Posting) -> f64 {
        let doc = &self.docs[p.doc as usize];
        let norm = |len: u32, avg: f64| 1.0 - B + B * f64::from(len) / avg;
        let tf = NAME_WEIGHT * f64::from(p.name) / norm(doc.name_len, self.avg_name)
            + f64::from(p.desc) / norm(doc.desc_len, self.avg_desc);
        tf * (K1 + 1.0) / (tf + K1)
    }

    /// The best `limit` matches of `query` (see the [`super`] docs).
    pub fn search(&self, query: &str, limit: usize) -> Results {
        let n = self.docs.len();
        let parsed = Query::parse(query);
        let exact = self.doc_named(&as_name(&fold(query)));
        let mut total = vec![0f64; n];
        let mut matched = vec![0u32; n];
        let mut best = vec![0f64; n];
        let mut touched: Vec<u32> = Vec::new();
        let mut expansions = Vec::new();
        for (stem, word) in &parsed.terms {
            self.expand(stem, word, &mut expansions);
            for &(t, weight) in &expansions {
                let term = &self.terms[t];
                let idf = self.idf(term.postings.len());
                for p in &term.postings {
                    let d = p.doc as usize;
                    let c = weight * idf * self.tf(p);
                    if best[d] == 0.0 {
                        touched.push(p.doc);
                    }
                    if c > best[d] {
                        best[d] = c;
                    }
                }
            }
            for d in touched.drain(..) {
                let d = d as usize;
                total[d] += best[d];
                matched[d] += 1;
                best[d] = 0.0;
            }
        }
        let words = parsed.terms.len().max(1) as f64;
        let mut hits: Vec<(u32, f64, bool)> = (0..n)
            .filter(|&d| matched[d] > 0 || exact == Some(d as u32))
            .map(|d| {
                // Coordination: a skill matching more of the query's words
                // ranks above one matching a single rarer word.
                let coord = 0.5 + 0.5 * f64::from(matched[d]) / words;
                (d as u32, total[d] * coord, exact == Some(d as u32))
            })
            .collect();
        let count = hits.len();
        let order = |a: &(u32, f64, bool), b: &(u32, f64, bool)| {
            let (da, db) = (&self.docs[a.0 as usize], &self.docs[b.0 as usize]);
            b.2.cmp(&a.2)
                .then(b.1.total_cmp(&a.1))
                .then(da.rank.total_cmp(&db.rank))
                .then(da.name.cmp(&db.name))
        };
        if limit < hits.len() {
            hits.select_nth_unstable_by(limit, order);
            hits.truncate(limit);
        }
        hits.sort_by(order);
        Results {
            hits: hits
                .into_iter()
                .map(|(d, score, exact)| Hit {
                    id: self.docs[d as usize].id,
                    score,
                    exact,
                })
                .collect(),
            total: count,
        }
    }

    /// A corrected query when some of `query`'s words match no indexed word
    /// as it is or as a prefix: each such word replaced by the closest
    /// indexed word (at most a third of its length in edits, between one and
    /// three); `None` when no word could be corrected.
    pub fn suggest(&self, query: &str) -> Option<String> {
        let parsed = Query::parse(query);
        let mut corrected = false;
        let mut out = Vec::with_capacity(parsed.terms.len());
        let mut expansions = Vec::new();
        for (stem, word) in &parsed.terms {
            self.expand_as(stem, word, &mut expansions, false);
            if !expansions.is_empty() || word.len() < 3 || !word.is_ascii() {
                out.push(word.clone());
                continue;
            }
            let max = (word.len() / 3).clamp(1, 3);
            let closest = self
                .terms
                .iter()
                .flat_map(|t| t.surfaces.iter())
                .filter_map(|s| distance(word.as_bytes(), s.as_bytes(), max).map(|d| (d, &**s)))
                .min();
            match closest {
                Some((_, surface)) => {
                    corrected = true;
                    out.push(surface.to_string());
                }
                None => out.push(word.clone()),
            }
        }
        corrected.then(|| out.join(" "))
    }
}
