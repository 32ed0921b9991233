//! Discovery through a host filesystem service.
//!
//! When the host has its own filesystem service (a remote or sandboxed
//! workspace), the host performs the I/O asynchronously — probing for `.git`,
//! listing roots, reading skill files — and hands the results to a
//! [`ServiceScan`]. Every rule stays here: which roots exist and their ranks,
//! which entries are skills and in which order, how texts parse, and what an
//! error code means. The bundled root is trusted host content and is always
//! read natively.
//!
//! Each skill file is resolved and `stat`ed before it is read, for discovery
//! exactly as for `get()`: a file the service reports absent is not there, one
//! that is not a regular file is skipped, so the catalog never lists a skill
//! that `get()` cannot load.
//!
//! Error codes: `FS_NOT_FOUND` and `FS_NOT_DIRECTORY`, and the raw Node codes
//! `ENOENT` and `ENOTDIR` that some services pass through, mean absence (an
//! empty root, a skill that is gone); `FS_NOT_TEXT` means "not a text file"
//! (that skill is skipped with a warning); anything else is a transient
//! failure that makes the observation incomplete.

use super::discover::{self, file_outcome, parse_skill_text, FileScan, Item, Scan};
use super::fs::{EntryKind, SkillFs};
use super::order::sort_by_name;
use super::workers::parallel_map;
use super::{
    make_absolute, roots, FileOutcome, LocalProvider, Project, ReadOutcome, RootSpec, RootStatus,
    Source,
};
use crate::cancel::CancelToken;
use std::path::{Path, PathBuf};

/// What a service error code means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorClass {
    /// `FS_NOT_FOUND`, `FS_NOT_DIRECTORY`, `ENOENT`, `ENOTDIR`: the path does
    /// not exist.
    Absent,
    /// `FS_NOT_TEXT`: the file is not text.
    NotText,
    /// Anything else (or no code): an unexpected, possibly transient failure.
    Transient,
}

impl ErrorClass {
    /// Classify an error's `code`.
    pub fn of(code: Option<&str>) -> Self {
        match code {
            Some("FS_NOT_FOUND" | "FS_NOT_DIRECTORY" | "ENOENT" | "ENOTDIR") => ErrorClass::Absent,
            Some("FS_NOT_TEXT") => ErrorClass::NotText,
            _ => ErrorClass::Transient,
        }
    }
}

/// An error reported by the service.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServiceError {
    /// The error's `code`, if it had a string one.
    pub code: Option<String>,
    /// Human-readable message.
    pub message: String,
}

impl ServiceError {
    /// What the code means.
    pub fn class(&self) -> ErrorClass {
        ErrorClass::of(self.code.as_deref())
    }

    fn describe(&self) -> String {
        match &self.code {
            Some(code) if !self.message.contains(code.as_str()) => {
                format!("{} ({code})", self.message)
            }
            _ => self.message.clone(),
        }
    }
}

/// The kind of an entry or path as the service reports it (`file`,
/// `directory`, `other`; links already followed).
pub fn kind_of(kind: &str) -> EntryKind {
    match kind {
        "file" => EntryKind::File,
        "directory" => EntryKind::Dir,
        _ => EntryKind::Other,
    }
}

/// The result of reading one skill file through the service (`resolve`,
/// `stat`, then `readText`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServiceRead {
    /// `readText` resolved.
    Text(String),
    /// `stat` resolved to `undefined`: the file is not there.
    Absent,
    /// `stat` says the path is not a regular file.
    NotFile(EntryKind),
    /// A call failed.
    Error(ServiceError),
}

/// What reading a skill file through the service means (same outcomes as a
/// native read).
pub fn read_outcome(read: &ServiceRead, cap: u64) -> ReadOutcome {
    match read {
        ServiceRead::Text(text) => parse_skill_text(text, cap),
        ServiceRead::Absent => ReadOutcome::Gone,
        ServiceRead::NotFile(kind) => discover::not_regular(*kind),
        ServiceRead::Error(e) => match e.class() {
            ErrorClass::Absent => ReadOutcome::Gone,
            ErrorClass::NotText => {
                ReadOutcome::Invalid(format!("not a text file: {}", e.describe()))
            }
            ErrorClass::Transient => ReadOutcome::Failed(format!("cannot read: {}", e.describe())),
        },
    }
}

/// One directory probed for `.git` while looking for the project root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Probe {
    /// The candidate project root.
    pub dir: PathBuf,
    /// `<dir>/.git`, to `resolve` and `stat`.
    pub git: PathBuf,
}

/// The directories to probe for the project root of `cwd`, nearest first. The
/// first whose `.git` resolves and stats to something is the project root; a
/// failed probe means "not here". None found: `cwd` (the first `dir`).
pub fn project_probes(cwd: &Path) -> Vec<Probe> {
    roots::normalize(cwd)
        .ancestors()
        .map(|dir| Probe {
            dir: dir.to_path_buf(),
            git: dir.join(".git"),
        })
        .collect()
}

/// One entry listed by the service.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServiceEntry {
    /// File name (not a path).
    pub name: String,
    /// Its kind, links followed.
    pub kind: EntryKind,
}

/// A skill file the host has to read for a [`ServiceScan`]: resolve `path`,
/// `stat` the target, then read its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadRequest {
    /// Identifies the read in [`LocalProvider::finish_service_scan`].
    pub id: usize,
    /// The skill file.
    pub path: PathBuf,
}

/// One lookup's discovery through a host filesystem service, in progress.
#[derive(Debug)]
pub struct ServiceScan {
    project_root: Option<PathBuf>,
    roots: Vec<RootSpec>,
    statuses: Vec<Option<RootStatus>>,
    items: Vec<Item>,
    healthy: bool,
}

impl ServiceScan {
    /// The project root of the lookup.
    pub fn project_root(&self) -> Option<&Path> {
        self.project_root.as_deref()
    }

    /// Every root of the lookup, in rank order, with its index.
    pub fn roots(&self) -> &[RootSpec] {
        &self.roots
    }

    /// Indices of the roots the host lists through its service (every root
    /// but the bundled one).
    pub fn service_roots(&self) -> Vec<usize> {
        (0..self.roots.len())
            .filter(|&i| self.roots[i].source != Source::Bundled)
            .collect()
    }

    fn service_root(&self, root: usize) -> bool {
        self.roots
            .get(root)
            .is_some_and(|r| r.source != Source::Bundled)
            && self.statuses[root].is_none()
    }

    /// Resolving or listing `root` failed. Returns whether the host should
    /// `stat` the root and report what it is ([`Self::root_stat`]): listing
    /// said "not a directory" (`FS_NOT_DIRECTORY`, `ENOTDIR`), and a file
    /// standing where a root should be is worth a warning, as on the native
    /// path, where an absent path or one below a file is not.
    pub fn root_failed(&mut self, root: usize, error: &ServiceError) -> bool {
        if !self.service_root(root) {
            return false;
        }
        self.statuses[root] = Some(match error.class() {
            ErrorClass::Absent => RootStatus::Missing,
            _ => RootStatus::Failed(format!(
                "cannot list skill root {}: {}",
                self.roots[root].path.display(),
                error.describe()
            )),
        });
        matches!(error.code.as_deref(), Some("FS_NOT_DIRECTORY" | "ENOTDIR"))
    }

    /// What `stat` said the path of `root` is, after [`Self::root_failed`]
    /// asked (`None`: it could not tell). Only a root read as missing changes.
    pub fn root_stat(&mut self, root: usize, kind: Option<EntryKind>) {
        let Some(status) = self.statuses.get_mut(root) else {
            return;
        };
        if let (Some(RootStatus::Missing), Some(kind)) = (&status, kind) {
            *status = Some(discover::not_directory(kind));
        }
    }

    /// `root` was listed: classify and order its entries (one level). Returns
    /// the skill files to read, in discovery order.
    pub fn root_listed(&mut self, root: usize, entries: &[ServiceEntry]) -> Vec<ReadRequest> {
        if !self.service_root(root) {
            return Vec::new();
        }
        self.statuses[root] = Some(RootStatus::Scanned);
        let spec = self.roots[root].clone();
        let mut order: Vec<(&str, usize)> = entries
            .iter()
            .enumerate()
            .map(|(i, e)| (e.name.as_str(), i))
            .collect();
        sort_by_name(&mut order, |(name, _)| name);
        let mut reads = Vec::new();
        for (_, i) in order {
            let entry = &entries[i];
            // A service name is a plain file name; anything else is ignored.
            if entry.name.is_empty()
                || entry.name == "."
                || entry.name == ".."
                || entry.name.contains(['/', '\\'])
            {
                continue;
            }
            let path = spec.path.join(&entry.name);
            let item = discover::reserved(root, &spec, &entry.name, &path)
                .or_else(|| discover::classify(root, &spec, &entry.name, entry.kind, path));
            let Some(item) = item else { continue };
            if item.decided.is_none() {
                reads.push(ReadRequest {
                    id: self.items.len(),
                    path: item.path.clone(),
                });
            }
            self.items.push(item);
        }
        reads
    }
}

impl LocalProvider {
    /// Start discovery through a host filesystem service for a lookup from
    /// `cwd` whose project root (found through the service, see
    /// [`project_probes`]) is `project_root`. The roots are watched on the
    /// host as in a native scan.
    pub fn begin_service_scan(
        &self,
        project_root: Option<&Path>,
        cwd: Option<&Path>,
    ) -> ServiceScan {
        let cwd = cwd.map(roots::normalize);
        let project = project_root
            .filter(|_| self.config.has_project_roots())
            .map(|root| Project::new(&self.config, make_absolute(root), cwd.as_deref()));
        if let Some(project) = &project {
            self.lookups.record(None, project);
        }
        let roots = super::roots::roots_for(&self.config, project.as_ref());
        let healthy = self.observe_roots(project.as_ref(), &roots);
        let project_root = project.map(|p| p.root);
        let statuses = vec![None; roots.len()];
        ServiceScan {
            project_root,
            roots,
            statuses,
            items: Vec::new(),
            healthy,
        }
    }

    /// Finish a [`ServiceScan`]: `reads[id]` is the result of read request
    /// `id` (a missing result counts as a failure). The bundled root is read
    /// natively through `fs`.
    fn service_scan(
        &self,
        scan: ServiceScan,
        mut reads: Vec<Option<ServiceRead>>,
        fs: &dyn SkillFs,
        cancel: &CancelToken,
    ) -> (Option<PathBuf>, Scan, bool) {
        let cap = self.config.max_skill_file_bytes;
        let mut complete = true;
        // Parse on a few threads, as a native scan does.
        let pending: Vec<(usize, Option<super::Layout>, ServiceRead)> = scan
            .items
            .iter()
            .enumerate()
            .filter(|(_, item)| item.decided.is_none())
            .filter_map(|(id, item)| Some((id, item.layout, reads.get_mut(id)?.take()?)))
            .collect();
        let parsed = parallel_map(&pending, cancel, |(_, layout, read)| {
            file_outcome(*layout, read_outcome(read, cap))
        });
        let mut outcomes: Vec<Option<FileOutcome>> = vec![None; scan.items.len()];
        for ((id, _, _), outcome) in pending.iter().zip(parsed) {
            outcomes[*id] = outcome;
        }
        let mut files: Vec<FileScan> = Vec::with_capacity(scan.items.len());
        for (item, outcome) in scan.items.into_iter().zip(outcomes) {
            let outcome = match (item.decided, outcome) {
                (Some(decided), _) => decided,
                (None, Some(outcome)) => outcome,
                (None, None) => FileOutcome::Failed("not read".into()),
            };
            files.push(FileScan {
                root: item.root,
                path: item.path,
                base: item.base,
                layout: item.layout,
                outcome,
            });
        }
        // Roots may have been listed in any order; discovery order is rank
        // order, then entry order (the sort is stable).
        files.sort_by_key(|f| f.root);
        let mut roots = Vec::with_capacity(scan.roots.len());
        for (index, (spec, status)) in scan.roots.into_iter().zip(scan.statuses).enumerate() {
            let status = if spec.source == Source::Bundled {
                let native =
                    discover::scan(fs, std::slice::from_ref(&spec), cap, &self.cache, cancel);
                complete &= native.complete;
                files.extend(
                    native
                        .files
                        .into_iter()
                        .map(|f| FileScan { root: index, ..f }),
                );
                native
                    .roots
                    .into_iter()
                    .next()
                    .map_or(RootStatus::Missing, |(_, s)| s)
            } else {
                status.unwrap_or_else(|| {
                    RootStatus::Failed(format!("skill root {} was not listed", spec.path.display()))
                })
            };
            if matches!(status, RootStatus::Failed(_)) {
                complete = false;
            }
            roots.push((spec, status));
        }
        if files
            .iter()
            .any(|f| matches!(f.outcome, FileOutcome::Failed(_)))
        {
            complete = false;
        }
        let complete = complete && !cancel.is_cancelled();
        (
            scan.project_root,
            Scan {
                roots,
                files,
                complete,
            },
            scan.healthy,
        )
    }

    /// Finish a [`ServiceScan`] into the discovery `list()` returns.
    pub fn finish_service_scan(
        &self,
        scan: ServiceScan,
        reads: Vec<Option<ServiceRead>>,
        cancel: &CancelToken,
    ) -> super::Discovery {
        let (_, scan, healthy) = self.service_scan(scan, reads, self.fs.as_ref(), cancel);
        let scan = super::collected::Collected::of_scan(&self.config.provider_name, scan);
        self.report(scan, healthy, cancel.is_cancelled())
    }

    /// Finish a [`ServiceScan`] into the diagnosis `diagnose()` returns.
    pub fn diagnose_service_scan(
        &self,
        scan: ServiceScan,
        reads: Vec<Option<ServiceRead>>,
        cwd: Option<&Path>,
        cancel: &CancelToken,
    ) -> super::Diagnosis {
        let (project, scan, healthy) = self.service_scan(scan, reads, self.fs.as_ref(), cancel);
        let scan = super::collected::Collected::of_scan(&self.config.provider_name, scan);
        self.explain(cwd, project.as_deref(), scan, healthy)
    }

    /// Re-parse the skill file at `path` from a read through the service
    /// (what `get()` does with a service). The host checks first, with
    /// [`LocalProvider::confine_in`], that `path` may be loaded (`project`:
    /// the project root of the lookup from `cwd`, found through the service),
    /// and reads the normalised path it returns. `Ok(None)`: the file is gone.
    pub fn load_from_service(
        &self,
        path: &Path,
        project: Option<&Path>,
        cwd: Option<&Path>,
        read: ServiceRead,
    ) -> Result<Option<crate::model::SkillDefinition>, super::LoadError> {
        let placement = self.confine_in(path, project, cwd)?;
        let outcome = read_outcome(&read, self.config.max_skill_file_bytes);
        super::definition(&self.config.provider_name, placement, outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::local::tests::{names, pairs};
    use crate::local::LocalOptions;
    use crate::model::ResourceBase;
    use std::fs;
    use tempfile::TempDir;

    fn skill(name: &str) -> String {
        format!("---\nname: {name}\ndescription: {name} skill\n---\n\nBody of {name}.\n")
    }

    fn write(path: &Path, text: &str) {
        fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        fs::write(path, text).expect("write");
    }

    struct Env {
        _tmp: TempDir,
        root: PathBuf,
    }

    impl Env {
        fn new() -> Self {
            let tmp = TempDir::new().expect("tempdir");
            let root = fs::canonicalize(tmp.path()).expect("canonicalize");
            Env { _tmp: tmp, root }
        }

        fn provider(&self, cap: Option<f64>) -> LocalProvider {
            let options = LocalOptions {
                dsh_home: Some(self.root.join("home/.dsh").display().to_string()),
                agents_home: Some(self.root.join("home/.agents").display().to_string()),
                bundled_skill_dir: Some(self.root.join("bundled").display().to_string()),
                max_skill_file_bytes: cap,
                ..LocalOptions::default()
            };
            LocalProvider::new(options.resolve_with(&|_| None).expect("config"))
        }
    }

    fn error(code: &str) -> ServiceError {
        ServiceError {
            code: Some(code.into()),
            message: format!("{code}: injected"),
        }
    }

    /// Plays the host: lists and reads with `std::fs`, except where `fault`
    /// returns an error for a path.
    fn run(
        provider: &LocalProvider,
        project: Option<&Path>,
        fault: &dyn Fn(&Path) -> Option<ServiceError>,
    ) -> crate::local::Discovery {
        let mut scan = provider.begin_service_scan(project, None);
        let mut reads = Vec::new();
        for root in scan.service_roots() {
            let path = scan.roots()[root].path.clone();
            if let Some(e) = fault(&path) {
                scan.root_failed(root, &e);
                continue;
            }
            let listing = match fs::read_dir(&path) {
                Ok(l) => l,
                Err(_) => {
                    scan.root_failed(root, &error("FS_NOT_FOUND"));
                    continue;
                }
            };
            let entries: Vec<ServiceEntry> = listing
                .map(|e| {
                    let e = e.expect("entry");
                    let meta = fs::metadata(e.path()).expect("metadata");
                    ServiceEntry {
                        name: e.file_name().into_string().expect("utf-8"),
                        kind: if meta.is_dir() {
                            EntryKind::Dir
                        } else if meta.is_file() {
                            EntryKind::File
                        } else {
                            EntryKind::Other
                        },
                    }
                })
                .collect();
            for request in scan.root_listed(root, &entries) {
                let read = match fault(&request.path) {
                    Some(e) => ServiceRead::Error(e),
                    None => match fs::read_to_string(&request.path) {
                        Ok(text) => ServiceRead::Text(text),
                        Err(_) => ServiceRead::Error(error("FS_NOT_FOUND")),
                    },
                };
                if reads.len() <= request.id {
                    reads.resize(request.id + 1, None);
                }
                reads[request.id] = Some(read);
            }
        }
        provider.finish_service_scan(scan, reads, &CancelToken::new())
    }

    #[test]
    fn a_root_that_is_not_a_directory_is_asked_about_and_then_warned_of() {
        let env = Env::new();
        let provider = env.provider(None);
        let user = env.root.join("home/.dsh/skills");
        let agents = env.root.join("home/.agents/skills");
        let mut scan = provider.begin_service_scan(None, None);
        let index = |p: &Path| {
            scan.roots()
                .iter()
                .position(|r| r.path == p)
                .expect("a configured root")
        };
        let (user_i, agents_i) = (index(&user), index(&agents));
        // Absent: nothing to ask. Not a directory: asked; a file stands there.
        assert!(!scan.root_failed(agents_i, &error("FS_NOT_FOUND")));
        assert!(scan.root_failed(user_i, &error("FS_NOT_DIRECTORY")));
        scan.root_stat(user_i, Some(EntryKind::File));
        // Only a root read as missing changes.
        scan.root_stat(agents_i, None);
        let d = provider.finish_service_scan(scan, Vec::new(), &CancelToken::new());
        assert!(d.observation.complete);
        let about: Vec<&String> = d
            .warnings
            .iter()
            .filter(|w| w.contains("not a directory"))
            .collect();
        assert_eq!(about.len(), 1, "{:?}", d.warnings);
        assert!(about[0].contains(&user.display().to_string()));
        // A directory after all (a race), or a failed stat: an empty root, silently.
        for kind in [Some(EntryKind::Dir), None] {
            let mut scan = provider.begin_service_scan(None, None);
            let i = scan
                .roots()
                .iter()
                .position(|r| r.path == user)
                .expect("root");
            assert!(scan.root_failed(i, &error("ENOTDIR")));
            scan.root_stat(i, kind);
            let d = provider.finish_service_scan(scan, Vec::new(), &CancelToken::new());
            assert!(d.warnings.iter().all(|w| !w.contains("not a directory")));
        }
    }

    #[test]
    fn error_codes_are_classified() {
        assert_eq!(ErrorClass::of(Some("FS_NOT_FOUND")), ErrorClass::Absent);
        assert_eq!(ErrorClass::of(Some("FS_NOT_DIRECTORY")), ErrorClass::Absent);
        assert_eq!(ErrorClass::of(Some("FS_NOT_TEXT")), ErrorClass::NotText);
        assert_eq!(ErrorClass::of(Some("EACCES")), ErrorClass::Transient);
        assert_eq!(ErrorClass::of(None), ErrorClass::Transient);
        assert_eq!(kind_of("directory"), EntryKind::Dir);
        assert_eq!(kind_of("file"), EntryKind::File);
        assert_eq!(kind_of("symlink"), EntryKind::Other);
    }

    #[test]
    fn probes_walk_up_from_cwd() {
        let probes = project_probes(Path::new("/a/b"));
        let dirs: Vec<_> = probes.iter().map(|p| p.dir.clone()).collect();
        assert_eq!(
            dirs,
            vec![
                PathBuf::from("/a/b"),
                PathBuf::from("/a"),
                PathBuf::from("/")
            ]
        );
        assert_eq!(probes[0].git, PathBuf::from("/a/b/.git"));
    }

    #[test]
    fn listing_is_classified_and_ordered() {
        let env = Env::new();
        let provider = env.provider(None);
        let mut scan = provider.begin_service_scan(None, None);
        let user_dsh = scan
            .roots()
            .iter()
            .position(|r| r.source == Source::UserDsh)
            .expect("user-dsh root");
        let entry = |name: &str, kind| ServiceEntry {
            name: name.into(),
            kind,
        };
        let entries = [
            entry("zeta.md", EntryKind::File),
            entry(".system", EntryKind::Dir),
            entry("Beta", EntryKind::Dir),
            entry("alpha.md", EntryKind::File),
            entry("notes.txt", EntryKind::File),
            entry("pipe.md", EntryKind::Other),
            entry("../escape", EntryKind::Dir),
        ];
        let reads = scan.root_listed(user_dsh, &entries);
        let root = &scan.roots()[user_dsh].path;
        assert_eq!(
            reads,
            vec![
                ReadRequest {
                    id: 1,
                    path: root.join("alpha.md"),
                },
                ReadRequest {
                    id: 2,
                    path: root.join("Beta/SKILL.md"),
                },
                ReadRequest {
                    id: 4,
                    path: root.join("zeta.md"),
                },
            ]
        );
        // Listing the same root twice does nothing more.
        assert!(scan.root_listed(user_dsh, &entries).is_empty());
        let d = provider.finish_service_scan(
            scan,
            vec![
                None,
                Some(ServiceRead::Text(skill("alpha"))),
                Some(ServiceRead::Error(error("FS_NOT_FOUND"))),
                None,
                Some(ServiceRead::Text(skill("zeta"))),
            ],
            &CancelToken::new(),
        );
        assert_eq!(
            names(&d),
            pairs(&[("alpha", "user-dsh"), ("zeta", "user-dsh")])
        );
        // The other roots were never listed: incomplete.
        assert!(!d.observation.complete);
        assert!(
            d.warnings
                .iter()
                .any(|w| w.contains("pipe.md skipped: not a regular file")),
            "{:?}",
            d.warnings
        );
        assert!(
            !d.warnings.iter().any(|w| w.contains("Beta")),
            "{:?}",
            d.warnings
        );
    }

    #[test]
    fn service_discovery_matches_rules_and_faults() {
        let env = Env::new();
        let project = env.root.join("project");
        write(
            &project.join(".dsh/skills/shared/SKILL.md"),
            &skill("shared"),
        );
        write(&project.join(".agents/skills/agents.md"), &skill("agents"));
        write(
            &env.root.join("home/.dsh/skills/shared.md"),
            &skill("shared"),
        );
        write(
            &env.root.join("home/.dsh/skills/binary.md"),
            &skill("binary"),
        );
        write(
            &env.root.join("home/.dsh/skills/big.md"),
            &skill("big").repeat(50),
        );
        write(
            &env.root.join("home/.dsh/skills/.system/SKILL.md"),
            &skill("system"),
        );
        write(
            &env.root.join("bundled/builtin/SKILL.md"),
            &skill("builtin"),
        );
        let provider = env.provider(Some(200.0));
        let binary = env.root.join("home/.dsh/skills/binary.md");

        let no_fault = |_: &Path| None;
        let not_text = |p: &Path| (p == binary).then(|| error("FS_NOT_TEXT"));
        let d = run(&provider, Some(&project), &not_text);
        assert_eq!(
            names(&d),
            pairs(&[
                ("shared", "project-dsh"),
                ("agents", "project-agents"),
                ("shared", "user-dsh"),
                ("builtin", "bundled"),
            ])
        );
        assert!(d.observation.complete, "{:?}", d.warnings);
        assert!(
            d.warnings
                .iter()
                .any(|w| w.contains("binary.md skipped: not a text file")),
            "{:?}",
            d.warnings
        );
        assert!(
            d.warnings
                .iter()
                .any(|w| w.contains("big.md skipped: file is larger than maxSkillFileBytes")),
            "{:?}",
            d.warnings
        );
        let bundle = &d.observation.candidates[0];
        assert_eq!(
            bundle.summary.resource_base,
            Some(ResourceBase::Directory {
                path: project.join(".dsh/skills/shared").display().to_string()
            })
        );

        // A transient failure on a root, or on a read, is incomplete.
        let user_root = env.root.join("home/.dsh/skills");
        let d = run(&provider, Some(&project), &|p: &Path| {
            (p == user_root).then(|| error("EIO"))
        });
        assert!(!d.observation.complete);
        assert_eq!(names(&d).len(), 3);
        assert!(d
            .warnings
            .iter()
            .any(|w| w.contains("cannot list skill root")));
        let shared = project.join(".dsh/skills/shared/SKILL.md");
        let d = run(&provider, Some(&project), &|p: &Path| {
            (p == shared).then(|| error("EBUSY"))
        });
        assert!(!d.observation.complete);
        assert!(d.warnings.iter().any(|w| w.contains("cannot read")));

        // Absence is an empty root; the snapshot stays complete.
        let d = run(&provider, Some(&project), &|p: &Path| {
            (p == user_root).then(|| error("FS_NOT_DIRECTORY"))
        });
        assert!(d.observation.complete);
        let d = run(&provider, None, &no_fault);
        assert_eq!(
            names(&d),
            pairs(&[
                ("binary", "user-dsh"),
                ("shared", "user-dsh"),
                ("builtin", "bundled")
            ])
        );
        assert!(d.observation.complete);
    }

    #[test]
    fn diagnosis_through_service() {
        let env = Env::new();
        write(&env.root.join("home/.agents/skills/a.md"), &skill("a"));
        let provider = env.provider(None);
        let mut scan = provider.begin_service_scan(Some(&env.root), None);
        for root in scan.service_roots() {
            scan.root_failed(root, &error("FS_NOT_FOUND"));
        }
        let d =
            provider.diagnose_service_scan(scan, Vec::new(), Some(&env.root), &CancelToken::new());
        assert!(d.complete);
        assert_eq!(d.project_root, Some(env.root.display().to_string()));
        assert!(d.roots.iter().all(|r| r.status == "missing"));
    }

    #[test]
    fn load_from_a_service_read() {
        let env = Env::new();
        let provider = env.provider(None);
        let file = env.root.join("home/.dsh/skills/a.md");
        let d = provider
            .load_from_service(&file, None, None, ServiceRead::Text(skill("a")))
            .expect("load")
            .expect("definition");
        assert_eq!(d.summary.name, "a");
        assert_eq!(d.summary.source, "user-dsh");
        assert_eq!(d.content, "Body of a.");
        assert_eq!(d.path, Some(file.display().to_string()));
        let load = |read| provider.load_from_service(&file, None, None, read);
        assert_eq!(load(ServiceRead::Error(error("FS_NOT_FOUND"))), Ok(None));
        assert_eq!(load(ServiceRead::Error(error("ENOENT"))), Ok(None));
        assert_eq!(load(ServiceRead::Absent), Ok(None));
        assert!(matches!(
            load(ServiceRead::Error(error("FS_NOT_TEXT"))),
            Err(crate::local::LoadError::Invalid { .. })
        ));
        assert!(matches!(
            load(ServiceRead::NotFile(EntryKind::Dir)),
            Err(crate::local::LoadError::Invalid { .. })
        ));
        assert!(matches!(
            load(ServiceRead::Error(error("EIO"))),
            Err(crate::local::LoadError::Io { .. })
        ));
        // Only skill files of a known root load: the project's once given.
        let project = env.root.join("project");
        let in_project = project.join(".agents/skills/p.md");
        assert!(matches!(
            provider.load_from_service(&in_project, None, None, ServiceRead::Text(skill("p"))),
            Err(crate::local::LoadError::Outside(_))
        ));
        let d = provider
            .load_from_service(
                &in_project,
                Some(&project),
                None,
                ServiceRead::Text(skill("p")),
            )
            .expect("load")
            .expect("definition");
        assert_eq!(d.summary.source, "project-agents");
        assert!(matches!(
            provider.load_from_service(
                Path::new("/etc/passwd.md"),
                Some(&project),
                None,
                ServiceRead::Text(skill("x"))
            ),
            Err(crate::local::LoadError::Outside(_))
        ));
    }
}
