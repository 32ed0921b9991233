//! Planning a model step with structured catalogs: `SPEC.md` §5's rules
//! against the digest of the newest readable catalog source in the history,
//! plus what the same step has already queued.

use super::{Structured, StructuredCatalog};
use crate::catalog::MessageKind;

/// A catalog already queued in the step being planned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Queued<'q> {
    /// Its position among the step's queued messages.
    pub index: usize,
    /// The digest of its entries.
    pub digest: &'q str,
}

/// A catalog message to publish.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StructuredUpdate {
    /// Initial or replacement (the empty replacement is the tombstone).
    pub kind: MessageKind,
    /// The published entries, their digest and the report.
    pub structured: Structured,
    /// The message text.
    pub text: String,
    /// The queued catalog this one takes the place of.
    pub replaces: Option<usize>,
}

/// What to do before a model step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StructuredStep {
    /// Nothing to add: the model's view is current, or the catalog the step
    /// already queued is.
    None,
    /// Take back the catalog queued at `index`: the history is current again.
    Withdraw {
        /// Position of the queued catalog.
        index: usize,
    },
    /// Publish this message (instead of the queued one, when `replaces`).
    Publish(Box<StructuredUpdate>),
}

/// Decides the catalog for a complete snapshot (an incomplete one publishes
/// nothing and should not reach this function).
///
/// `baseline` is the digest of the newest readable catalog source in the
/// history, `published` whether a catalog was published before (a baseline
/// implies it), `queued` the newest catalog this step already queued. The
/// wanted message follows `SPEC.md` §5: same digest as the baseline → none;
/// nothing published and no skills → none; never published → initial;
/// otherwise (changed, or published but not in the history) → replacement.
/// Against the queued catalog: a wanted message with its digest is already
/// queued (none); a different one replaces it; when nothing is wanted, the
/// queued one is withdrawn.
pub fn plan_structured_step(
    catalog: &StructuredCatalog<'_>,
    baseline: Option<&str>,
    published: bool,
    queued: Option<Queued<'_>>,
) -> StructuredStep {
    let published = published || baseline.is_some();
    let nothing = || match queued {
        Some(q) => StructuredStep::Withdraw { index: q.index },
        None => StructuredStep::None,
    };
    if !published && catalog.is_empty() {
        return nothing();
    }
    let structured = catalog.render();
    if baseline == Some(structured.digest.as_str()) {
        return nothing();
    }
    if queued.is_some_and(|q| q.digest == structured.digest) {
        return StructuredStep::None;
    }
    let kind = if published {
        MessageKind::Replacement
    } else {
        MessageKind::Initial
    };
    let text = catalog.message(&structured, kind);
    StructuredStep::Publish(Box::new(StructuredUpdate {
        kind,
        structured,
        text,
        replaces: queued.map(|q| q.index),
    }))
}
