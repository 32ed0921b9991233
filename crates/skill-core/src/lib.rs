//! `skill-core`: the logic of `@deepseek-ai/dsh-skill-native`, free of any Node binding.
//!
//! Data flows one way: disk → [`local`] (discovery, [`frontmatter`]) → [`registry`]
//! ([`overrides`], merge, rank, cache) → summaries → [`catalog`] (model-facing text and digest).
//! [`watch`] keeps the local provider live by invalidating its registry slot.
//!
//! Every module is usable and unit-tested on its own; the `skill-napi` crate only
//! converts types and bridges threads.

pub mod cancel;
pub mod catalog;
pub mod frontmatter;
pub mod local;
pub mod model;
pub mod overrides;
pub mod provider;
pub mod registry;
pub mod same;
pub mod scoped_rules;
pub mod search;
pub mod usage;
pub mod watch;

#[cfg(test)]
mod test_rng;
