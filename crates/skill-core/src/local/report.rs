//! What a finished scan tells the caller: the discovery `list()` returns (with
//! each distinct problem warned once) and the diagnosis `doctor` prints.

use super::collected::{Collected, Outcome};
use super::warn::Scope;
use super::{path_string, Layout, LocalProvider, RootStatus};
use crate::model::Observation;
use crate::same::{compare_files, Fingerprint, Sameness};
use serde::Serialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Result of [`LocalProvider::discover`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Discovery {
    /// Candidates in discovery order (same-name candidates included: the first
    /// one wins).
    pub observation: Observation,
    /// One line per skipped file or unexpected failure.
    pub warnings: Vec<String>,
}

/// One root in a [`Diagnosis`].
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RootReport {
    /// Root directory.
    pub path: String,
    /// Source label.
    pub source: &'static str,
    /// Rank.
    pub rank: f64,
    /// `scanned`, `missing` (an empty root: absent, or not a directory),
    /// `error` (listing failed: discovery is incomplete) or `unusable` (the
    /// path cannot be used at all: left out).
    pub status: &'static str,
    /// Why listing failed, or what stands at a `missing` root's path when
    /// it is not a directory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The candidate that won a name.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WinnerRef {
    /// Skill name.
    pub name: String,
    /// Source of the winner.
    pub source: &'static str,
    /// Rank of the winner.
    pub rank: f64,
    /// Skill file of the winner.
    pub path: String,
}

/// One file considered by discovery, with what became of it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileReport {
    /// Skill file (`…/SKILL.md` for bundles) or the entry that was skipped.
    pub path: String,
    /// Source label of its root.
    pub source: &'static str,
    /// Rank of its root.
    pub rank: f64,
    /// `bundle` or `flat`, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layout: Option<&'static str>,
    /// Parsed skill name, when the file parsed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `loaded`, `shadowed` or `skipped`.
    pub outcome: &'static str,
    /// Human-readable explanation (always set unless loaded).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The winner of the name, for shadowed files.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shadowed_by: Option<WinnerRef>,
    /// For a shadowed file: `true` when it is the same skill as its winner
    /// (byte-identical skill files, and for bundles the same resources by
    /// listing and size: [`crate::same`]), `false` when the two differ; left
    /// out otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub same: Option<bool>,
}

/// What `doctor` prints: every root and every file considered for one lookup.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Diagnosis {
    /// The lookup's `cwd`, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// The project root derived from `cwd`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project_root: Option<String>,
    /// Whether discovery was authoritative.
    pub complete: bool,
    /// Roots in rank order.
    pub roots: Vec<RootReport>,
    /// Files in discovery order.
    pub files: Vec<FileReport>,
    /// The warnings `list()` would log.
    pub warnings: Vec<String>,
}

impl LocalProvider {
    /// The discovery of a finished scan. Warnings already logged for the same
    /// problem are left out (see `warn.rs`).
    pub(super) fn report(&self, scan: Collected, healthy: bool, cancelled: bool) -> Discovery {
        let mut warnings: Vec<(Scope, String)> = Vec::new();
        let mut candidates = Vec::with_capacity(scan.files.len());
        let scope = |root: usize| Scope::Root(scan.roots[root].0.path.clone());
        for (index, (_, status)) in scan.roots.iter().enumerate() {
            match status {
                RootStatus::Failed(reason) => warnings.push((
                    scope(index),
                    format!("{reason}; skill discovery is incomplete"),
                )),
                RootStatus::Unusable(reason) => {
                    warnings.push((scope(index), format!("{reason}; it is left out")))
                }
                RootStatus::NotDirectory(what) => warnings.push((
                    scope(index),
                    not_directory_warning(&scan.roots[index].0.path, what),
                )),
                _ => {}
            }
        }
        for (root, file) in &scan.files {
            match &file.outcome {
                Outcome::Skipped { reason, warn: true } => warnings.push((
                    scope(*root),
                    format!("skill file {} skipped: {reason}", file.path.display()),
                )),
                Outcome::Failed(reason) => warnings.push((
                    scope(*root),
                    format!(
                        "skill file {}: {reason}; skill discovery is incomplete",
                        file.path.display()
                    ),
                )),
                _ => {}
            }
        }
        if !healthy {
            warnings.push((
                Scope::Watch,
                "skill root watching is not healthy; skill discovery is incomplete".into(),
            ));
        }
        let mut observed: Vec<Scope> = (0..scan.roots.len()).map(scope).collect();
        observed.push(Scope::Watch);
        let mut warnings = self.warned.filter(&observed, warnings, !cancelled);
        if let Some(o) = self.observer() {
            // The watcher reports each of its problems once by itself.
            warnings.extend(o.take_warnings());
        }
        for (_, file) in &scan.files {
            if let Outcome::Parsed(candidate) = &file.outcome {
                candidates.push(Arc::clone(candidate));
            }
        }
        Discovery {
            observation: Observation {
                candidates,
                complete: scan.complete && healthy,
            },
            warnings,
        }
    }

    /// The diagnosis of a finished scan.
    pub(super) fn explain(
        &self,
        cwd: Option<&Path>,
        project: Option<&Path>,
        scan: Collected,
        healthy: bool,
    ) -> Diagnosis {
        let mut warnings = Vec::new();
        let roots = scan
            .roots
            .iter()
            .map(|(spec, status)| {
                let (status, reason) = match status {
                    RootStatus::Scanned => ("scanned", None),
                    RootStatus::Missing => ("missing", None),
                    RootStatus::NotDirectory(what) => {
                        warnings.push(not_directory_warning(&spec.path, what));
                        ("missing", Some(not_directory_reason(what)))
                    }
                    RootStatus::Failed(r) => {
                        warnings.push(format!("{r}; skill discovery is incomplete"));
                        ("error", Some(r.clone()))
                    }
                    RootStatus::Unusable(r) => {
                        warnings.push(format!("{r}; it is left out"));
                        ("unusable", Some(r.clone()))
                    }
                };
                RootReport {
                    path: path_string(&spec.path),
                    source: spec.source.as_str(),
                    rank: spec.rank(),
                    status,
                    reason,
                }
            })
            .collect();
        // Each name's winner, with its fingerprint and bundle directory.
        let mut winners: HashMap<String, (WinnerRef, Option<Fingerprint>, Option<PathBuf>)> =
            HashMap::new();
        let mut files = Vec::with_capacity(scan.files.len());
        for (root, file) in &scan.files {
            let spec = &scan.roots[*root].0;
            let path = path_string(&file.path);
            let mut report = FileReport {
                path: path.clone(),
                source: spec.source.as_str(),
                rank: spec.rank(),
                layout: file.layout.map(Layout::as_str),
                name: None,
                outcome: "skipped",
                reason: None,
                shadowed_by: None,
                same: None,
            };
            let bundle = (file.layout == Some(Layout::Bundle)).then(|| file.base.clone());
            match &file.outcome {
                Outcome::Parsed(candidate) => {
                    let name = &candidate.summary.name;
                    if let Some((winner, print, base)) = winners.get(name) {
                        let same = compare_files(
                            candidate.fingerprint,
                            bundle.as_deref(),
                            *print,
                            base.as_deref(),
                        );
                        report.outcome = "shadowed";
                        report.reason = Some(format!(
                            "shadowed by \"{}\" from {} (rank {}) at {}{}",
                            winner.name,
                            winner.source,
                            winner.rank,
                            winner.path,
                            match same {
                                Sameness::Same => " (the same skill: identical files)",
                                Sameness::Different => " (the two skill files differ)",
                                Sameness::Unknown => "",
                            },
                        ));
                        report.same = match same {
                            Sameness::Same => Some(true),
                            Sameness::Different => Some(false),
                            Sameness::Unknown => None,
                        };
                        report.shadowed_by = Some(winner.clone());
                    } else {
                        report.outcome = "loaded";
                        winners.insert(
                            name.clone(),
                            (
                                WinnerRef {
                                    name: name.clone(),
                                    source: spec.source.as_str(),
                                    rank: spec.rank(),
                                    path,
                                },
                                candidate.fingerprint,
                                bundle,
                            ),
                        );
                    }
                    report.name = Some(name.clone());
                }
                Outcome::Skipped { reason, warn } => {
                    if *warn {
                        warnings.push(format!("skill file {} skipped: {reason}", report.path));
                    }
                    report.reason = Some(reason.clone());
                }
                Outcome::Failed(reason) => {
                    warnings.push(format!(
                        "skill file {}: {reason}; skill discovery is incomplete",
                        report.path
                    ));
                    report.reason = Some(format!("{reason} (skill discovery is incomplete)"));
                }
            }
            files.push(report);
        }
        if !healthy {
            warnings
                .push("skill root watching is not healthy; skill discovery is incomplete".into());
        }
        Diagnosis {
            cwd: cwd.map(path_string),
            project_root: project.map(path_string),
            complete: scan.complete && healthy,
            roots,
            files,
            warnings,
        }
    }
}

/// The warning for a root whose path holds something other than a
/// directory (`what`: "a file", ...).
fn not_directory_warning(path: &Path, what: &str) -> String {
    format!(
        "skill root {} is {what}, not a directory: it is read as an empty root \
         (a skill root is a folder of skill folders and .md files; name the folder instead)",
        path.display()
    )
}

/// `diagnose()`'s reason for such a root.
fn not_directory_reason(what: &str) -> String {
    format!("{what}, not a directory (read as an empty root)")
}
