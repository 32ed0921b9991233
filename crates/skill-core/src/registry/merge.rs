//! The merge: contenders in precedence order, override decisions, the
//! first of each name winning, and the catalog built from the winners.
//!
//! Contenders sort by name, then by the depth of their layer in the view
//! (the nearest layer first), then by rank; the sort is stable, so equal
//! ranks keep precedence order. The first of each name wins: a name held by a
//! nearer layer is decided there, whatever the ranks of farther layers.

use super::layers::LayerId;
use super::types::{
    Catalog, Considered, Description, Entry, Listing, Memo, Origin, PlannedProvider,
    PlannedRuntime, Winner,
};
use crate::model::host::Span;
use crate::model::{Candidate, InvocationPolicy, RUNTIME_RANK};
use crate::overrides::Effect;
use crate::same::{self, Sameness};
use crate::scoped_rules::{Decided, RuleChain};
use std::cmp::Ordering;
use std::sync::OnceLock;

/// A contender for a name, as the merge sorts it.
#[derive(Clone, Copy)]
pub(super) struct Contender<'a> {
    pub(super) name: &'a str,
    /// Depth of its layer in the view (0 = nearest).
    pub(super) depth: u32,
    pub(super) rank: f64,
    pub(super) origin: Origin,
}

/// Call `push` with every candidate, in precedence order for equal ranks
/// within a layer: runtime skills, then providers in registration order, each
/// in its own order.
pub(super) fn for_each_contender<'a>(
    runtime: &'a [PlannedRuntime],
    providers: &'a [PlannedProvider],
    listings: &'a [Listing],
    mut push: impl FnMut(Contender<'a>),
) {
    for (i, r) in runtime.iter().enumerate() {
        push(Contender {
            name: &r.skill.name,
            depth: r.depth,
            rank: RUNTIME_RANK,
            origin: Origin::Runtime(index(i)),
        });
    }
    for (p, listing) in listings.iter().enumerate() {
        let depth = providers.get(p).map_or(u32::MAX, |planned| planned.depth);
        let p = index(p);
        match listing {
            Listing::Native(candidates) => {
                for (local, c) in candidates.iter().enumerate() {
                    if let Some(c) = c {
                        push(Contender {
                            name: &c.summary.name,
                            depth,
                            rank: c.rank,
                            origin: Origin::Provider(p, index(local)),
                        });
                    }
                }
            }
            Listing::Host(obs) => {
                for (local, c) in obs.listing.candidates.iter().enumerate() {
                    push(Contender {
                        name: c.name.of(&obs.text),
                        depth,
                        rank: c.rank,
                        origin: Origin::Provider(p, index(local)),
                    });
                }
            }
            Listing::None => {}
        }
    }
}

/// The merge order: by name, then layer depth (nearest first), then rank.
/// The sort is stable, so contenders pushed in precedence order
/// ([`for_each_contender`]) keep it within a rank: each name's winner comes
/// first in its group, and the winners in name order. Providers usually list
/// in name order, and the stable sort merges such runs instead of sorting
/// from scratch. Without scopes every depth is 0.
pub(super) fn sort_contenders(contenders: &mut [Contender<'_>]) {
    contenders.sort_by(|a, b| match a.name.cmp(b.name) {
        Ordering::Equal => a.depth.cmp(&b.depth).then(a.rank.total_cmp(&b.rank)),
        unequal => unequal,
    });
}

/// The override rule deciding about each candidate, computed once per
/// collection (nothing without rules).
pub(super) struct Decisions {
    /// Where each listing's candidates start in `applied` (runtime skills
    /// come first).
    pub(super) offsets: Vec<usize>,
    pub(super) applied: Vec<Option<Decided>>,
}

impl Decisions {
    pub(super) fn new(
        runtime: &[PlannedRuntime],
        providers: &[PlannedProvider],
        listings: &[Listing],
        overrides: &RuleChain,
    ) -> Self {
        if overrides.is_empty() {
            return Decisions {
                offsets: Vec::new(),
                applied: Vec::new(),
            };
        }
        let mut offsets = Vec::with_capacity(listings.len());
        let mut total = runtime.len();
        for listing in listings {
            offsets.push(total);
            total += listing.len();
        }
        let mut applied = vec![None; total];
        for_each_contender(runtime, providers, listings, |c| {
            if let (Some(at), Some(l)) = (
                Self::at(&offsets, c.origin),
                labels(c.origin, runtime, providers, listings),
            ) {
                if let Some(slot) = applied.get_mut(at) {
                    *slot = overrides.decide(l.name, l.source, l.provider);
                }
            }
        });
        Decisions { offsets, applied }
    }

    fn at(offsets: &[usize], origin: Origin) -> Option<usize> {
        match origin {
            Origin::Runtime(i) => Some(i as usize),
            Origin::Provider(p, local) => offsets.get(p as usize).map(|o| o + local as usize),
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.applied.is_empty()
    }

    /// The rule deciding about the candidate at `origin`, if one matches.
    pub(super) fn get(&self, origin: Origin) -> Option<Decided> {
        Self::at(&self.offsets, origin)
            .and_then(|at| self.applied.get(at).copied())
            .flatten()
    }

    /// Whether the candidate at `origin` takes part in the merge.
    pub(super) fn keeps(&self, origin: Origin) -> bool {
        self.get(origin).is_none_or(|a| a.effect != Effect::Off)
    }
}

/// Name, provider label and source of a candidate.
pub(super) struct Labels<'a> {
    pub(super) name: &'a str,
    pub(super) provider: &'a str,
    pub(super) source: &'a str,
}

pub(super) fn labels<'a>(
    origin: Origin,
    runtime: &'a [PlannedRuntime],
    providers: &'a [PlannedProvider],
    listings: &'a [Listing],
) -> Option<Labels<'a>> {
    let at = |i: u32| i as usize;
    match origin {
        Origin::Runtime(i) => runtime.get(at(i)).map(|r| Labels {
            name: &r.skill.name,
            provider: &r.skill.provider,
            source: &r.skill.source,
        }),
        Origin::Provider(p, local) => match listings.get(at(p))? {
            Listing::Native(candidates) => {
                let c = candidates.get(at(local))?.as_ref()?;
                Some(Labels {
                    name: &c.summary.name,
                    provider: &c.summary.provider,
                    source: &c.summary.source,
                })
            }
            Listing::Host(obs) => {
                let c = obs.listing.candidates.get(at(local))?;
                Some(Labels {
                    name: c.name.of(&obs.text),
                    provider: &providers.get(at(p))?.name,
                    source: obs.source(c),
                })
            }
            Listing::None => None,
        },
    }
}

/// The native provider's candidate at `origin`, while it is still in its
/// listing (a winner moves into its catalog entry when the catalog is built).
pub(super) fn native_candidate(origin: Origin, listings: &[Listing]) -> Option<&Candidate> {
    match origin {
        Origin::Provider(p, local) => match listings.get(p as usize)? {
            Listing::Native(candidates) => candidates.get(local as usize)?.as_deref(),
            _ => None,
        },
        Origin::Runtime(_) => None,
    }
}

/// How a duplicate compares with the candidate it loses to ([`crate::same`]):
/// only candidates whose skill files a native provider read can be compared.
pub(super) fn sameness(a: Option<&Candidate>, b: Option<&Candidate>) -> Sameness {
    match (a, b) {
        (Some(a), Some(b)) => same::compare(a, b),
        _ => Sameness::Unknown,
    }
}

pub(super) fn index(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

/// What a merge decided: the winners' origins sorted by name, one warning
/// per duplicate shadowed within the winner's layer, and every losing
/// contender; each warning and loser with the position of the winner (in
/// `order`) whose name it contended for.
#[derive(Default)]
pub(super) struct Merged {
    pub(super) order: Vec<Origin>,
    pub(super) warnings: Vec<String>,
    /// One per warning: its winner's position in `order`.
    pub(super) warned: Vec<u32>,
    pub(super) losers: Vec<(u32, Origin)>,
}

/// The winners' origins sorted by name, and one warning per duplicate
/// shadowed within the winner's layer (a nearer layer taking a name from a
/// farther one is what layers are for: no warning; nor is the same skill
/// found twice, [`crate::same`]). Candidates an override switched off take
/// no part.
pub(super) fn merge(
    runtime: &[PlannedRuntime],
    providers: &[PlannedProvider],
    listings: &[Listing],
    decisions: &Decisions,
) -> Merged {
    let total = runtime.len() + listings.iter().map(Listing::len).sum::<usize>();
    let mut contenders: Vec<Contender<'_>> = Vec::with_capacity(total);
    for_each_contender(runtime, providers, listings, |c| contenders.push(c));
    if !decisions.is_empty() {
        contenders.retain(|c| decisions.keeps(c.origin));
    }
    sort_contenders(&mut contenders);
    let mut merged = Merged {
        order: Vec::with_capacity(contenders.len()),
        ..Merged::default()
    };
    let mut rest = contenders.as_slice();
    while let Some(first) = rest.first() {
        let len = rest
            .iter()
            .position(|c| c.name != first.name)
            .unwrap_or(rest.len());
        let (group, after) = rest.split_at(len);
        resolve_group(group, runtime, providers, listings, &mut merged);
        rest = after;
    }
    merged
}

/// Decide one name: `group` holds its contenders in merge order (not
/// empty). The first wins; a later one of the same layer is shadowed, with a
/// warning unless it is the same skill ([`crate::same`]); one of a farther
/// layer loses silently (that is what layers are for).
pub(super) fn resolve_group(
    group: &[Contender<'_>],
    runtime: &[PlannedRuntime],
    providers: &[PlannedProvider],
    listings: &[Listing],
    merged: &mut Merged,
) {
    let Some((f, others)) = group.split_first() else {
        return;
    };
    let at = index(merged.order.len());
    merged.order.push(f.origin);
    for c in others {
        merged.losers.push((at, c.origin));
        if f.depth != c.depth {
            continue;
        }
        let differ = match sameness(
            native_candidate(c.origin, listings),
            native_candidate(f.origin, listings),
        ) {
            // One skill in two places: no conflict to warn about.
            Sameness::Same => continue,
            Sameness::Different => "; the two skill files differ",
            Sameness::Unknown => "",
        };
        let label = |origin| {
            labels(origin, runtime, providers, listings)
                .map_or(("", ""), |l| (l.provider, l.source))
        };
        let (provider, source) = label(c.origin);
        let (first_provider, first_source) = label(f.origin);
        let mut warning = format!(
            "skill \"{}\" from provider \"{provider}\" (source {source}, rank {}) is shadowed by provider \"{first_provider}\" (source {first_source}, rank {})",
            c.name, c.rank, f.rank
        );
        warning.push_str(differ);
        merged.warnings.push(warning);
        merged.warned.push(at);
    }
}

/// The bytes of the names [`build_catalog`] copies.
fn text_len(considered: &Considered, order: &[Origin]) -> usize {
    order
        .iter()
        .map(|origin| match *origin {
            Origin::Runtime(i) => considered
                .runtime
                .get(i as usize)
                .map_or(0, |r| r.skill.name.len()),
            Origin::Provider(p, local) => match considered.listings.get(p as usize) {
                Some(Listing::Host(obs)) => obs
                    .listing
                    .candidates
                    .get(local as usize)
                    .map_or(0, |c| c.name.of(&obs.text).len()),
                Some(Listing::Native(candidates)) => candidates
                    .get(local as usize)
                    .and_then(Option::as_ref)
                    .map_or(0, |c| c.summary.name.len()),
                Some(Listing::None) | None => 0,
            },
        })
        .sum()
}

/// A catalog's entries and names, built winner by winner in name order.
pub(super) struct Built {
    pub(super) text: String,
    pub(super) entries: Vec<Entry>,
    pub(super) host_held: u32,
    /// Where each entry's winner came from.
    pub(super) origins: Vec<Origin>,
}

impl Built {
    pub(super) fn with_capacity(text: usize, entries: usize) -> Self {
        Built {
            text: String::with_capacity(text),
            entries: Vec::with_capacity(entries),
            host_held: 0,
            origins: Vec::with_capacity(entries),
        }
    }

    /// The catalog of these entries.
    pub(super) fn into_catalog(
        self,
        id: u64,
        generation: u64,
        complete: bool,
        chain: Vec<LayerId>,
        considered: Considered,
        memo: Option<Memo>,
    ) -> Catalog {
        Catalog {
            id,
            generation,
            complete,
            chain,
            text: self.text,
            entries: self.entries,
            host_held: self.host_held,
            supplied: OnceLock::new(),
            supplying: Default::default(),
            considered,
            derived: Default::default(),
            memo,
        }
    }

    /// `name` appended to the names.
    pub(super) fn span(&mut self, name: &str) -> Span {
        let start = u32::try_from(self.text.len()).unwrap_or(u32::MAX);
        self.text.push_str(name);
        Span {
            start,
            end: u32::try_from(self.text.len()).unwrap_or(u32::MAX),
        }
    }

    /// The next host-held description.
    pub(super) fn held(&mut self) -> Description {
        self.host_held += 1;
        Description::Host(self.host_held - 1)
    }

    /// Add the winner at `origin`, decided by `applied` (never `off`: those
    /// did not take part); a native winner moves out of its listing.
    /// Returns whether there was one to add.
    pub(super) fn push_winner(
        &mut self,
        origin: Origin,
        applied: Option<Decided>,
        runtime: &[PlannedRuntime],
        providers: &[PlannedProvider],
        listings: &mut [Listing],
    ) -> bool {
        let invocation =
            |declared: InvocationPolicy| applied.map_or(declared, |a| a.effect.apply(declared));
        let entry = match origin {
            Origin::Runtime(i) => {
                let Some(r) = runtime.get(i as usize) else {
                    return false;
                };
                Entry {
                    name: self.span(&r.skill.name),
                    description: self.held(),
                    invocation: invocation(r.skill.invocation),
                    rank: RUNTIME_RANK,
                    depth: r.depth,
                    winner: Winner::Runtime { id: r.id },
                    applied,
                }
            }
            Origin::Provider(p, local) => {
                let (p, local) = (p as usize, local as usize);
                let Some(planned) = providers.get(p) else {
                    return false;
                };
                match listings.get_mut(p) {
                    Some(Listing::Host(obs)) => {
                        let Some(c) = obs.listing.candidates.get(local) else {
                            return false;
                        };
                        Entry {
                            name: self.span(c.name.of(&obs.text)),
                            description: self.held(),
                            invocation: invocation(c.invocation),
                            rank: c.rank,
                            depth: planned.depth,
                            winner: Winner::Host {
                                slot: planned.slot,
                                index: u32::try_from(local).unwrap_or(u32::MAX),
                            },
                            applied,
                        }
                    }
                    // Native candidates move into their winner entries.
                    Some(Listing::Native(candidates)) => {
                        let (Some(mut candidate), Some(provider)) = (
                            candidates.get_mut(local).and_then(Option::take),
                            planned.native.clone(),
                        ) else {
                            return false;
                        };
                        rewrite(&mut candidate, applied);
                        Entry {
                            name: self.span(&candidate.summary.name),
                            description: Description::Native,
                            invocation: candidate.summary.invocation,
                            rank: candidate.rank,
                            depth: planned.depth,
                            winner: Winner::Native {
                                slot: planned.slot,
                                provider,
                                candidate,
                            },
                            applied,
                        }
                    }
                    Some(Listing::None) | None => return false,
                }
            }
        };
        self.entries.push(entry);
        self.origins.push(origin);
        true
    }
}

/// A native winner's candidate with the invocation `applied` leaves: copied
/// only when a rule rewrites it (the provider's listing keeps its own).
pub(super) fn rewrite(candidate: &mut std::sync::Arc<Candidate>, applied: Option<Decided>) {
    let Some(applied) = applied else {
        return;
    };
    let declared = candidate.summary.invocation;
    let rewritten = applied.effect.apply(declared);
    if rewritten != declared {
        std::sync::Arc::make_mut(candidate).summary.invocation = rewritten;
    }
}

/// Each listing's candidates' identities (see [`super::types::Memo`]), when
/// every listing is native (only those catalogs can be patched).
pub(super) fn identities(listings: &[Listing]) -> Option<Vec<Vec<usize>>> {
    listings
        .iter()
        .map(|listing| match listing {
            Listing::Native(candidates) => Some(
                candidates
                    .iter()
                    .map(|c| c.as_ref().map_or(0, |c| std::sync::Arc::as_ptr(c) as usize))
                    .collect(),
            ),
            _ => None,
        })
        .collect()
}

/// Forget the identity of each native winner whose candidate a rule
/// rewrote: the entry holds a copy, and the original (no longer kept alive
/// by this catalog) could be freed and its address reused by a different
/// candidate. A forgotten identity never matches, so that name is merged
/// again next time.
pub(super) fn forget_rewritten(
    identities: &mut [Vec<usize>],
    entries: &[Entry],
    origins: &[Origin],
) {
    for (entry, origin) in entries.iter().zip(origins) {
        if let (Winner::Native { candidate, .. }, Origin::Provider(p, i)) = (&entry.winner, *origin)
        {
            if let Some(slot) = identities
                .get_mut(p as usize)
                .and_then(|l| l.get_mut(i as usize))
            {
                if *slot != std::sync::Arc::as_ptr(candidate) as usize {
                    *slot = 0;
                }
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
pub(super) fn build_catalog(
    id: u64,
    generation: u64,
    complete: bool,
    chain: Vec<LayerId>,
    mut considered: Considered,
    merged: Merged,
    decisions: &Decisions,
    identities: Option<Vec<Vec<usize>>>,
) -> (Catalog, Vec<String>) {
    let Merged {
        order,
        warnings,
        warned,
        losers,
    } = merged;
    // The winners' names, in one buffer sized once.
    let mut built = Built::with_capacity(text_len(&considered, &order), order.len());
    let Considered {
        runtime,
        providers,
        listings,
        ..
    } = &mut considered;
    for origin in &order {
        built.push_winner(
            *origin,
            decisions.get(*origin),
            runtime,
            providers,
            listings,
        );
    }
    // Positions in `order` are entry positions only when every winner made
    // an entry.
    let memo = match identities {
        Some(mut identities) if built.entries.len() == order.len() => {
            forget_rewritten(&mut identities, &built.entries, &built.origins);
            Some(Memo {
                identities,
                origins: std::mem::take(&mut built.origins),
                losers,
                warnings: warned.into_iter().zip(warnings.iter().cloned()).collect(),
            })
        }
        _ => None,
    };
    let catalog = built.into_catalog(id, generation, complete, chain, considered, memo);
    (catalog, warnings)
}
