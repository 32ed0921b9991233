//! A generator of frontmatter (everyday shapes, then noise and mutations)
//! for the tests that compare readers on many inputs.

pub(crate) use crate::test_rng::Rng;

const KEYS: &[&str] = &[
    "name",
    "description",
    "whenToUse",
    "metadata",
    "disable-model-invocation",
    "user-invocable",
    "owner",
    "b_c",
    "x.y",
    "1",
    "01",
    "true",
    "null",
    "k-1",
    "version",
];
const WORDS: &[&str] = &[
    "my-skill",
    "Does things",
    "yes",
    "no",
    "true",
    "False",
    "1",
    "0",
    "1.5",
    "0x1F",
    "0o17",
    "-3",
    ".inf",
    "-.Inf",
    ".nan",
    "~",
    "null",
    "",
    "a b  c",
    "C#",
    "a #b",
    "http://x.y/z",
    "é ü 字",
    "a:b",
    "-a",
    "+1",
    "1e3",
    "12345678901234567890",
    ".",
    "1.",
    "[x]",
    "a,b",
    "{a}",
    "x]",
    "'q'",
    "\"d\"",
    "it's",
    "a \\n b",
    "2001-12-14",
    "- a",
    "? x",
    ": y",
    "a: b",
    "%x",
    "@x",
    "`x`",
    "!x",
    "&a",
    "*a",
    "|",
    ">",
    "#c",
    "007",
    "0.0",
    "-0",
    "1_000",
    "😀",
];

/// Plain words of everyday frontmatter; [`WORDS`] adds the tricky ones.
const EVERYDAY: &[&str] = &[
    "my-skill",
    "Does things",
    "Review code before merging",
    "team",
    "3",
    "1.5",
    "true",
    "false",
    "yes",
    "é ü 字",
    "C#",
    "http://x.y/z",
    "a-b",
    "null",
    "v1.2.3",
    "It works",
];

fn gen_word(rng: &mut Rng) -> &'static str {
    if rng.chance(30) {
        rng.pick::<&str>(WORDS)
    } else {
        rng.pick::<&str>(EVERYDAY)
    }
}

/// `n` distinct keys, sometimes with a repeat.
fn gen_keys(rng: &mut Rng, n: usize) -> Vec<&'static str> {
    let mut keys: Vec<&str> = Vec::new();
    while keys.len() < n {
        let k = *rng.pick(KEYS);
        if !keys.contains(&k) || rng.chance(3) {
            keys.push(k);
        }
    }
    keys
}

fn gen_inline(rng: &mut Rng) -> String {
    let w = gen_word(rng);
    match rng.below(6) {
        0 => format!("'{}'", w.replace('\'', "''")),
        1 => {
            let escaped = w.replace('\\', "\\\\").replace('"', "\\\"");
            let extra = *rng.pick(&[
                "", "\\n", "\\t", "\\u00e9", "\\x41", "\\\"", "\\/", "\\ ", "\\N", "\\ud83d",
            ]);
            format!("\"{escaped}{extra}\"")
        }
        _ => w.to_string(),
    }
}

fn gen_value(rng: &mut Rng, top: bool, eol: &str) -> String {
    let comment = if rng.chance(10) { " # note" } else { "" };
    let gap = *rng.pick(&[" ", " ", "  "]);
    match rng.below(if top { 9 } else { 6 }) {
        0..=2 => format!("{gap}{}{comment}{eol}", gen_inline(rng)),
        3 => {
            let n = rng.below(4);
            let items: Vec<String> = (0..n).map(|_| gen_inline(rng)).collect();
            format!(
                "{gap}[{}]{comment}{eol}",
                items.join(*rng.pick(&[", ", ",", " , "]))
            )
        }
        4 => format!("{comment}{eol}"),
        5 if top => {
            let header = *rng.pick(&["|", "|-", "|+", ">", ">-", ">+", "|2", "> "]);
            let ind = " ".repeat(1 + rng.below(3));
            let mut s = format!("{gap}{header}{eol}");
            if rng.chance(20) {
                s.push_str(eol);
            }
            for _ in 0..1 + rng.below(4) {
                let line_ind = if rng.chance(10) {
                    format!("{ind}  ")
                } else {
                    ind.clone()
                };
                s.push_str(&format!("{line_ind}{}{eol}", gen_word(rng)));
                if rng.chance(20) {
                    s.push_str(eol);
                }
            }
            s
        }
        _ if top => {
            let ind = " ".repeat(1 + rng.below(3));
            let mut s = format!("{comment}{eol}");
            if rng.chance(50) {
                for _ in 0..1 + rng.below(4) {
                    s.push_str(&format!("{ind}-{}", gen_value(rng, false, eol)));
                }
            } else {
                let n = 1 + rng.below(4);
                for key in gen_keys(rng, n) {
                    s.push_str(&format!("{ind}{key}:{}", gen_value(rng, false, eol)));
                }
            }
            s
        }
        _ => format!("{gap}{}{eol}", gen_inline(rng)),
    }
}

/// A frontmatter of the common shape, with random values and layout.
pub(crate) fn gen_frontmatter(rng: &mut Rng) -> String {
    let eol = if rng.chance(10) { "\r\n" } else { "\n" };
    let mut s = String::new();
    let n = 1 + rng.below(7);
    for key in gen_keys(rng, n) {
        if rng.chance(5) {
            s.push_str(&format!("# comment{eol}"));
        }
        if rng.chance(5) {
            s.push_str(eol);
        }
        s.push_str(key);
        s.push(':');
        s.push_str(&gen_value(rng, true, eol));
    }
    s
}

const NOISE: &[&str] = &[
    " ", "  ", "\t", "\n", "\r", ":", "-", "#", "'", "\"", "|", ">", "[", "]", "{", "}", ",", "&a",
    "*a", "!!str ", "%", "@", "`", "\\", "?", "\u{85}", "\u{2028}", "\u{feff}", "---", "...", "a",
];

/// Apply a few random edits (insert noise, delete, duplicate a line).
pub(crate) fn mutate(rng: &mut Rng, text: &str) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for _ in 0..1 + rng.below(3) {
        let at = rng.below(chars.len() + 1);
        match rng.below(3) {
            0 => {
                let noise: Vec<char> = rng.pick(NOISE).chars().collect();
                chars.splice(at..at, noise);
            }
            1 if at < chars.len() => {
                chars.remove(at);
            }
            _ => {
                let s: String = chars.iter().collect();
                let lines: Vec<&str> = s.split_inclusive('\n').collect();
                if !lines.is_empty() {
                    let i = rng.below(lines.len());
                    let mut out: Vec<&str> = lines.clone();
                    out.insert(i, lines[i]);
                    chars = out.concat().chars().collect();
                }
            }
        }
    }
    chars.into_iter().collect()
}
