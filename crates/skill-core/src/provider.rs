//! The interface a native (Rust) provider implements so the registry can call it
//! without crossing into JS.

use crate::cancel::CancelToken;
use crate::model::{Candidate, Observation, SkillDefinition};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Caller context for one lookup.
#[derive(Clone, Debug, Default)]
pub struct LookupContext {
    /// Workspace selector (`cwd`), if any.
    pub cwd: Option<PathBuf>,
    /// Cancelled when the caller's signal aborts.
    pub cancel: CancelToken,
}

impl LookupContext {
    /// A context for `cwd` with a fresh cancellation token.
    pub fn new(cwd: Option<PathBuf>) -> Self {
        Self {
            cwd,
            cancel: CancelToken::new(),
        }
    }
}

/// A provider failure that is not "the skill is gone".
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ProviderError(pub String);

/// Something that can mark a provider's registration dirty. Handed to a native
/// provider when it is registered; watchers call it from their own threads.
pub trait Invalidate: Send + Sync {
    /// Drop completed catalogs and notify listeners. Returns `false` when the
    /// registration is no longer active (the call did nothing).
    fn invalidate(&self) -> bool;

    /// Like [`Invalidate::invalidate`] but without notifying listeners: the
    /// caller notifies them itself, synchronously (first-party mutations
    /// observed on the JS thread). Defaults to `invalidate()`.
    fn invalidate_silently(&self) -> bool {
        self.invalidate()
    }

    /// Notify listeners of a change that every cached catalog already
    /// reflects (a watcher's batch whose changes lookups applied, with
    /// [`Invalidate::invalidate_silently`], as they happened). Returns
    /// `false` when the registration is no longer active. Defaults to
    /// `invalidate()`.
    fn notify(&self) -> bool {
        self.invalidate()
    }
}

/// A native skill provider. Methods block and are called off the JS thread.
pub trait NativeProvider: Send + Sync {
    /// Unique provider name.
    fn name(&self) -> &str;

    /// Discover candidates for this lookup. Per-item failures become warnings
    /// (returned alongside) and, for unexpected I/O errors, `complete: false`.
    fn list(&self, ctx: &LookupContext) -> (Observation, Vec<String>);

    /// [`NativeProvider::list`] when the provider can do it at once on the
    /// caller's thread (a few reads at most: a watched provider whose kept
    /// listings cover the lookup). `None` means "call `list`" (and nothing
    /// was lost: a change seen meanwhile is kept for it). Default: `None`.
    fn list_kept(&self, _ctx: &LookupContext) -> Option<(Observation, Vec<String>)> {
        None
    }

    /// Load the full definition of a candidate this provider listed.
    /// `Ok(None)` means the skill is gone or no longer loadable.
    fn get(
        &self,
        candidate: &Candidate,
        ctx: &LookupContext,
    ) -> Result<Option<SkillDefinition>, ProviderError>;

    /// [`NativeProvider::get`] plus, when the skill is not loadable any more
    /// for a reason the user should hear (its file became invalid), a warning.
    fn get_explained(
        &self,
        candidate: &Candidate,
        ctx: &LookupContext,
    ) -> (
        Result<Option<SkillDefinition>, ProviderError>,
        Option<String>,
    ) {
        (self.get(candidate, ctx), None)
    }

    /// The definition [`NativeProvider::get`] would return, when the
    /// provider can tell without any I/O that one it loaded before is still
    /// current (a watched provider whose watcher noted nothing leading to
    /// it). `None` means "call `get`". Default: `None`.
    fn get_kept(
        &self,
        _candidate: &Candidate,
        _ctx: &LookupContext,
    ) -> Option<Arc<SkillDefinition>> {
        None
    }

    /// Called at the start of every lookup for `cwd`, before the catalog
    /// cache is consulted (a hit, or a collection in flight to join). A
    /// provider that can tell cheaply that its part of a cached catalog is
    /// stale (a change its watcher has seen, the project root of `cwd` moved)
    /// invalidates its registration from here, so the lookup collects
    /// afresh. Default: nothing.
    fn revalidate(&self, _cwd: Option<&Path>) {}

    /// Called when the provider is registered; watchers use the handle to
    /// invalidate that exact registration. Called with `None` on disposal.
    fn attach(&self, _invalidator: Option<Arc<dyn Invalidate>>) {}

    /// Whether the provider was disposed. A disposed provider no longer
    /// tells the registry when its skills change (its catalog would be cached
    /// for ever), so the registry refuses to register it. Default: `false`.
    fn is_disposed(&self) -> bool {
        false
    }
}
