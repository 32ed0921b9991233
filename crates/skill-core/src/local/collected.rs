//! What a discovery found, in the form the report and the diagnosis read and
//! the live listing ([`super::live`]) keeps between lookups: each file
//! considered with its outcome, a parsed skill already turned into the
//! candidate it stands for (shared, so that a listing kept from one lookup to
//! the next hands out the same candidates without copying them).

use super::discover::{FileOutcome, Layout, RootStatus, Scan};
use super::roots::RootSpec;
use crate::model::Candidate;
use std::path::PathBuf;
use std::sync::Arc;

/// What became of one file considered.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Outcome {
    /// A valid skill, as the candidate it stands for.
    Parsed(Arc<Candidate>),
    /// Not a skill; `warn` tells whether the user should hear about it.
    Skipped { reason: String, warn: bool },
    /// Unexpected I/O failure; discovery is incomplete.
    Failed(String),
}

/// One file (or entry) considered, without the index of its root (the same
/// root sits at different places in different lookups).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct File {
    /// The skill file (`…/SKILL.md` for bundles).
    pub(crate) path: PathBuf,
    /// Resource base: the bundle directory, or the root for flat files.
    pub(crate) base: PathBuf,
    /// Layout, when known.
    pub(crate) layout: Option<Layout>,
    pub(crate) outcome: Outcome,
}

impl File {
    /// The file for what a scan found, for the provider named `provider`, in
    /// `root`.
    pub(crate) fn new(
        provider: &str,
        root: &RootSpec,
        path: PathBuf,
        base: PathBuf,
        layout: Option<Layout>,
        outcome: FileOutcome,
    ) -> Self {
        let outcome = match outcome {
            FileOutcome::Parsed(parsed) => Outcome::Parsed(Arc::new(super::candidate(
                provider, root, &path, &base, parsed,
            ))),
            FileOutcome::Skipped { reason, warn } => Outcome::Skipped { reason, warn },
            FileOutcome::Failed(reason) => Outcome::Failed(reason),
        };
        Self {
            path,
            base,
            layout,
            outcome,
        }
    }
}

/// What one discovery found: the roots in rank order with their status, the
/// files in discovery order (root order, then entry order), each with the
/// index of its root.
#[derive(Clone, Debug)]
pub(crate) struct Collected {
    pub(crate) roots: Vec<(RootSpec, RootStatus)>,
    pub(crate) files: Vec<(usize, Arc<File>)>,
    /// Whether nothing unexpected happened (and the caller did not cancel).
    pub(crate) complete: bool,
}

impl Collected {
    /// What a scan found, for the provider named `provider`.
    pub(crate) fn of_scan(provider: &str, scan: Scan) -> Self {
        let files = scan
            .files
            .into_iter()
            .map(|f| {
                let root = &scan.roots[f.root].0;
                let file = File::new(provider, root, f.path, f.base, f.layout, f.outcome);
                (f.root, Arc::new(file))
            })
            .collect();
        Self {
            roots: scan.roots,
            files,
            complete: scan.complete,
        }
    }
}
