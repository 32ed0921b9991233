//! A change costs what changed: the next collection of a view patches the
//! view's previous catalog instead of merging every candidate again.
//!
//! A provider that keeps its listing between lookups hands out the same
//! candidates (the same allocations) for what did not change. Comparing the
//! new listings with the previous catalog's by identity gives the candidates
//! that left and came; their names are the only ones whose winner, losers
//! and warnings can differ. Those names are merged again from their
//! contenders (the previous merge's, mapped to the new positions, and the
//! new candidates of that name); every other entry is carried over with its
//! losers and warnings, its candidate taken from the new listing. The result
//! is the catalog a full merge gives (the registry tests compare the two on
//! random change sequences).
//!
//! Only catalogs whose every listing is native are patched, for the same
//! plan (providers, runtime skills and override rules) as before, and only
//! while a small part of the listings changed; anything else is merged in
//! full. A name whose duplicates of one layer were compared through the
//! filesystem (two bundles with identical skill files) is always merged
//! again: their resources may have changed without their candidates.

use super::merge::{labels, native_candidate, resolve_group, rewrite, Built, Contender, Merged};
use super::types::{
    Catalog, Description, Entry, Listing, Memo, Origin, PlannedProvider, PlannedRuntime, Winner,
};
use crate::model::RUNTIME_RANK;
use crate::scoped_rules::{Decided, RuleChain};
use std::sync::Arc;

/// How one listing changed since the previous catalog.
enum Diff {
    /// As long as before: the positions whose candidate changed, ascending.
    Positions(Vec<u32>),
    /// One run replaced: the first `prefix` candidates kept, the next
    /// `removed` old ones replaced by `inserted` new ones, the rest kept.
    Splice {
        prefix: u32,
        removed: u32,
        inserted: u32,
    },
}

impl Diff {
    /// The difference from `old` to `new` (candidate identities), or `None`
    /// when more than `budget` candidates changed.
    fn of(old: &[usize], new: &[usize], budget: usize) -> Option<Diff> {
        if old.len() == new.len() {
            let mut changed = Vec::new();
            for (i, (a, b)) in old.iter().zip(new).enumerate() {
                if a != b {
                    if changed.len() == budget {
                        return None;
                    }
                    changed.push(u32::try_from(i).ok()?);
                }
            }
            return Some(Diff::Positions(changed));
        }
        let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
        let room = old.len().min(new.len()) - prefix;
        let suffix = old
            .iter()
            .rev()
            .zip(new.iter().rev())
            .take(room)
            .take_while(|(a, b)| a == b)
            .count();
        let removed = old.len() - prefix - suffix;
        let inserted = new.len() - prefix - suffix;
        if removed + inserted > budget {
            return None;
        }
        Some(Diff::Splice {
            prefix: u32::try_from(prefix).ok()?,
            removed: u32::try_from(removed).ok()?,
            inserted: u32::try_from(inserted).ok()?,
        })
    }

    /// Where the old candidate at `i` is now; `None` when it left.
    fn map(&self, i: u32) -> Option<u32> {
        match self {
            Diff::Positions(changed) => changed.binary_search(&i).is_err().then_some(i),
            Diff::Splice {
                prefix,
                removed,
                inserted,
            } => {
                if i < *prefix {
                    Some(i)
                } else if i - prefix < *removed {
                    None
                } else {
                    Some(i - removed + inserted)
                }
            }
        }
    }

    /// The old positions that left.
    fn removed(&self) -> Vec<u32> {
        match self {
            Diff::Positions(changed) => changed.clone(),
            Diff::Splice {
                prefix, removed, ..
            } => (*prefix..prefix + removed).collect(),
        }
    }

    /// The new positions that came.
    fn inserted(&self) -> Vec<u32> {
        match self {
            Diff::Positions(changed) => changed.clone(),
            Diff::Splice {
                prefix, inserted, ..
            } => (*prefix..prefix + inserted).collect(),
        }
    }
}

/// What a patch built: the new catalog's entries and memo, and its warnings
/// in merge order.
pub(super) struct Patched {
    pub(super) built: Built,
    pub(super) memo: Option<Memo>,
    pub(super) warnings: Vec<String>,
}

/// One step of the new catalog, in name order.
enum Step {
    /// The previous catalog's entry at this position, unchanged.
    Keep(usize),
    /// A name merged again: its winner (with the rule deciding about it),
    /// losers and warnings.
    Fresh {
        winner: Origin,
        applied: Option<Decided>,
        losers: Vec<Origin>,
        warnings: Vec<String>,
    },
}

/// At most this many candidates may change (plus one in 32 of the
/// catalog's) for a patch; past it the merge is redone in full.
const BUDGET: usize = 64;

/// Patch `previous` (the last catalog of the same view) for the new
/// `listings` of the same plan, or `None` when it cannot be patched (then
/// nothing was changed).
pub(super) fn patch(
    previous: &Catalog,
    runtime: &[PlannedRuntime],
    providers: &[PlannedProvider],
    listings: &mut [Listing],
    overrides: &RuleChain,
) -> Option<Patched> {
    let memo = previous.memo.as_ref()?;
    let before = &previous.considered;
    if !same_plan(before.runtime.as_slice(), runtime)
        || !same_providers(&before.providers, providers)
        || before.overrides != *overrides
        || before.listings.len() != listings.len()
        || memo.identities.len() != listings.len()
    {
        return None;
    }
    let identities = super::merge::identities(listings)?;
    let total: usize = identities.iter().map(Vec::len).sum();
    let budget = BUDGET + total / 32;
    let mut diffs = Vec::with_capacity(listings.len());
    let mut spent = 0;
    for (old, new) in memo.identities.iter().zip(&identities) {
        let diff = Diff::of(old, new, budget.saturating_sub(spent))?;
        spent += diff.removed().len() + diff.inserted().len();
        diffs.push(diff);
    }

    // The names whose candidates changed, sorted, once each.
    let mut affected: Vec<String> = Vec::new();
    for (p, diff) in diffs.iter().enumerate() {
        for i in diff.removed() {
            affected.push(previous_name(previous, memo, p, i)?.to_owned());
        }
        let Some(Listing::Native(candidates)) = listings.get(p) else {
            return None;
        };
        for i in diff.inserted() {
            affected.push(candidates.get(i as usize)?.as_ref()?.summary.name.clone());
        }
    }
    // And the names whose duplicates of one layer were compared through
    // the filesystem (two bundles with identical skill files: their
    // resources may have changed while their candidates did not).
    let depth_of = |origin: Origin| match origin {
        Origin::Runtime(i) => runtime.get(i as usize).map(|r| r.depth),
        Origin::Provider(p, _) => providers.get(p as usize).map(|p| p.depth),
    };
    for &(at, loser) in &memo.losers {
        let entry = previous.entries.get(at as usize)?;
        let winner = *memo.origins.get(at as usize)?;
        if depth_of(winner) != depth_of(loser) {
            continue;
        }
        let (Winner::Native { candidate, .. }, Some(other)) =
            (&entry.winner, native_candidate(loser, &before.listings))
        else {
            continue;
        };
        if crate::same::reads_files(candidate, other) {
            affected.push(previous.name(entry).to_owned());
        }
    }
    affected.sort_unstable();
    affected.dedup();

    // The steps: kept entries and names merged again, in name order.
    let listings_ro: &[Listing] = listings;
    let mut steps: Vec<Step> = Vec::with_capacity(previous.entries.len() + affected.len());
    let mut next = 0usize;
    for name in &affected {
        let at =
            next + previous.entries[next..].partition_point(|e| previous.name(e) < name.as_str());
        steps.extend((next..at).map(Step::Keep));
        next = at;
        let mut members: Vec<Origin> = Vec::new();
        if previous
            .entries
            .get(at)
            .is_some_and(|e| previous.name(e) == name.as_str())
        {
            next += 1;
            let old = std::iter::once(*memo.origins.get(at)?).chain(losers_of(memo, at));
            for origin in old {
                if let Some(mapped) = map_origin(&diffs, origin) {
                    members.push(mapped);
                }
            }
        }
        for (p, diff) in diffs.iter().enumerate() {
            let Some(Listing::Native(candidates)) = listings_ro.get(p) else {
                return None;
            };
            for i in diff.inserted() {
                let c = candidates.get(i as usize)?.as_ref()?;
                if c.summary.name == *name {
                    members.push(Origin::Provider(u32::try_from(p).ok()?, i));
                }
            }
        }
        if let Some(step) = merge_name(members, runtime, providers, listings_ro, overrides)? {
            steps.push(step);
        }
    }
    steps.extend((next..previous.entries.len()).map(Step::Keep));

    // Every kept entry's candidate is still in its listing (it did not
    // change), so building cannot fail half way.
    let kept = |at: usize| -> Option<Origin> { map_origin(&diffs, *memo.origins.get(at)?) };
    let mut keeps: Vec<Option<Origin>> = Vec::with_capacity(steps.len());
    for step in &steps {
        let Step::Keep(at) = *step else {
            keeps.push(None);
            continue;
        };
        let origin = kept(at)?;
        match (&previous.entries.get(at)?.winner, origin) {
            (Winner::Runtime { .. }, Origin::Runtime(_)) => {}
            (Winner::Native { .. }, Origin::Provider(p, i)) => {
                providers.get(p as usize)?.native.as_ref()?;
                match listings_ro.get(p as usize) {
                    Some(Listing::Native(c)) if c.get(i as usize).is_some_and(Option::is_some) => {}
                    _ => return None,
                }
            }
            _ => return None,
        }
        keeps.push(Some(origin));
    }
    Some(apply(
        previous, memo, &diffs, steps, keeps, identities, runtime, providers, listings,
    ))
}

/// Build the patched catalog from checked `steps` (`keeps`: each kept
/// step's new origin). Nothing here can fail; a step that could not be
/// built after all (it cannot happen) is left out, as the full build leaves
/// out a winner it cannot build, and the result keeps no memo.
#[allow(clippy::too_many_arguments)]
fn apply(
    previous: &Catalog,
    memo: &Memo,
    diffs: &[Diff],
    steps: Vec<Step>,
    keeps: Vec<Option<Origin>>,
    identities: Vec<Vec<usize>>,
    runtime: &[PlannedRuntime],
    providers: &[PlannedProvider],
    listings: &mut [Listing],
) -> Patched {
    let mut built = Built::with_capacity(previous.text.len() + 64, steps.len());
    let mut losers_out: Vec<(u32, Origin)> = Vec::new();
    let mut warnings_out: Vec<(u32, String)> = Vec::new();
    let mut whole = true;
    for (step, keep) in steps.into_iter().zip(keeps) {
        let position = super::merge::index(built.entries.len());
        match step {
            Step::Keep(at) => {
                let (Some(old), Some(origin)) = (previous.entries.get(at), keep) else {
                    whole = false;
                    continue;
                };
                let winner = match (&old.winner, origin) {
                    (Winner::Runtime { id }, _) => Some(Winner::Runtime { id: *id }),
                    (Winner::Native { slot, .. }, Origin::Provider(p, i)) => {
                        let provider = providers.get(p as usize).and_then(|p| p.native.clone());
                        let candidate = match listings.get_mut(p as usize) {
                            Some(Listing::Native(candidates)) => {
                                candidates.get_mut(i as usize).and_then(Option::take)
                            }
                            _ => None,
                        };
                        provider.zip(candidate).map(|(provider, mut candidate)| {
                            rewrite(&mut candidate, old.applied);
                            Winner::Native {
                                slot: *slot,
                                provider,
                                candidate,
                            }
                        })
                    }
                    _ => None,
                };
                let Some(winner) = winner else {
                    whole = false;
                    continue;
                };
                let description = match old.description {
                    Description::Native => Description::Native,
                    Description::Host(_) => built.held(),
                };
                let entry = Entry {
                    name: built.span(previous.name(old)),
                    description,
                    invocation: old.invocation,
                    rank: old.rank,
                    depth: old.depth,
                    winner,
                    applied: old.applied,
                };
                built.entries.push(entry);
                built.origins.push(origin);
                for loser in losers_of(memo, at) {
                    match map_origin(diffs, loser) {
                        Some(loser) => losers_out.push((position, loser)),
                        None => whole = false,
                    }
                }
                for (_, warning) in warnings_of(memo, at) {
                    warnings_out.push((position, warning.clone()));
                }
            }
            Step::Fresh {
                winner,
                applied,
                losers,
                warnings,
            } => {
                if !built.push_winner(winner, applied, runtime, providers, listings) {
                    whole = false;
                    continue;
                }
                losers_out.extend(losers.into_iter().map(|l| (position, l)));
                warnings_out.extend(warnings.into_iter().map(|w| (position, w)));
            }
        }
    }
    let warnings = warnings_out.iter().map(|(_, w)| w.clone()).collect();
    let mut identities = identities;
    super::merge::forget_rewritten(&mut identities, &built.entries, &built.origins);
    let memo = whole.then(|| Memo {
        identities,
        origins: std::mem::take(&mut built.origins),
        losers: losers_out,
        warnings: warnings_out,
    });
    Patched {
        built,
        memo,
        warnings,
    }
}

/// Whether the runtime skills planned are the previous catalog's.
fn same_plan(before: &[PlannedRuntime], now: &[PlannedRuntime]) -> bool {
    before.len() == now.len()
        && before
            .iter()
            .zip(now)
            .all(|(a, b)| a.id == b.id && a.depth == b.depth && Arc::ptr_eq(&a.skill, &b.skill))
}

/// Whether the providers planned are the previous catalog's.
fn same_providers(before: &[PlannedProvider], now: &[PlannedProvider]) -> bool {
    let address = |p: &PlannedProvider| p.native.as_ref().map(|n| Arc::as_ptr(n).cast::<()>());
    before.len() == now.len()
        && before.iter().zip(now).all(|(a, b)| {
            a.slot == b.slot && a.depth == b.depth && a.name == b.name && address(a) == address(b)
        })
}

/// The name of the previous catalog's candidate at position `i` of listing
/// `p`: still in the listing when it lost (or was switched off), in its
/// entry when it won.
fn previous_name<'a>(previous: &'a Catalog, memo: &Memo, p: usize, i: u32) -> Option<&'a str> {
    let Some(Listing::Native(candidates)) = previous.considered.listings.get(p) else {
        return None;
    };
    if let Some(c) = candidates.get(i as usize)?.as_ref() {
        return Some(&c.summary.name);
    }
    let origin = Origin::Provider(u32::try_from(p).ok()?, i);
    let at = memo.origins.iter().position(|o| *o == origin)?;
    Some(previous.name(previous.entries.get(at)?))
}

/// The losers the previous merge recorded for the entry at `at`.
fn losers_of(memo: &Memo, at: usize) -> impl Iterator<Item = Origin> + '_ {
    let start = memo.losers.partition_point(|(e, _)| (*e as usize) < at);
    memo.losers[start..]
        .iter()
        .take_while(move |(e, _)| *e as usize == at)
        .map(|(_, o)| *o)
}

/// The warnings the previous merge gave for the entry at `at`.
fn warnings_of(memo: &Memo, at: usize) -> impl Iterator<Item = &(u32, String)> + '_ {
    let start = memo.warnings.partition_point(|(e, _)| (*e as usize) < at);
    memo.warnings[start..]
        .iter()
        .take_while(move |(e, _)| *e as usize == at)
}

/// Where a previous contender is now (`None` when it left).
fn map_origin(diffs: &[Diff], origin: Origin) -> Option<Origin> {
    match origin {
        Origin::Runtime(_) => Some(origin),
        Origin::Provider(p, i) => diffs
            .get(p as usize)?
            .map(i)
            .map(|i| Origin::Provider(p, i)),
    }
}

/// Merge one name again from its contenders (any order): the full merge's
/// order is name, layer depth, rank, then the order contenders are pushed in
/// (runtime skills, then providers in order, each in its own order).
fn merge_name(
    members: Vec<Origin>,
    runtime: &[PlannedRuntime],
    providers: &[PlannedProvider],
    listings: &[Listing],
    overrides: &RuleChain,
) -> Option<Option<Step>> {
    let mut group: Vec<(Contender<'_>, Option<Decided>)> = Vec::with_capacity(members.len());
    for origin in members {
        let l = labels(origin, runtime, providers, listings)?;
        let decided = if overrides.is_empty() {
            None
        } else {
            overrides.decide(l.name, l.source, l.provider)
        };
        if decided.is_some_and(|d| d.effect == crate::overrides::Effect::Off) {
            continue;
        }
        let (depth, rank) = match origin {
            Origin::Runtime(i) => (runtime.get(i as usize)?.depth, RUNTIME_RANK),
            Origin::Provider(p, i) => {
                let depth = providers.get(p as usize)?.depth;
                let Some(Listing::Native(candidates)) = listings.get(p as usize) else {
                    return None;
                };
                (depth, candidates.get(i as usize)?.as_ref()?.rank)
            }
        };
        group.push((
            Contender {
                name: l.name,
                depth,
                rank,
                origin,
            },
            decided,
        ));
    }
    let pushed = |o: Origin| match o {
        Origin::Runtime(i) => (0u32, i, 0u32),
        Origin::Provider(p, i) => (1, p, i),
    };
    group.sort_by(|(a, _), (b, _)| {
        a.depth
            .cmp(&b.depth)
            .then(a.rank.total_cmp(&b.rank))
            .then_with(|| pushed(a.origin).cmp(&pushed(b.origin)))
    });
    let Some(&(first, applied)) = group.first() else {
        // Every contender left or is switched off: the name is gone.
        return Some(None);
    };
    let contenders: Vec<Contender<'_>> = group.into_iter().map(|(c, _)| c).collect();
    let mut merged = Merged::default();
    resolve_group(&contenders, runtime, providers, listings, &mut merged);
    Some(Some(Step::Fresh {
        winner: first.origin,
        applied,
        losers: merged.losers.into_iter().map(|(_, o)| o).collect(),
        warnings: merged.warnings,
    }))
}
