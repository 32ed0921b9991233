//! Definitions a watched provider loaded, handed out again while the watcher
//! vouches that their files did not change.
//!
//! `get()` of a skill reads its file again each time. While a healthy watcher
//! keeps a root's listing (see `live.rs`), every change in that root reaches
//! the provider as a path before any lookup answers (read-your-writes), so a
//! definition loaded from it stays what its file holds until a path noted
//! leads to it: the file, its bundle, its root, or a directory above. Such a
//! path, a change the watcher cannot place ([`Changes::All`]), or a
//! first-party write reported with `observeHostMutation` forgets it.
//!
//! A definition is kept only when nothing was noted between the moment its
//! file was read and the moment it is kept (a change noted meanwhile may be
//! the one that made the read stale, and it is not noted again); only for a
//! root whose listing is kept (its watcher vouches for it); only for a plain
//! file in place (not reached through a link, whose target may change where
//! nothing watched reports it; see `LocalProvider::load`); and within a
//! budget of bytes. Handing one out is a lookup in memory: no file is opened.

use super::confine::Placement;
use super::live::Changes;
use super::roots::Source;
use crate::model::SkillDefinition;
use lru::LruCache;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// Bytes of definitions kept, at most (bodies, texts and paths).
const BUDGET: usize = 8 << 20;
/// A definition larger than this is never kept: it would push out many.
const LARGEST: usize = 256 << 10;
/// What one kept definition costs besides its texts.
const OVERHEAD: usize = 320;
/// Above this many (definition, path noted) pairs, everything is forgotten.
const FORGET_ALL: usize = 65_536;

struct Kept {
    base: PathBuf,
    source: Source,
    definition: Arc<SkillDefinition>,
    bytes: usize,
}

#[derive(Default)]
struct State {
    kept: Option<LruCache<PathBuf, Kept>>,
    bytes: usize,
    /// Times something was noted (or everything forgotten).
    generation: u64,
}

impl State {
    fn kept(&mut self) -> &mut LruCache<PathBuf, Kept> {
        self.kept.get_or_insert_with(LruCache::unbounded)
    }
}

/// The kept definitions of one provider.
#[derive(Default)]
pub(crate) struct Definitions {
    state: Mutex<State>,
}

fn weight(definition: &SkillDefinition) -> usize {
    let s = &definition.summary;
    OVERHEAD
        + definition.content.len()
        + definition.path.as_ref().map_or(0, String::len)
        + s.name.len()
        + s.description.len()
        + s.when_to_use.as_ref().map_or(0, String::len)
        + s.source.len()
        + s.provider.len()
        + definition.metadata.as_ref().map_or(0, |m| {
            m.iter()
                .map(|(k, v)| k.len() + 64 + v.to_string().len())
                .sum()
        })
}

impl Definitions {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The number to pass to [`Self::keep`] for a file read from now on.
    pub(crate) fn generation(&self) -> u64 {
        self.lock().generation
    }

    /// Forget what `changes` may have changed.
    pub(crate) fn forget(&self, changes: &Changes) {
        if matches!(changes, Changes::Paths(paths) if paths.is_empty()) {
            return;
        }
        let mut state = self.lock();
        state.generation += 1;
        let paths = match changes {
            Changes::All => {
                state.kept = None;
                state.bytes = 0;
                return;
            }
            Changes::Paths(paths) => paths,
        };
        let Some(kept) = state.kept.as_mut() else {
            return;
        };
        if kept.is_empty() {
            return;
        }
        // A burst (a checkout, say) is cheaper forgotten whole than matched
        // path by path, and this may run on the JS thread.
        if kept.len().saturating_mul(paths.len()) > FORGET_ALL {
            state.kept = None;
            state.bytes = 0;
            return;
        }
        let stale: Vec<PathBuf> = kept
            .iter()
            .filter(|(file, _)| paths.iter().any(|p| file.starts_with(p)))
            .map(|(file, _)| file.clone())
            .collect();
        let mut freed = 0;
        for file in stale {
            if let Some(k) = kept.pop(&file) {
                freed += k.bytes;
            }
        }
        state.bytes -= freed;
    }

    /// Forget everything.
    pub(crate) fn clear(&self) {
        self.forget(&Changes::All);
    }

    /// The definition kept for the skill file at `placement`.
    pub(crate) fn get(&self, placement: &Placement) -> Option<Arc<SkillDefinition>> {
        let mut state = self.lock();
        let kept = state.kept.as_mut()?.get(&placement.path)?;
        (kept.base == placement.base && kept.source == placement.source)
            .then(|| Arc::clone(&kept.definition))
    }

    /// Keep `definition`, loaded from the file at `placement` read after
    /// [`Self::generation`] returned `generation`, unless something was
    /// noted since.
    pub(crate) fn keep(
        &self,
        generation: u64,
        placement: &Placement,
        definition: &SkillDefinition,
    ) {
        let bytes = weight(definition);
        if bytes > LARGEST {
            return;
        }
        let mut state = self.lock();
        if state.generation != generation {
            return;
        }
        let kept = Kept {
            base: placement.base.clone(),
            source: placement.source,
            definition: Arc::new(definition.clone()),
            bytes,
        };
        let mut freed = 0;
        if let Some((_, old)) = state.kept().push(placement.path.clone(), kept) {
            freed += old.bytes;
        }
        state.bytes = state.bytes + bytes - freed;
        while state.bytes > BUDGET {
            let Some((_, old)) = state.kept().pop_lru() else {
                break;
            };
            state.bytes -= old.bytes;
        }
    }

    /// `(definitions, bytes)` kept.
    pub(crate) fn size(&self) -> (usize, usize) {
        let state = self.lock();
        (state.kept.as_ref().map_or(0, LruCache::len), state.bytes)
    }
}

/// The root a skill file at `placement` belongs to.
pub(crate) fn root_of(placement: &Placement) -> &Path {
    match placement.layout {
        super::discover::Layout::Bundle => placement.base.parent().unwrap_or(&placement.base),
        super::discover::Layout::Flat => &placement.base,
    }
}
