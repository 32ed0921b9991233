//! A merged catalog: its winners (name, description, invocation, origin),
//! and the descriptions the host supplies later.

use super::layers::{LayerId, GLOBAL_LAYER};
use super::types::{Catalog, Description, Entry, Supplied, SupplyError, Winner};
use crate::model::host::Span;
use crate::model::SkillSummary;
use std::sync::PoisonError;

impl Catalog {
    /// The scoped layers this catalog merged, nearest first (the global
    /// layer, always merged last, is not listed).
    pub fn chain(&self) -> &[LayerId] {
        &self.chain
    }

    /// The layer at `depth` in this catalog's view.
    pub fn layer_at(&self, depth: u32) -> LayerId {
        self.chain
            .get(depth as usize)
            .copied()
            .unwrap_or(GLOBAL_LAYER)
    }

    /// The layer `entry` (one of [`Catalog::entries`]) won its name in.
    pub fn layer_of(&self, entry: &Entry) -> LayerId {
        self.layer_at(entry.depth)
    }

    /// Number of skills.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the catalog has no skill.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The winners, sorted by name.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The skills' names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> + '_ {
        self.entries.iter().map(|e| e.name.of(&self.text))
    }

    /// Name of `entry` (one of [`Catalog::entries`]).
    pub fn name<'a>(&'a self, entry: &Entry) -> &'a str {
        entry.name.of(&self.text)
    }

    /// Description of `entry` (one of [`Catalog::entries`]); `None` for a
    /// host-held description not supplied yet.
    pub fn description<'a>(&'a self, entry: &'a Entry) -> Option<&'a str> {
        match entry.description {
            Description::Native => match &entry.winner {
                Winner::Native { candidate, .. } => Some(&candidate.summary.description),
                _ => None,
            },
            Description::Host(i) => {
                let supplied = self.supplied.get()?;
                supplied.spans.get(i as usize).map(|s| s.of(&supplied.text))
            }
        }
    }

    /// How many descriptions the host holds (runtime and JS-provider winners).
    pub fn host_held(&self) -> usize {
        self.host_held as usize
    }

    /// Whether every description is known (none host-held, or supplied).
    pub fn has_descriptions(&self) -> bool {
        self.host_held == 0 || self.supplied.get().is_some()
    }

    /// Supply the host-held descriptions, in catalog order: `text` and one
    /// byte range in it per host-held entry. The first supply stays.
    pub fn supply_descriptions(&self, text: String, spans: Vec<Span>) -> Result<(), SupplyError> {
        if spans.len() != self.host_held() {
            return Err(SupplyError("wrong count"));
        }
        check_spans(&text, &spans)?;
        let _ = self.supplied.set(Supplied { text, spans });
        // Parts handed over so far are not needed any more.
        drop(std::mem::take(
            &mut *self
                .supplying
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        ));
        Ok(())
    }

    /// [`Catalog::supply_descriptions`] in parts, so that a host can hand a
    /// large catalog's descriptions over a few thousand at a time: each part
    /// continues the previous ones (`spans` are byte ranges in its own
    /// `text`); the part that completes the count supplies them all. Parts
    /// after a supply are ignored.
    pub fn supply_part(&self, text: &str, spans: &[Span]) -> Result<(), SupplyError> {
        if self.supplied.get().is_some() {
            return Ok(());
        }
        let mut so_far = self
            .supplying
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if so_far.spans.len() + spans.len() > self.host_held() {
            return Err(SupplyError("wrong count"));
        }
        check_spans(text, spans)?;
        let base = u32::try_from(so_far.text.len()).map_err(|_| SupplyError("too long"))?;
        so_far.text.push_str(text);
        so_far.spans.extend(spans.iter().map(|s| Span {
            start: s.start + base,
            end: s.end + base,
        }));
        if so_far.spans.len() == self.host_held() {
            let done = std::mem::take(&mut *so_far);
            let _ = self.supplied.set(done);
        }
        Ok(())
    }

    /// `(name, description)` of the model-invocable skills, sorted by name:
    /// the input of [`crate::catalog::Catalog::new`]. `None` until every
    /// description is known ([`Catalog::has_descriptions`]).
    pub fn model_entries(&self) -> Option<impl Iterator<Item = (&str, &str)> + '_> {
        self.has_descriptions().then(|| {
            self.entries
                .iter()
                .filter(|e| e.invocation.model_invocable)
                .map(|e| (self.name(e), self.description(e).unwrap_or_default()))
        })
    }

    /// Summaries of the native winners, in catalog order (the host builds the
    /// other summaries from its own objects).
    pub fn native_summaries(&self) -> impl Iterator<Item = &SkillSummary> + '_ {
        self.entries.iter().filter_map(|e| match &e.winner {
            Winner::Native { candidate, .. } => Some(&candidate.summary),
            _ => None,
        })
    }

    /// Index of `name` in the sorted catalog.
    pub fn position(&self, name: &str) -> Option<usize> {
        self.entries
            .binary_search_by(|e| e.name.of(&self.text).cmp(name))
            .ok()
    }
}

/// Every span lies in `text`, on character boundaries.
fn check_spans(text: &str, spans: &[Span]) -> Result<(), SupplyError> {
    let outside = spans.iter().any(|s| {
        s.start > s.end
            || !text.is_char_boundary(s.start as usize)
            || !text.is_char_boundary(s.end as usize)
    });
    if outside {
        return Err(SupplyError("span outside the text"));
    }
    Ok(())
}
