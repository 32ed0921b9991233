//! Where catalog entries come from: each entry's source label, rank and
//! folder, which decide how a budget shares its room ([`super::budget`]) and
//! how the report counts per source. They never appear in the catalog text.

use super::{Catalog, CatalogError};
use crate::local::Source;
use crate::model::{RUNTIME_RANK, RUNTIME_SOURCE};
use std::path::Path;

/// The source label, rank and folder of one catalog entry.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Origin<'a> {
    /// The skill's `source` label.
    pub source: &'a str,
    /// Its rank (lower wins: the nearer source).
    pub rank: f64,
    /// The set of skills a budget shares its room between: the folder the
    /// skill's file was found in (a root of the local provider, each
    /// `customSkillDirs` entry one of its own) when known, else the source
    /// label ([`Origin::in_folder`]).
    pub group: &'a str,
}

impl<'a> Origin<'a> {
    /// A skill of `source` at `rank`, in the group of its source label.
    pub fn new(source: &'a str, rank: f64) -> Self {
        Self {
            source,
            rank,
            group: source,
        }
    }

    /// The origin of a skill whose rank is not known (a plain array of
    /// summaries): the rank its source label stands for ([`source_rank`]).
    pub fn of_source(source: &'a str) -> Self {
        Self::new(source, source_rank(source))
    }

    /// The same origin, in the group of the folder the skill was found in
    /// (`None`: unchanged).
    pub fn in_folder(self, folder: Option<&'a str>) -> Self {
        match folder {
            Some(group) => Self { group, ..self },
            None => self,
        }
    }
}

/// The folder a skill file was found in as a root entry, by the local
/// layouts: `<folder>/<dir>/SKILL.md` (a bundle) and `<folder>/<name>.md` (a
/// flat file). `None` for a path without such a folder.
pub fn skill_folder(path: &str) -> Option<&str> {
    let file = Path::new(path);
    let parent = file.parent()?;
    let folder = if file.file_name().is_some_and(|n| n == "SKILL.md") {
        parent.parent()?
    } else {
        parent
    };
    folder.to_str().filter(|f| !f.is_empty())
}

/// The local provider's sources, in rank order.
const LOCAL_SOURCES: [Source; 9] = [
    Source::ProjectDsh,
    Source::ProjectAgents,
    Source::ProjectClaude,
    Source::Custom,
    Source::UserDsh,
    Source::UserAgents,
    Source::UserClaude,
    Source::UserCodex,
    Source::Bundled,
];

/// Rank of the labels no source is known by: after every known one.
pub const UNKNOWN_SOURCE_RANK: f64 = f64::INFINITY;

/// The rank a source label stands for when a skill's own rank is not known:
/// the rank of the local provider's root of that label (`project-dsh` 100,
/// `project-agents` 200, `project-claude` 225, `custom` 300, `user-dsh` 400,
/// `user-agents` 500, `user-claude` 550, `user-codex` 575, `bundled` 600),
/// `runtime` 250, and [`UNKNOWN_SOURCE_RANK`] for any other label (all of
/// them one rank, after the known ones).
pub fn source_rank(source: &str) -> f64 {
    if source == RUNTIME_SOURCE {
        return RUNTIME_RANK;
    }
    LOCAL_SOURCES
        .iter()
        .find(|s| s.as_str() == source)
        .map_or(UNKNOWN_SOURCE_RANK, |s| s.rank())
}

impl<'a> Catalog<'a> {
    /// Like [`Catalog::new`], each entry with its [`Origin`]: under a budget,
    /// priority then goes by rank before name, and the report counts per
    /// source. Without a budget the entries are exactly those of
    /// [`Catalog::new`].
    pub fn with_origins(
        skills: impl IntoIterator<Item = (&'a str, &'a str, Origin<'a>)>,
        max_len: usize,
    ) -> Result<Self, CatalogError> {
        let max_len = super::check_max_length(max_len)?;
        let mut skills: Vec<(&str, &str, Origin<'_>)> = skills.into_iter().collect();
        // Names are ASCII once checked (`from_vec`): byte order is JS order.
        if !skills.windows(2).all(|w| w[0].0 <= w[1].0) {
            skills.sort_by(|a, b| a.0.cmp(b.0));
        }
        let origins = skills.iter().map(|s| s.2).collect();
        let mut catalog =
            Self::from_vec(skills.into_iter().map(|s| (s.0, s.1)).collect(), max_len)?;
        catalog.origins = origins;
        Ok(catalog)
    }

    /// The entries' origins, in entry order; empty for a catalog built
    /// without them.
    pub fn origins(&self) -> &[Origin<'a>] {
        &self.origins
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_ranks_follow_the_local_roots_and_runtime() {
        let ranked = [
            "project-dsh",
            "project-agents",
            "project-claude",
            "runtime",
            "custom",
            "user-dsh",
            "user-agents",
            "user-claude",
            "user-codex",
            "bundled",
        ];
        for pair in ranked.windows(2) {
            assert!(source_rank(pair[0]) < source_rank(pair[1]), "{pair:?}");
        }
        assert_eq!(source_rank("project-dsh"), 100.0);
        assert_eq!(source_rank("runtime"), 250.0);
        assert_eq!(source_rank("bundled"), 600.0);
        for unknown in ["remote", "", "Project-dsh"] {
            assert_eq!(source_rank(unknown), UNKNOWN_SOURCE_RANK);
        }
        assert!(source_rank("bundled") < UNKNOWN_SOURCE_RANK);
    }

    #[test]
    fn the_folder_of_a_skill_file_is_the_root_it_sits_in() {
        assert_eq!(skill_folder("/r/team/deploy/SKILL.md"), Some("/r/team"));
        assert_eq!(skill_folder("/r/team/deploy.md"), Some("/r/team"));
        assert_eq!(skill_folder("SKILL.md"), None);
        assert_eq!(skill_folder("/SKILL.md"), None);
        let origin = Origin::of_source("custom");
        assert_eq!(origin.group, "custom");
        assert_eq!(origin.in_folder(Some("/r/team")).group, "/r/team");
        assert_eq!(origin.in_folder(None), origin);
    }

    #[test]
    fn origins_follow_their_entries_into_name_order() {
        let catalog = Catalog::with_origins(
            [
                ("b", "two", Origin::of_source("bundled")),
                ("a", "one", Origin::of_source("project-dsh")),
                ("c", "three", Origin::of_source("remote")),
            ],
            500,
        )
        .expect("valid");
        assert_eq!(catalog.entries(), "- `a`: one\n- `b`: two\n- `c`: three");
        let sources: Vec<&str> = catalog.origins().iter().map(|o| o.source).collect();
        assert_eq!(sources, ["project-dsh", "bundled", "remote"]);
        assert!(Catalog::new([("a", "x")], 500)
            .expect("valid")
            .origins()
            .is_empty());
        assert!(Catalog::with_origins([("Bad", "x", Origin::of_source("x"))], 500).is_err());
        assert!(Catalog::with_origins([("a", "x", Origin::of_source("x"))], 2).is_err());
    }
}
