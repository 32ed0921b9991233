//! The module docs taken literally: every candidate block and line rendered
//! as a string and measured, for the generated-catalog comparisons.

use super::*;

/// A plain recursive glob match (`*`: any run of characters), for the reference.
fn glob_matches(pattern: &[u8], text: &[u8]) -> bool {
    match pattern.split_first() {
        None => text.is_empty(),
        Some((b'*', rest)) => (0..=text.len()).any(|k| glob_matches(rest, &text[k..])),
        Some((c, rest)) => text.first() == Some(c) && glob_matches(rest, &text[1..]),
    }
}

/// The module docs taken literally, without origins (one source).
pub(super) fn reference(
    items: &[(&str, &str)],
    max_len: usize,
    budget: usize,
    pinned: &[&str],
) -> String {
    let one: Vec<Item<'_>> = items.iter().map(|&(n, d)| (n, d, 0.0, "")).collect();
    reference_shared(&one, max_len, budget, pinned, None)
}

/// A skill for the reference: name, description, rank, group.
pub(super) type Item<'a> = (&'a str, &'a str, f64, &'a str);

/// The module docs taken literally: every candidate block and line is
/// rendered as a string and measured; the shares are made as the docs say,
/// each source trying the longest common length first.
pub(super) fn reference_shared(
    items: &[Item<'_>],
    max_len: usize,
    budget: usize,
    pinned: &[&str],
    tool: Option<&str>,
) -> String {
    #[derive(Clone, Copy, PartialEq)]
    enum S {
        Cap(usize),
        Name,
        Out,
    }
    let notice = Notice {
        search_tool: tool.map(str::to_string),
    };
    let mut items = items.to_vec();
    items.sort_by(|a, b| a.0.cmp(b.0));
    let line = |i: usize, s: S| -> Option<String> {
        let (name, d, _, _) = items[i];
        match s {
            S::Cap(cap) => Some(format!("- `{name}`: {}", desc(d, cap))),
            S::Name => Some(format!("- `{name}`")),
            S::Out => None,
        }
    };
    let render = |shapes: &[S]| {
        let mut lines: Vec<String> = (0..items.len())
            .filter_map(|i| line(i, shapes[i]))
            .collect();
        let out = shapes.iter().filter(|s| **s == S::Out).count();
        if out > 0 {
            lines.push(notice.text(out));
        }
        lines.join("\n")
    };
    let fits = |shapes: &[S]| utf16_len(&render(shapes)) <= budget;
    // Units of the lines of `group`, each with its newline.
    let cost = |group: &[usize], shapes: &[S]| -> usize {
        group
            .iter()
            .filter_map(|&i| line(i, shapes[i]))
            .map(|l| utf16_len(&l) + 1)
            .sum()
    };
    let all_full = vec![S::Cap(max_len); items.len()];
    if fits(&all_full) {
        return render(&all_full);
    }
    // Pins: a glob's matches by rank, then name; an exact name's (a plain
    // array may hold it twice) in entry order.
    let mut by_rank: Vec<usize> = (0..items.len()).collect();
    by_rank.sort_by(|&a, &b| items[a].2.partial_cmp(&items[b].2).unwrap().then(a.cmp(&b)));
    let mut first = Vec::new();
    for p in pinned {
        let candidates: Vec<usize> = if p.contains('*') {
            by_rank.clone()
        } else {
            (0..items.len()).collect()
        };
        for i in candidates {
            let name = items[i].0;
            let hit = if p.contains('*') {
                glob_matches(p.as_bytes(), name.as_bytes())
            } else {
                name == *p
            };
            if hit && !first.contains(&i) {
                first.push(i);
            }
        }
    }
    // Sources by group, nearest first (lowest rank, then group), in name order.
    let mut keys: Vec<(f64, &str)> = Vec::new();
    for i in (0..items.len()).filter(|i| !first.contains(i)) {
        let (_, _, rank, group) = items[i];
        match keys.iter_mut().find(|k| k.1 == group) {
            Some(k) => k.0 = k.0.min(rank),
            None => keys.push((rank, group)),
        }
    }
    keys.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap().then(a.1.cmp(b.1)));
    let sources: Vec<Vec<usize>> = keys
        .iter()
        .map(|k| {
            (0..items.len())
                .filter(|i| !first.contains(i) && items[*i].3 == k.1)
                .collect()
        })
        .collect();
    // One source into `room`: shortened, names only (no tool), left out.
    let fit = |shapes: &mut Vec<S>, group: &[usize], room: usize| -> usize {
        if cost(group, shapes) <= room {
            return cost(group, shapes);
        }
        for cap in (MIN_SHORTENED_LENGTH..max_len).rev() {
            let mut trial = shapes.clone();
            for &i in group {
                trial[i] = S::Cap(cap);
            }
            if cost(group, &trial) <= room {
                *shapes = trial;
                return cost(group, shapes);
            }
        }
        if MIN_SHORTENED_LENGTH < max_len {
            for &i in group {
                shapes[i] = S::Cap(MIN_SHORTENED_LENGTH);
            }
        }
        // Names buy reach without a search tool, or when they list every skill.
        let mut named = shapes.clone();
        for &i in group {
            named[i] = S::Name;
        }
        let names = tool.is_none() || cost(group, &named) <= room;
        let ladder: &[S] = if names { &[S::Name, S::Out] } else { &[S::Out] };
        for &step in ladder {
            for &i in group.iter().rev() {
                if cost(group, shapes) <= room {
                    return cost(group, shapes);
                }
                shapes[i] = step;
            }
        }
        cost(group, shapes)
    };
    let shared = |reserve: usize| -> Vec<S> {
        let mut shapes = all_full.clone();
        let room = (budget + 1).checked_sub(cost(&first, &shapes) + reserve);
        let Some(mut left) = room else {
            for &i in sources.iter().flatten() {
                shapes[i] = S::Out;
            }
            return shapes;
        };
        let demands: Vec<usize> = sources.iter().map(|g| cost(g, &shapes)).collect();
        let mut order: Vec<usize> = (0..sources.len()).collect();
        order.sort_by_key(|&k| (demands[k], k));
        let mut over = Vec::new();
        for (n, &k) in order.iter().enumerate() {
            if over.is_empty() && demands[k] * (order.len() - n) <= left {
                left -= demands[k];
            } else {
                over.push(k);
            }
        }
        over.sort();
        for (n, &k) in over.iter().enumerate().rev() {
            left -= fit(&mut shapes, &sources[k], left / (n + 1));
        }
        shapes
    };
    let mut shapes = shared(0);
    if shapes.contains(&S::Out) {
        let sourced: usize = sources.iter().map(Vec::len).sum();
        shapes = shared(notice.text(sourced).len() + 1);
    }
    if fits(&shapes) {
        return render(&shapes);
    }
    // The pinned skills, the last pinned first, once every source is out.
    for &i in sources.iter().flatten() {
        shapes[i] = S::Out;
    }
    for cap in (MIN_SHORTENED_LENGTH..max_len).rev() {
        let mut trial = shapes.clone();
        for &i in &first {
            trial[i] = S::Cap(cap);
        }
        if fits(&trial) {
            return render(&trial);
        }
    }
    if MIN_SHORTENED_LENGTH < max_len {
        for &i in &first {
            shapes[i] = S::Cap(MIN_SHORTENED_LENGTH);
        }
    }
    let mut named = shapes.clone();
    for &i in &first {
        named[i] = S::Name;
    }
    let ladder: &[S] = if tool.is_none() || fits(&named) {
        &[S::Name, S::Out]
    } else {
        &[S::Out]
    };
    for &step in ladder {
        for &i in first.iter().rev() {
            shapes[i] = step;
            if fits(&shapes) {
                return render(&shapes);
            }
        }
    }
    render(&shapes)
}
