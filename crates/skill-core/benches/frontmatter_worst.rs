//! Worst-case skill files at the 1 MiB size cap: time and extra memory of
//! `frontmatter::parse` for each hostile shape we know how to build.
//!
//! `cargo bench -p skill-core --bench frontmatter_worst` prints one row per
//! case: the median and the slowest wall time over a few runs, the peak heap
//! allocated during one parse (a counting allocator), and the outcome. Pass `--corpus DIR` to
//! time every file of a directory instead (for example a fuzzing corpus) and
//! print the slowest ones, `--case TEXT` to run only the cases whose name
//! holds TEXT (exactly TEXT, when it is a case's name), `--runs N` for the
//! parses per case (5), `--list` for the names. Instruction counts,
//! repeatable on a loaded machine: `scripts/frontmatter-instructions.sh` runs
//! each case under `valgrind --tool=callgrind` with `--runs 1` and `--runs 0`
//! and prints the difference (one parse).

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

type Case = (&'static str, String);

/// Push the case `name` built by `build`, if `keep` wants it (inputs of
/// other cases are not built).
fn add(
    cases: &mut Vec<Case>,
    keep: &dyn Fn(&'static str) -> bool,
    name: &'static str,
    build: impl FnOnce() -> String,
) {
    if keep(name) {
        cases.push((name, build()));
    }
}

/// Every case's name (no input is built).
fn case_names() -> Vec<&'static str> {
    let names = std::cell::RefCell::new(Vec::new());
    cases(&|name| {
        names.borrow_mut().push(name);
        false
    });
    names.into_inner()
}

fn cases(keep: &dyn Fn(&'static str) -> bool) -> Vec<Case> {
    let head = "name: worst-case\ndescription: d\n";
    let mut cases = Vec::new();
    // The reported attack: an anchor list aliased through two levels.
    let mut laughs = format!("{head}a: &a [{}]\n", vec!["x"; 1000].join(", "));
    laughs.push_str(&format!("b: &b [{}]\n", vec!["*a"; 100].join(", ")));
    laughs.push_str(&format!("c: [{}]\n", vec!["*b"; 100].join(", ")));
    add(&mut cases, keep, "aliases of aliases (2.6 KB)", || {
        file(&laughs)
    });
    // Ten levels of ten aliases each, in metadata.
    let mut deep_laughs = format!("{head}metadata:\n  l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..10 {
        deep_laughs.push_str(&format!(
            "  l{i}: &l{i} [{}]\n",
            vec![format!("*l{}", i - 1); 10].join(", ")
        ));
    }
    add(&mut cases, keep, "10 levels x 10 aliases", || {
        file(&deep_laughs)
    });
    // One big anchor aliased as often as the JS limit allows.
    let big = fill(&format!("{head}a: &a ["), "x", ", ", "]\n");
    let mut big_alias = big.clone();
    big_alias.truncate(CAP / 2);
    big_alias.push_str("]\nm: [");
    big_alias.push_str(&vec!["*a"; 99].join(", "));
    big_alias.push(']');
    add(
        &mut cases,
        keep,
        "1 anchor of 250k items x 99 aliases",
        || file(&big_alias),
    );
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
    add(&mut cases, keep, "120 nested anchors, each aliased", || {
        file(&nested)
    });
    add(&mut cases, keep, "long flow sequence [x, x, ...]", || {
        file(&fill(&format!("{head}k: ["), "x", ",", "]"))
    });
    add(
        &mut cases,
        keep,
        "flow mapping of empty keys {a, a1, ...}",
        || file(&fill(&format!("{head}k: {{"), "k", ",", "}")),
    );
    add(&mut cases, keep, "block sequence of nulls", || {
        file(&fill(&format!("{head}k:\n"), "-", "\n", ""))
    });
    add(&mut cases, keep, "deep flow nesting [[[...", || {
        file(&fill(&format!("{head}k: "), "[", "", ""))
    });
    add(&mut cases, keep, "brackets in a quoted scalar", || {
        file(&fill(&format!("{head}whenToUse: \""), "[", "", "\""))
    });
    let mut block_deep = head.to_string();
    let mut depth = 0;
    while block_deep.len() < CAP - 4096 && depth < 1400 {
        block_deep.push_str(&" ".repeat(depth));
        block_deep.push_str("k:\n");
        depth += 1;
    }
    add(&mut cases, keep, "deep block nesting", || file(&block_deep));
    add(&mut cases, keep, "huge complex key", || {
        file(&fill(&format!("{head}? \""), "k", "", "\"\n: v"))
    });
    add(&mut cases, keep, "huge implicit key", || {
        file(&fill(head, "k", "", ": v"))
    });
    add(&mut cases, keep, "many small keys", || {
        file(&fill(head, "k: v", "\n", ""))
    });
    let mut unique_keys = head.to_string();
    let mut i = 0;
    while unique_keys.len() < CAP - 64 {
        unique_keys.push_str(&format!("k{i}: {i}\n"));
        i += 1;
    }
    add(
        &mut cases,
        keep,
        "many unique keys (past the node budget)",
        || file(&unique_keys),
    );
    let mut under_budget = head.to_string();
    for i in 0..9_900 {
        under_budget.push_str(&format!("key-{i:05}: value number {i}\n"));
    }
    add(
        &mut cases,
        keep,
        "9,900 unique keys (within the node budget)",
        || file(&under_budget),
    );
    add(&mut cases, keep, "double-quoted scalar of escapes", || {
        file(&fill(
            "name: worst-case\ndescription: \"",
            "\\u00e9\\x41\\t",
            "",
            "\"",
        ))
    });
    add(&mut cases, keep, "multi-line plain scalar", || {
        file(&fill(
            "name: worst-case\ndescription: a\n",
            "  word word word",
            "\n",
            "",
        ))
    });
    add(&mut cases, keep, "literal block scalar", || {
        file(&fill(
            "name: worst-case\ndescription: |\n",
            "  line of text",
            "\n",
            "",
        ))
    });
    add(&mut cases, keep, "comment lines", || {
        file(&fill(head, "# comment", "\n", ""))
    });
    add(&mut cases, keep, "one long line, no newline", || {
        file(&fill("name: worst-case\ndescription: ", "word ", "", ""))
    });
    add(&mut cases, keep, "many anchors and aliases", || {
        file(&fill(&format!("{head}k: [&a x"), ", &a x, *a", "", "]"))
    });
    add(
        &mut cases,
        keep,
        "duplicate key at the end of a big mapping",
        || file(&format!("{under_budget}key-00000: again")),
    );
    // A flow collection where a key could start: the scanner's lookahead for
    // that key (bounded at 1024 characters, crates/saphyr-parser/PATCHES.md).
    add(
        &mut cases,
        keep,
        "nested flow sequence x: [[a, a, ...]]",
        || file(&fill(&format!("{head}x: [["), "a", ",", "]]")),
    );
    add(
        &mut cases,
        keep,
        "nested flow, a tag on each item [[!t a, ...]]",
        || file(&fill(&format!("{head}x: [["), "!t a", ",", "]]")),
    );
    add(
        &mut cases,
        keep,
        "flow sequence as a block entry - [a, ...]",
        || file(&fill(&format!("{head}x:\n- ["), "a", ",", "]")),
    );
    add(
        &mut cases,
        keep,
        "flow sequence at the top [a, ...]",
        || file(&fill("[", "a", ",", "]")),
    );
    add(
        &mut cases,
        keep,
        "flow sequence as a flow mapping key {[a, ...]: v}",
        || file(&fill(&format!("{head}x: {{["), "a", ",", "]: v}")),
    );
    add(
        &mut cases,
        keep,
        "deep flow sequences, each a key [[[...]: v]: v]",
        || file(&fill(&format!("{head}x: "), "[", "", "")),
    );
    // Long runs the scanner walks without producing events.
    let mut tags = String::new();
    let mut i = 0;
    while tags.len() < CAP - 128 {
        tags.push_str(&format!("%TAG !t{i}! tag:example.com,2000:\n"));
        i += 1;
    }
    tags.push_str("--- \nname: worst-case\ndescription: d");
    add(&mut cases, keep, "30,000 %TAG directives", || file(&tags));
    add(&mut cases, keep, "blank lines", || {
        file(&fill(head, "", "\n", ""))
    });
    add(
        &mut cases,
        keep,
        "blank lines after a multi-line plain scalar",
        || {
            file(&fill(
                "name: worst-case\ndescription: a\n  b",
                "",
                "\n",
                "\n  c",
            ))
        },
    );
    add(&mut cases, keep, "lines of spaces", || {
        file(&fill(head, "                ", "\n", ""))
    });
    add(
        &mut cases,
        keep,
        "keep-chomping block scalar of blank lines |+",
        || {
            file(&fill(
                "name: worst-case\ndescription: |+\n  text",
                "",
                "\n",
                "",
            ))
        },
    );
    add(
        &mut cases,
        keep,
        "literal block scalar of blank lines, then text",
        || {
            file(&fill(
                "name: worst-case\ndescription: |\n  text",
                "",
                "\n",
                "\n  end",
            ))
        },
    );
    add(&mut cases, keep, "NUL characters in a comment", || {
        file(&fill(&format!("{head}# "), "\0", "", ""))
    });
    // Scalars that hold many line breaks: every style the scanner folds.
    add(
        &mut cases,
        keep,
        "folded block scalar of blank lines >",
        || {
            file(&fill(
                "name: worst-case\ndescription: >\n  text",
                "",
                "\n",
                "",
            ))
        },
    );
    add(
        &mut cases,
        keep,
        "folded block scalar of blank lines, then text",
        || {
            file(&fill(
                "name: worst-case\ndescription: >\n  text",
                "",
                "\n",
                "\n  end",
            ))
        },
    );
    add(
        &mut cases,
        keep,
        "keep-chomping folded scalar of blank lines >+",
        || {
            file(&fill(
                "name: worst-case\ndescription: >+\n  text",
                "",
                "\n",
                "",
            ))
        },
    );
    add(
        &mut cases,
        keep,
        "folded scalar, text and blank lines alternating",
        || {
            file(&fill(
                "name: worst-case\ndescription: >\n",
                "  a",
                "\n\n",
                "",
            ))
        },
    );
    add(
        &mut cases,
        keep,
        "folded scalar, more-indented lines alternating",
        || {
            file(&fill(
                "name: worst-case\ndescription: >\n",
                "  a\n   b",
                "\n",
                "",
            ))
        },
    );
    add(&mut cases, keep, "block scalar of lines of spaces", || {
        file(&fill(
            "name: worst-case\ndescription: >\n  text",
            "  ",
            "\n",
            "\n  end",
        ))
    });
    add(&mut cases, keep, "block scalar of CRLF blank lines", || {
        file(&fill(
            "name: worst-case\r\ndescription: >\r\n  text",
            "",
            "\r\n",
            "\r\n  end",
        ))
    });
    add(
        &mut cases,
        keep,
        "double-quoted scalar of blank lines",
        || {
            file(&fill(
                "name: worst-case\ndescription: \"a",
                "",
                "\n",
                "  b\"",
            ))
        },
    );
    add(
        &mut cases,
        keep,
        "single-quoted scalar of blank lines",
        || file(&fill("name: worst-case\ndescription: 'a", "", "\n", "  b'")),
    );
    add(
        &mut cases,
        keep,
        "double-quoted scalar of escaped line breaks",
        || {
            file(&fill(
                "name: worst-case\ndescription: \"a",
                "  \\",
                "\n",
                "  b\"",
            ))
        },
    );
    add(
        &mut cases,
        keep,
        "plain scalar in a flow sequence, blank lines",
        || file(&fill(&format!("{head}x: [a"), "", "\n", " b]")),
    );
    add(&mut cases, keep, "blank lines in a flow sequence", || {
        file(&fill(&format!("{head}x: [a,"), "", "\n", " b]"))
    });
    // Masking: lone carriage returns, separators put in beside them, and
    // the second reading when one of them lies inside a scalar.
    add(
        &mut cases,
        keep,
        "lone carriage returns in a plain scalar",
        || file(&fill("name: worst-case\ndescription: a", "\r", "", "")),
    );
    add(
        &mut cases,
        keep,
        "lone carriage returns after colons, one quoted at the end",
        || file(&fill(head, "k:\r v", "\n", "\nq: \"k:\r\"")),
    );
    add(
        &mut cases,
        keep,
        "tabs after colons, one quoted at the end",
        || file(&fill(head, "k:\tv", "\n", "\nq: \"k:\tv\"")),
    );
    cases
}

fn measure(text: &str, runs: usize) -> (Duration, Duration, usize, String) {
    let mut times = vec![Duration::ZERO];
    let mut outcome = String::new();
    let mut peak = 0;
    for _ in 0..runs {
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
    if runs > 0 {
        times.remove(0);
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
    if args.iter().any(|a| a == "--list") {
        for name in case_names() {
            println!("{name}");
        }
        return;
    }
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
    // `--case TEXT`: only the cases whose name holds TEXT (for callgrind).
    let only = args
        .iter()
        .position(|a| a == "--case")
        .and_then(|i| args.get(i + 1));
    // `--runs N` parses per case (default 5). With `--runs 0` only the
    // inputs are built: a callgrind count of `--runs 1` minus one of
    // `--runs 0` is the instructions of one parse.
    let runs = args
        .iter()
        .position(|a| a == "--runs")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(5);
    let mut worst = (Duration::ZERO, 0usize);
    // A name that is exactly some case's runs that case alone.
    let names: Vec<&str> = case_names();
    let exact = only.is_some_and(|only| names.contains(&only.as_str()));
    let keep = |name: &str| match only {
        None => true,
        Some(only) if exact => name == only,
        Some(only) => name.contains(only.as_str()),
    };
    for (name, text) in cases(&keep) {
        let (median, slowest, peak, outcome) = measure(&text, runs);
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
