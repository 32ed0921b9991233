//! Ranking: the exact name first, then a BM25 score over three fields
//! (BM25F: a whole name word counts [`NAME_WEIGHT`] times a description
//! word, a word of the extra text [`EXTRA_WEIGHT`] times), where each query
//! word matches its own stem exactly or, when the catalog has no such word,
//! the longer terms it is a prefix of, or (neither existing) terms one or two
//! edits away; ties by rank, then name.

use super::fold::{fold, words};
use super::index::{terms_of, Cancelled, Field, Index, Posting};
use super::template::UNITS;
use crate::cancel::CancelToken;

/// BM25 term-frequency saturation.
const K1: f64 = 1.2;
/// BM25 length normalisation.
const B: f64 = 0.75;
/// Weight of a whole name word against a description word (a name word a
/// query word only starts, or is a typo of, weighs as a description word).
pub const NAME_WEIGHT: f64 = 3.0;
/// Weight of a word of the extra text (`whenToUse`, the body's opening)
/// against a description word.
pub const EXTRA_WEIGHT: f64 = 0.3;
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

/// A skill a query matched: its position in the index, its score, and
/// whether the query is its name.
#[derive(Clone, Copy, Debug)]
pub(super) struct Ranked {
    pub(super) doc: u32,
    pub(super) score: f64,
    pub(super) exact: bool,
}

/// One dictionary term a query word matches: its position, the weight of
/// the match, and whether the word is the term itself (a whole word).
#[derive(Clone, Copy, Debug)]
struct Expansion {
    term: usize,
    weight: f64,
    whole: bool,
}

impl Index {
    /// The position of the term `stem`.
    fn term_at(&self, stem: &str) -> Option<usize> {
        let range = self.prefix_range(stem);
        (!range.is_empty() && self.term(range.start) == stem).then_some(range.start)
    }

    /// The dictionary terms a query stem matches, with their weights: itself
    /// and its agent nouns; when the catalog has no such term, the terms it
    /// is a prefix of; when neither exists (and `fuzzy`), terms a few edits
    /// away.
    fn expand(&self, stem: &str, word: &str, out: &mut Vec<Expansion>, fuzzy: bool) {
        out.clear();
        // The terms `stem` starts; the first is `stem` itself when the
        // catalog has it (the dictionary is sorted).
        let range = self.prefix_range(stem);
        if !range.is_empty() && self.term(range.start) == stem {
            out.push(Expansion {
                term: range.start,
                weight: 1.0,
                whole: true,
            });
            self.agent_nouns(stem, out);
            return;
        }
        if stem.len() >= MIN_PREFIX {
            let mut longer: Vec<usize> = range.collect();
            longer.sort_by_key(|&t| (self.term(t).len(), t));
            longer.truncate(MAX_EXPANSIONS);
            out.extend(longer.into_iter().map(|term| {
                let cover = stem.len() as f64 / self.term(term).len() as f64;
                Expansion {
                    term,
                    weight: PREFIX_WEIGHT * (0.5 + 0.5 * cover),
                    whole: false,
                }
            }));
        }
        if out.is_empty() && fuzzy {
            // Typos are in words, not stems: the word against each term's words.
            let max = fuzz(word.len());
            if max == 0 || !word.is_ascii() {
                return;
            }
            let mut last = usize::MAX;
            for (term, surface) in self.surfaces() {
                let Some(d) = distance(word.as_bytes(), surface.as_bytes(), max) else {
                    continue;
                };
                let weight = FUZZY_WEIGHT / d.max(1) as f64;
                match out.last_mut() {
                    Some(e) if last == term => e.weight = e.weight.max(weight),
                    _ => out.push(Expansion {
                        term,
                        weight,
                        whole: false,
                    }),
                }
                last = term;
            }
        }
    }

    /// The agent nouns of a stem the catalog holds, which the stemmer keeps
    /// apart (`scan` → `scanner`, `build` → `builder`, `creat` → `creator`,
    /// `write` → `writer`): whole words, weighing [`PREFIX_WEIGHT`].
    fn agent_nouns(&self, stem: &str, out: &mut Vec<Expansion>) {
        let Some(last) = stem.chars().last().filter(char::is_ascii_lowercase) else {
            return;
        };
        if stem.len() < MIN_PREFIX {
            return;
        }
        let doubled = format!("{stem}{last}er");
        let nouns = [
            format!("{stem}er"),
            format!("{stem}or"),
            format!("{stem}r"),
            doubled,
        ];
        for noun in &nouns {
            if let Some(term) = self.term_at(noun) {
                if !out.iter().any(|e| e.term == term) {
                    out.push(Expansion {
                        term,
                        weight: PREFIX_WEIGHT,
                        whole: true,
                    });
                }
            }
        }
    }

    fn idf(&self, df: usize) -> f64 {
        let n = self.docs.len() as f64;
        let df = df as f64;
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
    }

    /// The BM25F term-frequency part of one posting (`whole`: the query
    /// word is the term itself, so a name word gets the name's weight).
    fn tf(&self, p: &Posting, whole: bool) -> f64 {
        let doc = &self.docs[p.doc as usize];
        let field = |f: Field, weight: f64| {
            let units = f64::from(p.units[f as usize]);
            if units == 0.0 {
                return 0.0;
            }
            let norm = 1.0 - B + B * f64::from(doc.len[f as usize]) / self.avg[f as usize];
            weight * units / f64::from(UNITS) / norm
        };
        let name = if whole { NAME_WEIGHT } else { 1.0 };
        let tf = field(Field::Name, name)
            + field(Field::Description, 1.0)
            + field(Field::Extra, EXTRA_WEIGHT);
        tf * (K1 + 1.0) / (tf + K1)
    }

    /// The best `limit` matches of `query` (see the [`super`] docs).
    pub fn search(&self, query: &str, limit: usize) -> Results {
        self.search_until(query, limit, &CancelToken::new())
            .unwrap_or_default()
    }

    /// [`Index::search`], giving up when `cancel` is cancelled (looked at
    /// between query words and every few thousand postings).
    pub fn search_until(
        &self,
        query: &str,
        limit: usize,
        cancel: &CancelToken,
    ) -> Result<Results, Cancelled> {
        let mut ranked = self.rank_words(query, cancel)?;
        let total = ranked.len();
        self.keep_best(&mut ranked, limit);
        Ok(self.results(ranked, total))
    }

    /// Every skill the words of `query` match (and the one it names), with
    /// its score and whether the query is its name; in no particular order.
    pub(super) fn rank_words(
        &self,
        query: &str,
        cancel: &CancelToken,
    ) -> Result<Vec<Ranked>, Cancelled> {
        let n = self.docs.len();
        let parsed = Query::parse(query);
        let exact = self.doc_named(&as_name(&fold(query)));
        let mut total = vec![0f64; n];
        let mut matched = vec![0u32; n];
        let mut best = vec![0f64; n];
        let mut touched: Vec<u32> = Vec::new();
        let mut expansions = Vec::new();
        for (stem, word) in &parsed.terms {
            if cancel.is_cancelled() {
                return Err(Cancelled);
            }
            self.expand(stem, word, &mut expansions, true);
            for e in &expansions {
                let postings = self.postings_of(e.term);
                let idf = self.idf(postings.len());
                for (i, p) in postings.iter().enumerate() {
                    if i % 4096 == 4095 && cancel.is_cancelled() {
                        return Err(Cancelled);
                    }
                    let d = p.doc as usize;
                    let c = e.weight * idf * self.tf(p, e.whole);
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
        Ok((0..n)
            .filter(|&d| matched[d] > 0 || exact == Some(d as u32))
            .map(|d| {
                // Coordination: a skill matching more of the query's words
                // ranks above one matching a single rarer word.
                let coord = 0.5 + 0.5 * f64::from(matched[d]) / words;
                Ranked {
                    doc: d as u32,
                    score: total[d] * coord,
                    exact: exact == Some(d as u32),
                }
            })
            .collect())
    }

    /// The order of results: the exact name first, then score, then rank,
    /// then name.
    pub(super) fn order(&self, a: &Ranked, b: &Ranked) -> std::cmp::Ordering {
        let (da, db) = (&self.docs[a.doc as usize], &self.docs[b.doc as usize]);
        b.exact
            .cmp(&a.exact)
            .then(b.score.total_cmp(&a.score))
            .then(da.rank.total_cmp(&db.rank))
            .then_with(|| self.name(a.doc).cmp(self.name(b.doc)))
    }

    /// `ranked` cut to its best `limit`, best first.
    pub(super) fn keep_best(&self, ranked: &mut Vec<Ranked>, limit: usize) {
        if limit < ranked.len() {
            ranked.select_nth_unstable_by(limit, |a, b| self.order(a, b));
            ranked.truncate(limit);
        }
        ranked.sort_by(|a, b| self.order(a, b));
    }

    pub(super) fn results(&self, ranked: Vec<Ranked>, total: usize) -> Results {
        Results {
            hits: ranked
                .into_iter()
                .map(|r| Hit {
                    id: self.docs[r.doc as usize].id,
                    score: r.score,
                    exact: r.exact,
                })
                .collect(),
            total,
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
            self.expand(stem, word, &mut expansions, false);
            if !expansions.is_empty() || word.len() < 3 || !word.is_ascii() {
                out.push(word.clone());
                continue;
            }
            let max = (word.len() / 3).clamp(1, 3);
            let closest = self
                .surfaces()
                .filter_map(|(_, s)| distance(word.as_bytes(), s.as_bytes(), max).map(|d| (d, s)))
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
