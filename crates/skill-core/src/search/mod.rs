//! Skill search: which skills of a catalog a free-text query is about.
//!
//! An [`Index`] is built once per catalog (the registry keeps it with the
//! catalog it was built from, so it is never stale and goes when the catalog
//! goes) and answers [`Index::search`] in well under a millisecond for a few
//! thousand skills. It is a small purpose-built inverted index, not a
//! full-text engine: a catalog is a few thousand short texts, which a sorted
//! dictionary and BM25 serve exactly, where an engine would add a large
//! dependency, its own storage and a tokenizer to configure.
//!
//! - **Words** ([`fold`]): case and diacritics folded, split at everything
//!   that is not a letter or a digit (kebab-case names split into their
//!   words), Han and kana indexed by character pairs.
//! - **Stems** ([`stem`]): the Snowball English stemmer (`rust-stemmers`),
//!   so `deploying`, `deployed` and `deployment` meet `deploy`.
//! - **Fields**: the name's words, the description's, and extra text (a
//!   native skill's `whenToUse` and the opening of its body) weighing less.
//!   Words of a phrase that many descriptions share (templated collections:
//!   "Automate X tasks via …") weigh a quarter (`template`).
//! - **Matching**: each query word matches its stem (and the stem's agent
//!   nouns, `scan` → `scanner`); only when the catalog has no such word,
//!   the longer terms it is a prefix of (`kube` → `kubernetes`, weighted by
//!   how much of the term it covers); only when neither exists, terms one
//!   edit away (two for words of eight letters or more), so a typo still
//!   finds its skill. Common words of requests (`how`, `the`, `please`, …)
//!   are left out of a query that holds anything else.
//! - **Score** ([`score`]): BM25 over the three fields (BM25F), a whole name
//!   word weighing [`score::NAME_WEIGHT`] times a description word (a name
//!   word reached by prefix or typo weighs as a description word), each
//!   query word counted once per skill (its best match), times a
//!   coordination factor that favours skills matching more of the query's
//!   words.
//! - **Order**: a query that is a skill's name (in any case, with spaces or
//!   `-`) puts that skill first; then score, highest first; ties by rank
//!   (lower first), then name. The same catalog and query always give the
//!   same results.

pub mod fold;
mod fuse;
mod index;
pub mod score;
pub mod stem;
mod template;
pub mod vectors;

pub use index::{Cancelled, Index, Item};
pub use score::{Hit, Results, MAX_QUERY_WORDS};

#[cfg(test)]
mod tests;
