//! The local provider's root watcher: a [`SkillWatcher`] behind the provider's
//! [`RootObserver`] seam.
//!
//! Every discovery tells the watcher which roots it is about to read: shared
//! roots (custom, user, compatibility, bundled) are watched once; the
//! project's roots go into the least-recently-observed project set, keyed by
//! the lookup's project scope (its project root, or with nested roots the
//! lookup directory, whose nested roots differ from its neighbours'). Changes invalidate the provider's
//! registration; warnings are kept for the next discovery to report.

use super::{RootKind, RootSpec, SkillWatcher, WatchConfig};
use crate::local::{self, LocalProvider, RootObserver};
use crate::provider::Invalidate;
use std::num::NonZeroUsize;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::Duration;

type Slot = Arc<RwLock<Option<Arc<dyn Invalidate>>>>;

/// A [`RootObserver`] backed by a [`SkillWatcher`].
pub struct LocalWatcher {
    watcher: SkillWatcher,
    invalidator: Slot,
    warnings: Arc<Mutex<Vec<String>>>,
    /// The shared roots last handed to the watcher.
    shared: Mutex<Vec<RootSpec>>,
}

impl std::fmt::Debug for LocalWatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalWatcher")
            .field("watcher", &self.watcher)
            .finish_non_exhaustive()
    }
}

/// The watcher settings of a local provider configuration.
pub fn watch_config(config: &local::WatchConfig) -> WatchConfig {
    WatchConfig {
        use_polling: config.use_polling,
        stability_threshold: Duration::from_millis(config.stability_threshold_ms),
        poll_interval: Duration::from_millis(config.poll_interval_ms),
        max_projects: NonZeroUsize::new(config.max_projects).unwrap_or(NonZeroUsize::MIN),
        follow_symlinks: config.follow_symlinks,
    }
}

impl LocalWatcher {
    /// A watcher with `config`. Nothing is watched until the first discovery.
    pub fn new(config: WatchConfig) -> Self {
        let invalidator: Slot = Arc::new(RwLock::new(None));
        let warnings = Arc::new(Mutex::new(Vec::new()));
        // The callbacks hold the invalidator slot (whose invalidator holds the
        // registry weakly) and the warning queue: never the provider.
        let slot = Arc::clone(&invalidator);
        let on_change = Arc::new(move || {
            let current = slot.read().unwrap_or_else(PoisonError::into_inner).clone();
            if let Some(invalidator) = current {
                invalidator.invalidate();
            }
        });
        let slot = Arc::clone(&invalidator);
        let on_notify = Arc::new(move || {
            let current = slot.read().unwrap_or_else(PoisonError::into_inner).clone();
            if let Some(invalidator) = current {
                invalidator.notify();
            }
        });
        let queue = Arc::clone(&warnings);
        let on_warning = Arc::new(move |message: String| {
            let mut queue = queue.lock().unwrap_or_else(PoisonError::into_inner);
            // Bounded: a provider nobody lists must not grow without limit.
            if queue.len() < 64 {
                queue.push(message);
            }
        });
        Self {
            watcher: SkillWatcher::with_notify(config, on_change, on_notify, on_warning),
            invalidator,
            warnings,
            shared: Mutex::new(Vec::new()),
        }
    }

    /// Install a watcher on `provider` when its configuration enables watching.
    /// Returns whether one was installed.
    pub fn install(provider: &LocalProvider) -> bool {
        Self::installed(provider).is_some()
    }

    /// [`install`](Self::install), returning the watcher installed (for
    /// diagnostics).
    pub fn installed(provider: &LocalProvider) -> Option<Arc<Self>> {
        let config = &provider.config().watch;
        if !config.enabled {
            return None;
        }
        let watcher = Arc::new(Self::new(watch_config(config)));
        provider.set_observer(Some(watcher.clone()));
        Some(watcher)
    }

    /// The underlying watcher (diagnostics: watch count, watched paths).
    pub fn watcher(&self) -> &SkillWatcher {
        &self.watcher
    }
}

fn spec(root: &local::RootSpec) -> RootSpec {
    RootSpec {
        path: root.path.clone(),
        kind: if root.skips_system() {
            RootKind::UserDsh
        } else {
            RootKind::Plain
        },
    }
}

impl RootObserver for LocalWatcher {
    fn observing(&self, project_root: Option<&Path>, roots: &[local::RootSpec]) -> bool {
        let (shared, project_roots) = split(roots);
        let project = project_root.map(|p| (p, project_roots.as_slice()));
        *self.shared.lock().unwrap_or_else(PoisonError::into_inner) == shared
            && self.watcher.observes(&shared, project)
    }

    fn observed(&self, project_root: Option<&Path>, roots: &[local::RootSpec]) -> bool {
        let (shared, project_roots) = split(roots);
        let project = project_root.map(|p| (p, project_roots.as_slice()));
        {
            let mut last = self.shared.lock().unwrap_or_else(PoisonError::into_inner);
            if *last != shared || !self.watcher.healthy() {
                self.watcher.observe(Some(&shared), project);
                *last = shared;
            } else {
                self.watcher.observe(None, project);
            }
        }
        self.watcher.healthy()
    }

    fn catch_up(&self) {
        self.watcher.catch_up(&|| {
            let current = self
                .invalidator
                .read()
                .unwrap_or_else(PoisonError::into_inner)
                .clone();
            if let Some(invalidator) = current {
                invalidator.invalidate_silently();
            }
        });
    }

    fn take_changes(&self) -> local::Changes {
        self.watcher.take_changes()
    }

    fn take_warnings(&self) -> Vec<String> {
        std::mem::take(&mut *self.warnings.lock().unwrap_or_else(PoisonError::into_inner))
    }

    fn attach(&self, invalidator: Option<Arc<dyn Invalidate>>) {
        *self
            .invalidator
            .write()
            .unwrap_or_else(PoisonError::into_inner) = invalidator;
    }

    fn close(&self) {
        self.watcher.close();
    }
}

/// A lookup's roots as the watcher takes them: the shared ones (the same for
/// every lookup) and the project's.
fn split(roots: &[local::RootSpec]) -> (Vec<RootSpec>, Vec<RootSpec>) {
    let shared = roots
        .iter()
        .filter(|r| !r.source.is_project())
        .map(spec)
        .collect();
    let project = roots
        .iter()
        .filter(|r| r.source.is_project())
        .map(spec)
        .collect();
    (shared, project)
}
