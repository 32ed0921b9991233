//! `explain()`: every candidate a catalog's merge considered for one name,
//! in merge order, and why each one won or lost.

use super::layers::LayerId;
use super::merge::{
    for_each_contender, index, labels, native_candidate, sameness, sort_contenders,
};
use super::types::{Catalog, Considered, Listing, Origin, Winner};
use crate::model::{Candidate, InvocationPolicy, RUNTIME_RANK};
use crate::overrides::Effect;
use crate::same::Sameness;
use crate::scoped_rules::Decided;

impl Catalog {
    /// Every candidate this catalog's merge considered for `name`, in merge
    /// order: the winner first (when there is one), then each other
    /// candidate with why it lost. Empty when no provider listed the name.
    pub fn explain(&self, name: &str) -> Vec<Explained<'_>> {
        let c = &self.considered;
        let winner = self.position(name).and_then(|i| self.entries.get(i));
        let mut out = Vec::new();
        // The winner's place among the candidates (a native winner moved out
        // of its listing into the entry).
        let mut winner_origin = None;
        if let Some(entry) = winner {
            let explained = match &entry.winner {
                Winner::Runtime { id } => {
                    winner_origin = c
                        .runtime
                        .iter()
                        .position(|r| r.id == *id)
                        .map(|i| Origin::Runtime(index(i)));
                    winner_origin.and_then(|o| c.explained(o, Outcome::Won))
                }
                Winner::Host { slot, index: local } => {
                    winner_origin = c
                        .providers
                        .iter()
                        .position(|p| p.slot == *slot)
                        .map(|p| Origin::Provider(index(p), *local));
                    winner_origin.and_then(|o| c.explained(o, Outcome::Won))
                }
                Winner::Native {
                    slot, candidate, ..
                } => Some(Explained {
                    from: Contribution::Native {
                        slot: *slot,
                        candidate,
                    },
                    provider: &candidate.summary.provider,
                    source: &candidate.summary.source,
                    rank: candidate.rank,
                    layer: self.layer_of(entry),
                    depth: entry.depth,
                    invocation: entry.invocation,
                    applied: entry.applied,
                    outcome: Outcome::Won,
                }),
            };
            out.extend(explained);
        }
        let mut others = Vec::new();
        for_each_contender(&c.runtime, &c.providers, &c.listings, |x| {
            if x.name == name && Some(x.origin) != winner_origin {
                others.push(x);
            }
        });
        sort_contenders(&mut others);
        let won = out.first().map(|w| (w.depth, w.rank));
        let winner_candidate = out.first().and_then(|w| match w.from {
            Contribution::Native { candidate, .. } => Some(candidate),
            _ => None,
        });
        for x in others {
            // Lost to the winner, unless an override switched it off first.
            let lost = match won {
                Some((depth, _)) if depth < x.depth => Outcome::Scope,
                _ if sameness(winner_candidate, native_candidate(x.origin, &c.listings))
                    == Sameness::Same =>
                {
                    Outcome::Same
                }
                Some((_, rank)) if rank.total_cmp(&x.rank).is_lt() => Outcome::Rank,
                _ => Outcome::Order,
            };
            out.extend(c.explained(x.origin, lost));
        }
        out
    }
}

/// Why an explained candidate did or did not win its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// It won.
    Won,
    /// The winner has a lower rank.
    Rank,
    /// Same rank as the winner, which comes first in merge order (runtime
    /// skills, then providers in registration order, each in its own order).
    Order,
    /// An override switched it off: it took no part in the merge.
    Off,
    /// The winner comes from a nearer layer of the view, which wins the name
    /// outright whatever the ranks.
    Scope,
    /// It is the same skill as the winner, of the same layer
    /// ([`crate::same`]): byte-identical skill files, and for bundles the
    /// same resources. Never in conflict.
    Same,
}

impl Outcome {
    /// `'won'`, `'rank'`, `'order'`, `'off'`, `'scope'` or `'same'`.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Won => "won",
            Outcome::Rank => "rank",
            Outcome::Order => "order",
            Outcome::Off => "off",
            Outcome::Scope => "scope",
            Outcome::Same => "same",
        }
    }
}

/// Where an explained candidate comes from.
#[derive(Clone, Copy, Debug)]
pub enum Contribution<'a> {
    /// A runtime skill, by registration id.
    Runtime {
        /// Runtime registration id.
        id: u64,
    },
    /// A JS provider's candidate (the host keeps the object).
    Host {
        /// Provider slot.
        slot: u64,
        /// Position of the candidate in the provider's `list()` result.
        index: u32,
    },
    /// A native provider's candidate.
    Native {
        /// Provider slot.
        slot: u64,
        /// The candidate.
        candidate: &'a Candidate,
    },
}

/// One candidate of [`Catalog::explain`].
#[derive(Clone, Copy, Debug)]
pub struct Explained<'a> {
    /// Where it comes from.
    pub from: Contribution<'a>,
    /// Its provider label.
    pub provider: &'a str,
    /// Its source label.
    pub source: &'a str,
    /// Its rank.
    pub rank: f64,
    /// Its layer.
    pub layer: LayerId,
    /// Depth of its layer in the catalog's view (0 = nearest).
    pub depth: u32,
    /// Its invocation controls after the overrides (as declared when none
    /// rewrites them, or when it is switched off).
    pub invocation: InvocationPolicy,
    /// The override rule that decided about it, if one matched.
    pub applied: Option<Decided>,
    /// Whether it won, or why not.
    pub outcome: Outcome,
}

impl Considered {
    /// The candidate at `origin` explained; `lost` is its outcome unless an
    /// override switched it off.
    pub(super) fn explained(&self, origin: Origin, lost: Outcome) -> Option<Explained<'_>> {
        let labels = labels(origin, &self.runtime, &self.providers, &self.listings)?;
        let (from, rank, declared, layer, depth) = match origin {
            Origin::Runtime(i) => {
                let r = self.runtime.get(i as usize)?;
                (
                    Contribution::Runtime { id: r.id },
                    RUNTIME_RANK,
                    r.skill.invocation,
                    r.layer,
                    r.depth,
                )
            }
            Origin::Provider(p, local) => {
                let planned = self.providers.get(p as usize)?;
                let (slot, layer, depth) = (planned.slot, planned.layer, planned.depth);
                match self.listings.get(p as usize)? {
                    Listing::Host(obs) => {
                        let c = obs.listing.candidates.get(local as usize)?;
                        (
                            Contribution::Host { slot, index: local },
                            c.rank,
                            c.invocation,
                            layer,
                            depth,
                        )
                    }
                    Listing::Native(candidates) => {
                        let candidate = candidates.get(local as usize)?.as_ref()?;
                        (
                            Contribution::Native { slot, candidate },
                            candidate.rank,
                            candidate.summary.invocation,
                            layer,
                            depth,
                        )
                    }
                    Listing::None => return None,
                }
            }
        };
        let applied = self
            .overrides
            .decide(labels.name, labels.source, labels.provider);
        let off = applied.is_some_and(|a| a.effect == Effect::Off);
        Some(Explained {
            from,
            provider: labels.provider,
            source: labels.source,
            rank,
            layer,
            depth,
            invocation: applied.map_or(declared, |a| a.effect.apply(declared)),
            applied,
            outcome: if off { Outcome::Off } else { lost },
        })
    }
}
