//! Warn once per distinct problem.
//!
//! Discovery runs on every lookup that misses the catalog cache, and an
//! unreadable root or a broken file makes every such lookup produce the same
//! warning (an incomplete observation is never cached, so it is listed again
//! and again). [`WarnOnce`] remembers, per root, the warnings already logged:
//! a warning is logged when it first appears, not again while each new scan of
//! that root keeps producing it, and again once it went away (a scan of that
//! root without it) and came back. A changed problem has a changed message,
//! so it is logged.

use lru::LruCache;
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{Mutex, PoisonError};

/// Scopes remembered at most (roots, plus the watcher's health).
const MAX_SCOPES: usize = 1024;

/// What a warning is about.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Scope {
    /// A root and the files found in it.
    Root(PathBuf),
    /// The health of root watching.
    Watch,
}

/// The warnings already logged, per scope.
pub(crate) struct WarnOnce {
    logged: Mutex<LruCache<Scope, HashSet<String>>>,
}

impl Default for WarnOnce {
    fn default() -> Self {
        Self {
            // Unbounded by the LRU itself (which would allocate room for every
            // scope up front): `filter` keeps at most `MAX_SCOPES`.
            logged: Mutex::new(LruCache::unbounded()),
        }
    }
}

impl WarnOnce {
    /// The warnings of one discovery worth logging, in order. `observed` are
    /// the scopes that discovery looked at in full (`produced` holds all of
    /// their warnings); warnings of other scopes always pass. When `settle` is
    /// false (a cancelled discovery saw only part of its scopes) nothing is
    /// forgotten.
    pub(crate) fn filter(
        &self,
        observed: &[Scope],
        produced: Vec<(Scope, String)>,
        settle: bool,
    ) -> Vec<String> {
        let mut logged = self.logged.lock().unwrap_or_else(PoisonError::into_inner);
        let mut now: Vec<(Scope, HashSet<String>)> = Vec::new();
        let mut out = Vec::new();
        for (scope, message) in produced {
            if !observed.contains(&scope) {
                out.push(message);
                continue;
            }
            let index = match now.iter().position(|(s, _)| *s == scope) {
                Some(index) => index,
                None => {
                    now.push((scope.clone(), HashSet::new()));
                    now.len() - 1
                }
            };
            if !now[index].1.insert(message.clone()) {
                continue;
            }
            let before = logged
                .peek(&scope)
                .is_some_and(|set| set.contains(&message));
            if !before {
                out.push(message);
            }
        }
        for scope in observed {
            let current = now
                .iter()
                .position(|(s, _)| s == scope)
                .map(|i| now.swap_remove(i).1);
            match current {
                Some(set) => {
                    if settle {
                        logged.put(scope.clone(), set);
                    } else {
                        let entry = logged.get_or_insert_mut(scope.clone(), HashSet::new);
                        entry.extend(set);
                    }
                }
                None if settle => {
                    logged.pop(scope);
                }
                None => {}
            }
        }
        while logged.len() > MAX_SCOPES {
            logged.pop_lru();
        }
        out
    }

    /// Forget every warning logged so far (and the memory remembering them).
    pub(crate) fn clear(&self) {
        *self.logged.lock().unwrap_or_else(PoisonError::into_inner) = LruCache::unbounded();
    }

    /// Warnings remembered and their bytes (an estimate of the memory held).
    pub(crate) fn size(&self) -> (usize, usize) {
        let logged = self.logged.lock().unwrap_or_else(PoisonError::into_inner);
        let bytes = logged
            .iter()
            .map(|(scope, set)| {
                let scope = match scope {
                    Scope::Root(p) => p.as_os_str().len(),
                    Scope::Watch => 0,
                };
                64 + scope + set.iter().map(|m| 32 + m.len()).sum::<usize>()
            })
            .sum();
        (logged.len(), bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root(p: &str) -> Scope {
        Scope::Root(PathBuf::from(p))
    }

    fn warn(scope: &Scope, m: &str) -> (Scope, String) {
        (scope.clone(), m.to_string())
    }

    #[test]
    fn once_until_it_goes_away_then_again() {
        let w = WarnOnce::default();
        let a = root("/a");
        let b = root("/b");
        let both = [a.clone(), b.clone()];
        let first = w.filter(
            &both,
            vec![warn(&a, "x"), warn(&b, "y"), warn(&a, "x")],
            true,
        );
        assert_eq!(first, ["x", "y"]);
        assert!(w
            .filter(&both, vec![warn(&a, "x"), warn(&b, "y")], true)
            .is_empty());
        // A changed problem is a new warning.
        assert_eq!(
            w.filter(&both, vec![warn(&a, "x2"), warn(&b, "y")], true),
            ["x2"]
        );
        // A scan that does not cover `b` does not forget it.
        assert!(w
            .filter(std::slice::from_ref(&a), vec![warn(&a, "x2")], true)
            .is_empty());
        assert!(w
            .filter(&both, vec![warn(&a, "x2"), warn(&b, "y")], true)
            .is_empty());
        // Gone, then back.
        assert!(w.filter(&both, vec![warn(&b, "y")], true).is_empty());
        assert_eq!(
            w.filter(&both, vec![warn(&a, "x2"), warn(&b, "y")], true),
            ["x2"]
        );
        // Unscoped warnings always pass.
        let other = root("/other");
        assert_eq!(w.filter(&both, vec![warn(&other, "z")], true), ["z"]);
        assert_eq!(w.filter(&both, vec![warn(&other, "z")], true), ["z"]);
    }

    #[test]
    fn bounded_and_cleared() {
        let w = WarnOnce::default();
        for i in 0..MAX_SCOPES + 10 {
            let scope = root(&format!("/r{i}"));
            w.filter(std::slice::from_ref(&scope), vec![warn(&scope, "x")], true);
        }
        assert_eq!(w.size().0, MAX_SCOPES);
        // The oldest scopes were forgotten: their warning is logged again.
        let first = root("/r0");
        assert_eq!(
            w.filter(std::slice::from_ref(&first), vec![warn(&first, "x")], true),
            ["x"]
        );
        w.clear();
        assert_eq!(w.size(), (0, 0));
        let last = root(&format!("/r{}", MAX_SCOPES + 9));
        assert_eq!(
            w.filter(std::slice::from_ref(&last), vec![warn(&last, "x")], true),
            ["x"]
        );
    }

    #[test]
    fn a_partial_discovery_forgets_nothing() {
        let w = WarnOnce::default();
        let a = root("/a");
        assert_eq!(
            w.filter(std::slice::from_ref(&a), vec![warn(&a, "x")], true),
            ["x"]
        );
        assert!(w
            .filter(std::slice::from_ref(&a), Vec::new(), false)
            .is_empty());
        assert!(w
            .filter(std::slice::from_ref(&a), vec![warn(&a, "x")], true)
            .is_empty());
    }
}
