//! Whether two candidates of one name are the same skill: users keep one
//! skill in two roots (`~/.agents/skills` and `~/.dsh/skills`, a copy and a
//! symbolic link), and such a duplicate is no conflict worth a warning.
//!
//! **What "the same" means.** Two candidates are the same skill when both
//! carry a [`Fingerprint`] of their skill file's text (frontmatter and body)
//! and the fingerprints are equal, and, when both are bundles
//! (`<dir>/SKILL.md`), their bundle directories hold the same resources:
//! the same relative paths, each of the same kind and size. Resources are
//! listed, never read; a listing is compared only once the skill files
//! matched, so a registry pays for it only on such duplicates.
//!
//! Only skill files this package read carry a fingerprint (the local
//! provider computes it from the text it parses, and keeps it in its parse
//! cache, so an unchanged file is not read again for it). The fingerprint is
//! 128 bits of two seeded passes of a fast non-cryptographic hash
//! (`foldhash`): it costs a fraction of parsing the file (a SHA-256 of every
//! file read cost about a tenth of a cold discovery). Two different files
//! sharing one by accident is not a practical concern; one crafted to
//! collide with another could only hide a "shadowed" warning, and whoever
//! can write skill files can change the skills themselves. A JS provider's
//! candidate and a runtime skill carry none: the registry holds their
//! summaries only, which say nothing about the body, so such a duplicate is
//! [`Sameness::Unknown`] and reported as before.

use crate::model::{Candidate, ResourceBase};
use std::hash::{BuildHasher, Hasher};
use std::path::{Path, PathBuf};

/// A skill file's fingerprint: 128 bits of its text (see the module docs).
pub type Fingerprint = u128;

/// Two fixed seeds: the fingerprint must not change within a process (the
/// local provider keeps it in its parse cache); it is never stored.
const SEEDS: [u64; 2] = [0x5eed_0f5a_7e5c_1a55, 0x9e37_79b9_7f4a_7c15];

/// The fingerprint of a skill file's text.
pub fn fingerprint(text: &str) -> Fingerprint {
    let pass = |seed: u64| {
        let mut hasher = foldhash::quality::FixedState::with_seed(seed).build_hasher();
        hasher.write(text.as_bytes());
        hasher.finish()
    };
    (u128::from(pass(SEEDS[0])) << 64) | u128::from(pass(SEEDS[1]))
}

/// How two candidates of one name compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sameness {
    /// Byte-identical skill files (and, for bundles, the same resources).
    Same,
    /// The skill files (or the bundles' resources) differ.
    Different,
    /// Nothing to compare (a candidate without a fingerprint, or a bundle
    /// directory that could not be listed).
    Unknown,
}

/// Most entries listed per bundle directory; a larger bundle is not
/// compared ([`Sameness::Unknown`]).
const MAX_RESOURCES: usize = 4096;

/// Deepest directory level listed below a bundle directory.
const MAX_DEPTH: usize = 16;

/// How `a` and `b` (candidates of one name) compare.
pub fn compare(a: &Candidate, b: &Candidate) -> Sameness {
    compare_files(
        a.fingerprint,
        bundle_dir(a).as_deref(),
        b.fingerprint,
        bundle_dir(b).as_deref(),
    )
}

/// Whether [`compare`] of `a` and `b` reads the filesystem (two bundles
/// with byte-identical skill files: their resources are listed), so that
/// its answer can change while the candidates do not.
pub fn reads_files(a: &Candidate, b: &Candidate) -> bool {
    a.fingerprint.is_some()
        && a.fingerprint == b.fingerprint
        && bundle_dir(a).is_some()
        && bundle_dir(b).is_some()
}

/// How two skill files compare, each given by its fingerprint and, for a
/// bundle, its directory (`None` for a flat file).
pub fn compare_files(
    a: Option<Fingerprint>,
    a_bundle: Option<&Path>,
    b: Option<Fingerprint>,
    b_bundle: Option<&Path>,
) -> Sameness {
    let (Some(fa), Some(fb)) = (a, b) else {
        return Sameness::Unknown;
    };
    if fa != fb {
        return Sameness::Different;
    }
    match (a_bundle, b_bundle) {
        (None, None) => Sameness::Same,
        (Some(da), Some(db)) => compare_bundles(da, db),
        // A bundle and a flat file: the bundle's resources have no
        // counterpart.
        _ => Sameness::Different,
    }
}

/// The bundle directory of a `<dir>/SKILL.md` candidate (its resource base),
/// `None` for a flat skill file.
fn bundle_dir(c: &Candidate) -> Option<PathBuf> {
    let path = Path::new(c.path.as_deref()?);
    if path.file_name()? != "SKILL.md" {
        return None;
    }
    match &c.summary.resource_base {
        Some(ResourceBase::Directory { path }) => Some(PathBuf::from(path)),
        _ => path.parent().map(Path::to_path_buf),
    }
}

fn compare_bundles(a: &Path, b: &Path) -> Sameness {
    // One directory under two names (a linked root) holds the same resources.
    if let (Ok(ca), Ok(cb)) = (a.canonicalize(), b.canonicalize()) {
        if ca == cb {
            return Sameness::Same;
        }
    }
    match (listing(a), listing(b)) {
        (Some(la), Some(lb)) if la == lb => Sameness::Same,
        (Some(_), Some(_)) => Sameness::Different,
        _ => Sameness::Unknown,
    }
}

/// One resource: its path relative to the bundle, whether it is a
/// directory, and its size (0 for a directory).
type Resource = (PathBuf, bool, u64);

/// Every entry below `dir` (links followed, as the provider reads them),
/// sorted; `None` when it cannot be listed or is too large to compare.
fn listing(dir: &Path) -> Option<Vec<Resource>> {
    let mut out = Vec::new();
    let mut pending = vec![(PathBuf::new(), 0usize)];
    while let Some((relative, depth)) = pending.pop() {
        for entry in std::fs::read_dir(dir.join(&relative)).ok()? {
            let entry = entry.ok()?;
            let name = relative.join(entry.file_name());
            let meta = std::fs::metadata(entry.path()).ok()?;
            if meta.is_dir() {
                if depth + 1 > MAX_DEPTH {
                    return None;
                }
                pending.push((name.clone(), depth + 1));
                out.push((name, true, 0));
            } else {
                out.push((name, false, meta.len()));
            }
            if out.len() > MAX_RESOURCES {
                return None;
            }
        }
    }
    out.sort();
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{InvocationPolicy, Locator, SkillSummary};

    fn candidate(path: &Path, text: Option<&str>) -> Candidate {
        // The provider's resource base: the bundle directory, or the root.
        let base = path.parent();
        Candidate {
            summary: SkillSummary {
                name: "review".into(),
                description: "Review.".into(),
                when_to_use: None,
                invocation: InvocationPolicy::default(),
                source: "custom".into(),
                provider: "local".into(),
                resource_base: base.map(|b| ResourceBase::Directory {
                    path: b.to_string_lossy().into_owned(),
                }),
            },
            rank: 300.0,
            path: Some(path.to_string_lossy().into_owned()),
            metadata: None,
            locator: Locator::None,
            fingerprint: text.map(fingerprint),
            lead: None,
        }
    }

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }

    #[test]
    fn flat_files_compare_by_their_text() {
        let a = candidate(Path::new("/a/review.md"), Some("---\nx\n---\nBody\n"));
        let b = candidate(Path::new("/b/review.md"), Some("---\nx\n---\nBody\n"));
        let c = candidate(Path::new("/c/review.md"), Some("---\nx\n---\nBody!\n"));
        let js = candidate(Path::new("/d/review.md"), None);
        assert_eq!(compare(&a, &b), Sameness::Same);
        assert_eq!(compare(&a, &c), Sameness::Different);
        assert_eq!(compare(&a, &js), Sameness::Unknown);
        assert_eq!(compare(&js, &js), Sameness::Unknown);
    }

    #[test]
    fn bundles_compare_their_resources_by_listing_and_size() {
        let temp = tempfile::tempdir().expect("temp");
        let text = "---\nname: review\ndescription: Review.\n---\nBody\n";
        let one = temp.path().join("one/review");
        let two = temp.path().join("two/review");
        for dir in [&one, &two] {
            write(&dir.join("SKILL.md"), text);
            write(&dir.join("references/guide.md"), "guide");
        }
        let a = candidate(&one.join("SKILL.md"), Some(text));
        let b = candidate(&two.join("SKILL.md"), Some(text));
        assert_eq!(compare(&a, &b), Sameness::Same);
        // Same size, other bytes: resources are not read.
        write(&two.join("references/guide.md"), "GUIDE");
        assert_eq!(compare(&a, &b), Sameness::Same);
        // Another size, or another file, differs.
        write(&two.join("references/guide.md"), "guide, longer");
        assert_eq!(compare(&a, &b), Sameness::Different);
        write(&two.join("references/guide.md"), "guide");
        write(&two.join("scripts/run.sh"), "echo");
        assert_eq!(compare(&a, &b), Sameness::Different);
        // A bundle against a flat file of the same text.
        let flat = candidate(&temp.path().join("three/review.md"), Some(text));
        assert_eq!(compare(&a, &flat), Sameness::Different);
        // A bundle directory that is gone cannot be compared.
        std::fs::remove_dir_all(&two).expect("rm");
        assert_eq!(compare(&a, &b), Sameness::Unknown);
    }

    #[cfg(unix)]
    #[test]
    fn a_linked_bundle_is_the_same_skill() {
        let temp = tempfile::tempdir().expect("temp");
        let text = "---\nname: review\ndescription: Review.\n---\nBody\n";
        let real = temp.path().join("agents/review");
        write(&real.join("SKILL.md"), text);
        write(&real.join("references/guide.md"), "guide");
        let linked = temp.path().join("dsh/review");
        std::fs::create_dir_all(temp.path().join("dsh")).expect("mkdir");
        std::os::unix::fs::symlink(&real, &linked).expect("symlink");
        let a = candidate(&real.join("SKILL.md"), Some(text));
        let b = candidate(&linked.join("SKILL.md"), Some(text));
        assert_eq!(compare(&a, &b), Sameness::Same);
    }
}
