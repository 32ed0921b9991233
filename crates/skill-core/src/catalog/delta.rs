//! Catalog deltas: what changed between two published catalogs, and a
//! catalog rebuilt from a recorded one and the deltas after it.
//!
//! A catalog here is its structured entries ([`StructuredEntries`]) in name
//! order: names strictly increasing as UTF-16 code unit sequences, which is
//! JavaScript's string order (the order the registry publishes; names are
//! kebab-case ASCII there). A delta lists the entries added, the entries
//! whose description changed (with the new description) and the names
//! removed; [`diff`] makes one in one pass over both catalogs, and [`apply`]
//! gives the catalog after it, refusing a delta that does not fit (it adds a
//! name already there, changes or removes one that is not, or names one
//! twice). `apply(before, diff(before, after)) == after` for any two
//! catalogs in name order.

use super::structured::StructuredEntries;
use std::cmp::Ordering;
use std::collections::HashMap;

/// What changed from one catalog to the next.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Delta {
    /// Entries new to the catalog, in name order.
    pub added: StructuredEntries,
    /// Entries whose description changed, with the new description, in name order.
    pub changed: StructuredEntries,
    /// Names no longer in the catalog, in name order (each with an empty description).
    pub removed: StructuredEntries,
}

impl Delta {
    /// Whether nothing changed.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.changed.is_empty() && self.removed.is_empty()
    }
}

/// Whether the names of `entries` are strictly increasing (no name twice):
/// a catalog a delta can be computed from or applied to.
pub fn in_name_order(entries: &StructuredEntries) -> bool {
    let mut previous: Option<&[u16]> = None;
    for (name, _) in entries.pairs() {
        if previous.is_some_and(|p| p >= name) {
            return false;
        }
        previous = Some(name);
    }
    true
}

/// What changed from `before` to `after`, both in name order (see
/// [`in_name_order`]).
pub fn diff(before: &StructuredEntries, after: &StructuredEntries) -> Delta {
    let mut delta = Delta::default();
    let mut old = before.pairs().peekable();
    let mut new = after.pairs().peekable();
    loop {
        match (old.peek(), new.peek()) {
            (None, None) => break,
            (Some(&(name, _)), None) => {
                delta.removed.push_units(name, &[]);
                old.next();
            }
            (None, Some(&(name, description))) => {
                delta.added.push_units(name, description);
                new.next();
            }
            (Some(&(a, da)), Some(&(b, db))) => match a.cmp(b) {
                Ordering::Less => {
                    delta.removed.push_units(a, &[]);
                    old.next();
                }
                Ordering::Greater => {
                    delta.added.push_units(b, db);
                    new.next();
                }
                Ordering::Equal => {
                    if da != db {
                        delta.changed.push_units(b, db);
                    }
                    old.next();
                    new.next();
                }
            },
        }
    }
    delta
}

/// What one name of a delta does (an added entry is inserted from the sorted list).
enum Edit<'a> {
    Add,
    Change(&'a [u16]),
    Remove,
}

/// The catalog after `delta`, from `entries` in name order, or `None` when
/// the delta does not fit them.
pub fn apply(entries: &StructuredEntries, delta: &Delta) -> Option<StructuredEntries> {
    let mut edits: HashMap<&[u16], Edit<'_>> = HashMap::new();
    let mut added: Vec<(&[u16], &[u16])> = Vec::new();
    for (name, description) in delta.added.pairs() {
        edits.insert(name, Edit::Add).map_or(Some(()), |_| None)?;
        added.push((name, description));
    }
    for (name, description) in delta.changed.pairs() {
        edits
            .insert(name, Edit::Change(description))
            .map_or(Some(()), |_| None)?;
    }
    for (name, _) in delta.removed.pairs() {
        edits
            .insert(name, Edit::Remove)
            .map_or(Some(()), |_| None)?;
    }
    added.sort_unstable_by(|a, b| a.0.cmp(b.0));
    let mut out = StructuredEntries::default();
    let mut pending = added.into_iter().peekable();
    let mut matched = 0usize;
    for (name, description) in entries.pairs() {
        while let Some(&(new_name, new_description)) = pending.peek() {
            if new_name >= name {
                break;
            }
            out.push_units(new_name, new_description);
            pending.next();
        }
        match edits.get(name) {
            None => out.push_units(name, description),
            Some(Edit::Add) => return None,
            Some(Edit::Change(new_description)) => {
                matched += 1;
                out.push_units(name, new_description);
            }
            Some(Edit::Remove) => matched += 1,
        }
    }
    for (name, description) in pending {
        out.push_units(name, description);
    }
    (matched == delta.changed.len() + delta.removed.len()).then_some(out)
}

#[cfg(test)]
mod tests;
