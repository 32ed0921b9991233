//! Worst-case skill files at the 1 MiB size cap: time and extra memory of
//! `frontmatter::parse` for each hostile shape we know how to build.
//!
//! `cargo bench -p skill-core --bench frontmatter_worst` prints one row per
//! case: the median and the slowest wall time over a few runs, the peak heap
//! allocated during one parse (a counting allocator), and the outcome. Pass `--corpus DIR` to
//! time every file of a directory instead (for example a fuzzing corpus) and
//! print the slowest ones.

use skill_core::frontmatter;
use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Counts live heap bytes and their peak.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if !p.is_null() {
            if new_size >= layout.size() {
                let live = LIVE.fetch_add(new_size - layout.size(), Ordering::Relaxed) + new_size
                    - layout.size();
                PEAK.fetch_max(live, Ordering::Relaxed);
            } else {
                LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        p
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const CAP: usize = 1024 * 1024;

fn file(yaml: &str) -> String {
    format!("---\n{yaml}\n---\nbody\n")
}

/// Repeat `unit` until `prefix + units + suffix` fills the size cap.
fn fill(prefix: &str, unit: &str, sep: &str, suffix: &str) -> String {
    let budget = CAP - 64 - prefix.len() - suffix.len();
    let n = budget / (unit.len() + sep.len());
    let mut s = String::with_capacity(CAP);
    s.push_str(prefix);
    for i in 0..n {
        if i > 0 {
            s.push_str(sep);
        }
        s.push_str(unit);
    }
    s.push_str(suffix);
    s
}

fn cases() -> Vec<(&'static str, String)> {
    let head = "name: worst-case\ndescription: d\n";
    let mut cases = Vec::new();
    // The reported attack: an anchor list aliased through two levels.
    let mut laughs = format!("{head}a: &a [{}]\n", vec!["x"; 1000].join(", "));
    laughs.push_str(&format!("b: &b [{}]\n", vec!["*a"; 100].join(", ")));
    laughs.push_str(&format!("c: [{}]\n", vec!["*b"; 100].join(", ")));
    cases.push(("aliases of aliases (2.6 KB)", file(&laughs)));
    // Ten levels of ten aliases each, in metadata.
    let mut deep_laughs = format!("{head}metadata:\n  l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..10 {
        deep_laughs.push_str(&format!(
            "  l{i}: &l{i} [{}]\n",
            vec![format!("*l{}", i - 1); 10].join(", ")
        ));
    }
    cases.push(("10 levels x 10 aliases", file(&deep_laughs)));
    // One big anchor aliased as often as the JS limit allows.
    let big = fill(&format!("{head}a: &a ["), "x", ", ", "]\n");
    let mut big_alias = big.clone();
    big_alias.truncate(CAP / 2);
    big_alias.push_str("]\nm: [");
    big_alias.push_str(&vec!["*a"; 99].join(", "));
    big_alias.push(']');
    cases.push(("1 anchor of 250k items x 99 aliases", file(&big_alias)));
    // Nested anchors, each aliased once (the alias-count walk).
    let mut nested = format!("{head}n: ");
    for i in 0..120 {
        nested.push_str(&format!("&n{i} ["));
    }
    nested.push_str(&vec!["x"; 800].join(", "));
    nested.push_str(&"]".repeat(120));
    nested.push_str("\nm: [");
    nested.push_str(
        &(0..120)
            .map(|i| format!("*n{i}"))
            .collect::<Vec<_>>()
            .join(", "),
    );
    nested.push(']');
    cases.push(("120 nested anchors, each aliased", file(&nested)));
    cases.push((
        "long flow sequence [x, x, ...]",
        file(&fill(&format!("{head}k: ["), "x", ",", "]")),
    ));
    cases.push((
        "flow mapping of empty keys {a, a1, ...}",
        file(&fill(&format!("{head}k: {{"), "k", ",", "}")),
    ));
    cases.push((
        "block sequence of nulls",
        file(&fill(&format!("{head}k:\n"), "-", "\n", "")),
    ));
    cases.push((
        "deep flow nesting [[[...",
        file(&fill(&format!("{head}k: "), "[", "", "")),
    ));
    cases.push((
        "brackets in a quoted scalar",
        file(&fill(&format!("{head}whenToUse: \""), "[", "", "\"")),
    ));
    let mut block_deep = head.to_string();
    let mut depth = 0;
    while block_deep.len() < CAP - 4096 && depth < 1400 {
        block_deep.push_str(&" ".repeat(depth));
        block_deep.push_str("k:\n");
        depth += 1;
    }
    cases.push(("deep block nesting", file(&block_deep)));
    cases.push((
        "huge complex key",
        file(&fill(&format!("{head}? \""), "k", "", "\"\n: v")),
    ));
    cases.push(("huge implicit key", file(&fill(head, "k", "", ": v"))));
    cases.push(("many small keys", file(&fill(head, "k: v", "\n", ""))));
    let mut unique_keys = head.to_string();
    let mut i = 0;
    while unique_keys.len() < CAP - 64 {
        unique_keys.push_str(&format!("k{i}: {i}\n"));
        i += 1;
    }
    cases.push((
        "many unique keys (past the node budget)",
        file(&unique_keys),
    ));
    let mut under_budget = head.to_string();
    for i in 0..9_900 {
        under_budget.push_str(&format!("key-{i:05}: value number {i}\n"));
    }
    cases.push((
        "9,900 unique keys (within the node budget)",
        file(&under_budget),
    ));
    cases.push((
        "double-quoted scalar of escapes",
        file(&fill(
            "name: worst-case\ndescription: \"",
            "\\u00e9\\x41\\t",
            "",
            "\"",
        )),
    ));
    cases.push((
        "multi-line plain scalar",
        file(&fill(
            "name: worst-case\ndescription: a\n",
            "  word word word",
            "\n",
            "",
        )),
    ));
    cases.push((
        "literal block scalar",
        file(&fill(
            "name: worst-case\ndescription: |\n",
            "  line of text",
            "\n",
            "",
        )),
    ));
    cases.push(("comment lines", file(&fill(head, "# comment", "\n", ""))));
    cases.push((
        "one long line, no newline",
        file(&fill("name: worst-case\ndescription: ", "word ", "", "")),
    ));
    cases.push((
        "many anchors and aliases",
        file(&fill(&format!("{head}k: [&a x"), ", &a x, *a", "", "]")),
    ));
    cases.push((
        "duplicate key at the end of a big mapping",
        file(&format!("{under_budget}key-00000: again")),
    ));
    // A flow collection where a key could start: the scanner's lookahead for
    // that key (bounded at 1024 characters, crates/saphyr-parser/PATCHES.md).
    cases.push((
        "nested flow sequence x: [[a, a, ...]]",
        file(&fill(&format!("{head}x: [["), "a", ",", "]]")),
    ));
    cases.push((
        "nested flow, a tag on each item [[!t a, ...]]",
        file(&fill(&format!("{head}x: [["), "!t a", ",", "]]")),
    ));
    cases.push((
        "flow sequence as a block entry - [a, ...]",
        file(&fill(&format!("{head}x:\n- ["), "a", ",", "]")),
    ));
    cases.push((
        "flow sequence at the top [a, ...]",
        file(&fill("[", "a", ",", "]")),
    ));
    cases.push((
        "flow sequence as a flow mapping key {[a, ...]: v}",
        file(&fill(&format!("{head}x: {{["), "a", ",", "]: v}")),
    ));
    cases.push((
        "deep flow sequences, each a key [[[...]: v]: v]",
        file(&fill(&format!("{head}x: "), "[", "", "")),
    ));
    // Long runs the scanner walks without producing events.
    let mut tags = String::new();
    let mut i = 0;
    while tags.len() < CAP - 128 {
        tags.push_str(&format!("%TAG !t{i}! tag:example.com,2000:\n"));
        i += 1;
    }
    tags.push_str("--- \nname: worst-case\ndescription: d");
    cases.push(("30,000 %TAG directives", file(&tags)));
    cases.push(("blank lines", file(&fill(head, "", "\n", ""))));
    cases.push((
        "blank lines after a multi-line plain scalar",
        file(&fill(
            "name: worst-case\ndescription: a\n  b",
            "",
            "\n",
            "\n  c",
        )),
    ));
    cases.push((
        "lines of spaces",
        file(&fill(head, "                ", "\n", "")),
    ));
    cases.push((
        "keep-chomping block scalar of blank lines |+",
        file(&fill(
            "name: worst-case\ndescription: |+\n  text",
            "",
            "\n",
            "",
        )),
    ));
    cases.push((
        "literal block scalar of blank lines, then text",
        file(&fill(
            "name: worst-case\ndescription: |\n  text",
            "",
            "\n",
            "\n  end",
        )),
    ));
    cases.push((
        "NUL characters in a comment",
        file(&fill(&format!("{head}# "), "\0", "", "")),
    ));
    cases
}

fn measure(text: &str) -> (Duration, Duration, usize, String) {
    let mut times = Vec::new();
    let mut outcome = String::new();
    let mut peak = 0;
    for _ in 0..5 {
        let base = LIVE.load(Ordering::Relaxed);
        PEAK.store(base, Ordering::Relaxed);
        let started = Instant::now();
        let result = black_box(frontmatter::parse(black_box(text)));
        times.push(started.elapsed());
        peak = peak.max(PEAK.load(Ordering::Relaxed) - base);
        outcome = match &result {
            Ok(p) => format!("ok ({})", p.name),
            Err(e) => {
                let s = e.to_string();
                s.chars().take(70).collect()
            }
        };
        drop(result);
    }
    times.sort();
    (
        times[times.len() / 2],
        times[times.len() - 1],
        peak,
        outcome,
    )
}

fn corpus(dir: &str) {
    let mut rows = Vec::new();
    for entry in std::fs::read_dir(dir).expect("corpus directory") {
        let path = entry.expect("entry").path();
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let Ok(text) = String::from_utf8(bytes) else {
            continue;
        };
        for input in [text.clone(), format!("---\n{text}\n---\nbody")] {
            let started = Instant::now();
            let _ = black_box(frontmatter::parse(black_box(&input)));
            rows.push((started.elapsed(), input.len(), path.display().to_string()));
        }
    }
    rows.sort_by_key(|r| std::cmp::Reverse(r.0));
    println!("{} inputs; slowest:", rows.len());
    for (time, len, path) in rows.iter().take(5) {
        println!("{:>10.3?} {:>9} B  {path}", time, len);
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--corpus") {
        corpus(args.get(i + 1).map_or(".", String::as_str));
        return;
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "load average: {}",
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    println!(
        "{:<50} {:>9} {:>10} {:>10} {:>10}  outcome",
        "case", "size", "median", "slowest", "peak heap"
    );
    let mut worst = (Duration::ZERO, 0usize);
    for (name, text) in cases() {
        let (median, slowest, peak, outcome) = measure(&text);
        worst = (worst.0.max(slowest), worst.1.max(peak));
        println!(
            "{name:<50} {:>7}KB {:>10.2?} {:>10.2?} {:>8.1}MB  {outcome}",
            text.len() / 1024,
            median,
            slowest,
            peak as f64 / 1e6
        );
    }
    println!(
        "slowest parse of any case: {:.2?}; largest peak heap: {:.1} MB",
        worst.0,
        worst.1 as f64 / 1e6
    );
}
