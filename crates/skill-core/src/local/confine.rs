//! Which files `get()` may load: the skill files of a configured root.
//!
//! A candidate's path comes from the caller. It is only loaded when, with `.`
//! and `..` resolved lexically, it is `<root>/<name>.md` or
//! `<root>/<dir>/SKILL.md` for one of the roots (not `.system` under the user
//! DSH root), which is exactly where discovery finds skills. Links at the root
//! or entry level are followed when the file is read, as discovery follows
//! them. The file read is the normalised path, so a `..` is never resolved
//! through a link.

use super::discover::Layout;
use super::roots::{normalize, RootSpec, Source};
use std::path::{Component, Path, PathBuf};

/// Where a loadable skill file sits.
#[derive(Clone, Debug, PartialEq)]
pub struct Placement {
    /// The skill file (normalised).
    pub path: PathBuf,
    /// Its resource base: the bundle directory, or the root for a flat file.
    pub base: PathBuf,
    /// The source of its root (the best-ranked one when roots overlap).
    pub source: Source,
    /// The rank of that root.
    pub rank: f64,
    /// Bundle or flat.
    pub layout: Layout,
}

/// The placement of `path` (already normalised) in the first of `roots` (by
/// rank) that holds it as a skill file, if any.
pub fn place(roots: &[RootSpec], path: &Path) -> Option<Placement> {
    let mut best: Option<Placement> = None;
    for root in roots {
        if best.as_ref().is_some_and(|b| b.rank <= root.rank()) {
            continue;
        }
        let root_path = normalize(&root.path);
        let Ok(rest) = path.strip_prefix(&root_path) else {
            continue;
        };
        let Some(parts) = rest
            .components()
            .map(|c| match c {
                Component::Normal(name) => Some(name),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()
        else {
            continue;
        };
        let placement = match parts.as_slice() {
            [file] if file.as_encoded_bytes().ends_with(b".md") => Placement {
                path: path.to_path_buf(),
                base: root_path,
                source: root.source,
                rank: root.rank(),
                layout: Layout::Flat,
            },
            [dir, file] if *file == "SKILL.md" && !(root.skips_system() && *dir == ".system") => {
                Placement {
                    path: path.to_path_buf(),
                    base: root_path.join(dir),
                    source: root.source,
                    rank: root.rank(),
                    layout: Layout::Bundle,
                }
            }
            _ => continue,
        };
        best = Some(placement);
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(path: &str, source: Source) -> RootSpec {
        RootSpec::new(PathBuf::from(path), source)
    }

    #[test]
    fn only_skill_files_of_a_root() {
        let roots = [
            spec("/h/.dsh/skills", Source::UserDsh),
            spec("/p/.agents/skills", Source::ProjectAgents),
            spec("/p/.agents/skills/nested", Source::Custom),
        ];
        let placed = |p: &str| place(&roots, &normalize(Path::new(p)));
        let flat = placed("/h/.dsh/skills/a.md").expect("flat");
        assert_eq!(flat.layout, Layout::Flat);
        assert_eq!(flat.base, PathBuf::from("/h/.dsh/skills"));
        assert_eq!(flat.source, Source::UserDsh);
        let bundle = placed("/p/.agents/skills/x/../b/./SKILL.md").expect("bundle");
        assert_eq!(bundle.path, PathBuf::from("/p/.agents/skills/b/SKILL.md"));
        assert_eq!(bundle.base, PathBuf::from("/p/.agents/skills/b"));
        assert_eq!(bundle.source, Source::ProjectAgents);
        // Overlapping roots: the best rank wins.
        let nested = placed("/p/.agents/skills/nested/SKILL.md").expect("nested");
        assert_eq!(nested.source, Source::ProjectAgents);
        assert_eq!(
            placed("/p/.agents/skills/nested/n.md").map(|p| p.source),
            Some(Source::Custom)
        );
        for refused in [
            "/etc/passwd",
            "/h/.dsh/skills/../../../etc/x.md",
            "/h/.dsh/skills/a.txt",
            "/h/.dsh/skills/b/ref.md",
            "/h/.dsh/skills/b/refs/SKILL.md",
            "/h/.dsh/skills/.system/SKILL.md",
            "/h/.dsh/skills",
            "/h/.dsh/skills/b",
        ] {
            assert_eq!(placed(refused), None, "{refused}");
        }
    }
}
