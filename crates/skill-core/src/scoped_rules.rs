//! Override rules along a scope chain: the registry's own (global) rules and
//! the rules of each scoped layer a read merges.
//!
//! A view's rules are the global rules, then each scoped layer's rules from
//! the farthest layer of the chain to the nearest, read as one list where the
//! last matching rule decides ([`crate::overrides`]). So the nearest layer
//! holding a matching rule decides about a candidate, whatever the farther
//! layers say; a layer without a matching rule leaves the decision to the
//! layers behind it. An allow-list for one scope is
//! `[{ name: '*', effect: 'off' }, { name: 'code-review', effect: 'on' }]`
//! in that scope's layer: everything off, then the names it may see back on.
//!
//! Rules are decided per candidate, before the merge, for candidates of every
//! layer of the view alike: a scope's rules restrict (or rewrite) the global
//! skills its agents see as much as its own.

use crate::overrides::{Applied, Effect, Overrides};
use std::sync::Arc;

/// Id of the layer holding a set of rules (`0`: the registry's global rules).
pub type RulesLayer = u64;

/// The rule that decided about a candidate, and the layer it belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decided {
    /// Index of the rule in its layer's rules.
    pub rule: u32,
    /// Its effect.
    pub effect: Effect,
    /// The layer whose rules hold it (`0` for the global rules).
    pub layer: RulesLayer,
}

impl Decided {
    fn new(applied: Applied, layer: RulesLayer) -> Self {
        Decided {
            rule: applied.rule,
            effect: applied.effect,
            layer,
        }
    }
}

/// The rules a view applies: the global rules, then each scoped layer's,
/// farthest first. Empty (and free to decide with) when no layer of the view
/// carries rules.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RuleChain {
    /// Farthest first; only non-empty rule sets are kept.
    links: Vec<(RulesLayer, Arc<Overrides>)>,
}

impl RuleChain {
    /// The chain of `global` rules and the `scoped` layers' rules, given
    /// nearest first (as a view lists its layers); empty rule sets are left
    /// out.
    pub fn new<'a>(
        global: &Arc<Overrides>,
        scoped: impl DoubleEndedIterator<Item = (RulesLayer, &'a Arc<Overrides>)>,
    ) -> Self {
        let mut links = Vec::new();
        if !global.is_empty() {
            links.push((0, global.clone()));
        }
        for (layer, rules) in scoped.rev() {
            if !rules.is_empty() {
                links.push((layer, rules.clone()));
            }
        }
        RuleChain { links }
    }

    /// The chain of the global rules alone.
    pub fn global(global: &Arc<Overrides>) -> Self {
        Self::new(global, std::iter::empty())
    }

    /// Whether no rule applies (nothing to decide).
    pub fn is_empty(&self) -> bool {
        self.links.is_empty()
    }

    /// Number of rules, every layer's together.
    pub fn len(&self) -> usize {
        self.links.iter().map(|(_, rules)| rules.len()).sum()
    }

    /// The rule deciding about a candidate with these labels: the last
    /// matching rule of the nearest layer that has one.
    pub fn decide(&self, name: &str, source: &str, provider: &str) -> Option<Decided> {
        self.links.iter().rev().find_map(|(layer, rules)| {
            rules
                .decide(name, source, provider)
                .map(|applied| Decided::new(applied, *layer))
        })
    }

    /// Whether a candidate with these labels takes part in the merge.
    pub fn keeps(&self, name: &str, source: &str, provider: &str) -> bool {
        self.decide(name, source, provider)
            .is_none_or(|d| d.effect != Effect::Off)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rules(value: serde_json::Value) -> Arc<Overrides> {
        Arc::new(Overrides::from_json(&value).expect("valid rules"))
    }

    #[test]
    fn the_nearest_layer_with_a_matching_rule_decides() {
        let global = rules(json!([{ "name": "deploy", "effect": "off" }]));
        let team = rules(json!([
            { "name": "deploy", "effect": "on" },
            { "name": "lint", "effect": "user-only" },
        ]));
        let agent = rules(json!([{ "name": "lint", "effect": "off" }]));
        // Nearest first, as a view lists its layers.
        let chain = RuleChain::new(&global, [(7, &agent), (3, &team)].into_iter());
        assert_eq!(chain.len(), 4);
        // The agent's layer says nothing about deploy: the team's rule decides.
        assert_eq!(
            chain.decide("deploy", "s", "p"),
            Some(Decided {
                rule: 0,
                effect: Effect::On,
                layer: 3
            })
        );
        assert!(chain.keeps("deploy", "s", "p"));
        // The agent's own rule beats the team's.
        assert_eq!(
            chain.decide("lint", "s", "p"),
            Some(Decided {
                rule: 0,
                effect: Effect::Off,
                layer: 7
            })
        );
        assert!(!chain.keeps("lint", "s", "p"));
        assert_eq!(chain.decide("other", "s", "p"), None);
        // The team alone: deploy back on, lint rewritten.
        let team_only = RuleChain::new(&global, [(3, &team)].into_iter());
        assert_eq!(
            team_only
                .decide("lint", "s", "p")
                .map(|d| (d.layer, d.effect)),
            Some((3, Effect::UserOnly))
        );
        // No scope: the global rules alone.
        let alone = RuleChain::global(&global);
        assert_eq!(
            alone.decide("deploy", "s", "p"),
            Some(Decided {
                rule: 0,
                effect: Effect::Off,
                layer: 0
            })
        );
    }

    #[test]
    fn an_allow_list_switches_everything_else_off() {
        let global = Arc::new(Overrides::default());
        let reviewer = rules(json!([
            { "name": "*", "effect": "off" },
            { "name": "review-*", "effect": "on" },
            { "name": "code-review", "effect": "on" },
        ]));
        let chain = RuleChain::new(&global, [(2, &reviewer)].into_iter());
        for (name, kept) in [
            ("review-security", true),
            ("code-review", true),
            ("deploy", false),
            ("reviews", false),
        ] {
            assert_eq!(chain.keeps(name, "s", "p"), kept, "{name}");
        }
        // A layer farther than the allow-list cannot widen it.
        let wide = rules(json!([{ "name": "deploy", "effect": "on" }]));
        let chain = RuleChain::new(&global, [(2, &reviewer), (1, &wide)].into_iter());
        assert!(!chain.keeps("deploy", "s", "p"));
        // A nearer one can.
        let chain = RuleChain::new(&global, [(1, &wide), (2, &reviewer)].into_iter());
        assert!(chain.keeps("deploy", "s", "p"));
    }

    #[test]
    fn empty_rule_sets_leave_the_chain_empty() {
        let none = Arc::new(Overrides::default());
        let chain = RuleChain::new(&none, [(1, &none), (2, &none)].into_iter());
        assert!(chain.is_empty());
        assert_eq!(chain, RuleChain::default());
        assert!(chain.keeps("anything", "s", "p"));
    }
}
