//! Fair shares: how the sources split the room the pinned and preferred
//! skills leave, by max-min fairness, and how each fits into its share (the
//! steps of the [`super`] docs).

use super::priority::Groups;
use super::{Layout, Shape, MIN_SHORTENED_LENGTH};

impl Layout<'_, '_> {
    /// Units the lines of `group` take as they stand, each with its newline.
    fn cost(&self, group: &[usize]) -> usize {
        group
            .iter()
            .map(|&i| match self.shapes[i] {
                Shape::Omitted => 0,
                shape => self.line_len(i, shape) + 1,
            })
            .sum()
    }

    /// Lays out the sources of `groups` (every entry as it starts) in what the
    /// pinned and preferred skills leave of `budget`: first without room for
    /// the last line, and when something is left out, again with it. False
    /// when the block does not fit (then every source is left out).
    pub(super) fn share(&mut self, groups: &Groups, budget: usize) -> bool {
        // Counted with one newline per line, the block is one unit longer.
        let kept = self.cost(&groups.pinned) + self.cost(&groups.preferred);
        let Some(room) = budget.saturating_add(1).checked_sub(kept) else {
            self.split(&groups.sources, 0);
            return false;
        };
        // When not even every name fits, something is left out for sure: the
        // first split is skipped.
        let names: usize = groups
            .sources
            .iter()
            .flatten()
            .map(|&i| self.line_len(i, Shape::NameOnly) + 1)
            .sum();
        if names <= room {
            self.split(&groups.sources, room);
        }
        if names > room || self.omitted > 0 {
            let sourced: usize = groups.sources.iter().map(Vec::len).sum();
            if names <= room {
                for &i in groups.sources.iter().flatten() {
                    self.set(i, self.initial[i]);
                }
            }
            // The last line at its longest: every source entry counted.
            let reserve = self.notice.len(sourced) + 1;
            self.split(&groups.sources, room.saturating_sub(reserve));
        }
        self.total() <= budget
    }

    /// Splits `room` units between `sources` (every entry as it starts): each
    /// source whose lines take no more than an equal share of what is left
    /// stays whole, smallest first (ties: nearest first); the others, farthest
    /// first, each fit into an equal part of what is left then.
    fn split(&mut self, sources: &[Vec<usize>], room: usize) {
        let demands: Vec<usize> = sources.iter().map(|s| self.cost(s)).collect();
        let mut order: Vec<usize> = (0..sources.len()).collect();
        order.sort_by_key(|&k| demands[k]);
        let mut left = room;
        let mut whole = 0;
        for (n, &k) in order.iter().enumerate() {
            if demands[k].saturating_mul(order.len() - n) > left {
                break;
            }
            left -= demands[k];
            whole += 1;
        }
        let mut over = order.split_off(whole);
        over.sort_unstable();
        for (n, &k) in over.iter().enumerate().rev() {
            left -= self.fit(&sources[k], left / (n + 1));
        }
    }

    /// Whether name-only entries buy `group` real reach in `room` units (lines
    /// with their newlines): without a search tool a name is the only way to
    /// a skill that is not listed; with one, only when every skill of the
    /// group is then listed.
    fn names_buy_reach(&self, group: &[usize], room: usize) -> bool {
        self.notice.no_search_tool()
            || group
                .iter()
                .map(|&i| self.line_len(i, Shape::NameOnly) + 1)
                .sum::<usize>()
                <= room
    }

    /// Fits `group` (every entry as it starts, in name order) into `room` units:
    /// shortened to a common length, then name-only entries (where they buy
    /// reach), then left out, the end of the alphabet first. Returns the
    /// units its lines take.
    fn fit(&mut self, group: &[usize], room: usize) -> usize {
        let mut cost = self.cost(group);
        if cost <= room {
            return cost;
        }
        let newlines = group.len();
        if let Some(cap) = self.largest_cap(group, room.saturating_sub(newlines)) {
            if newlines <= room {
                self.cut_to(group, cap);
                return self.cost(group);
            }
        }
        if MIN_SHORTENED_LENGTH < self.catalog.max_len {
            self.cut_to(group, MIN_SHORTENED_LENGTH);
            cost = self.cost(group);
        }
        if self.names_buy_reach(group, room) {
            for &i in group.iter().rev() {
                if cost <= room {
                    return cost;
                }
                cost -= self.line_len(i, self.shapes[i]) - self.line_len(i, Shape::NameOnly);
                self.set(i, Shape::NameOnly);
            }
        }
        for &i in group.iter().rev() {
            if cost <= room {
                break;
            }
            cost -= self.line_len(i, self.shapes[i]) + 1;
            self.set(i, Shape::Omitted);
        }
        cost
    }
}
