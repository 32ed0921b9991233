//! `/name` gestures: how a user invokes a skill by name in a message.
//!
//! A gesture is a token `/name` that starts the text or follows whitespace,
//! and is followed by whitespace or the end of the text; `name` is a kebab-case
//! skill name ([`is_skill_name`]). Whitespace is what JS `\s` matches
//! ([`is_js_whitespace`]). So paths (`a/b`, `/usr/bin`), fractions (`1/2`),
//! `//name`, `/Name` and a name with punctuation glued on (`/name.`,
//! `(/name)`) are prose. Whether a gesture names a skill the user may invoke is
//! for the caller to decide.

use std::collections::{HashMap, HashSet};
use std::hash::BuildHasher;

use super::is_js_whitespace;
use crate::model::{is_skill_name, MAX_SKILL_NAME_LEN};

/// Past this many distinct names [`scan_gestures`] stops growing its hash set
/// and partitions the gestures instead (see [`Partitioned`]): a set of 64K
/// names (about 1 MiB) stays in the L2 cache, a set of a million does not, and
/// its inserts then cost a cache and TLB miss each.
const PARTITION_PAST: usize = 1 << 16;

/// The gestures a partition bucket holds, about: a bucket's entries (16 bytes
/// each) and its probe table (4 bytes a slot, at most half full) stay in the
/// L1/L2 cache while the bucket's repeats are found.
const BUCKET_SIZE: usize = 2048;

/// The names of the `/name` gestures of `text`, first occurrence order, each
/// name once. Linear in the length of the text: the scan jumps from `/` to `/`
/// (`memchr`), reads a name's bytes in place, and finds repeats with a hash
/// set, so a pasted text of a million distinct gestures costs time in
/// proportion to its length, not to the square of its names. Past 64K
/// distinct names the repeats are found bucket by bucket instead (the
/// gestures partitioned by hash into buckets that fit the cache), which keeps
/// the cost per gesture flat however many distinct names there are.
/// [`scan_gestures_by_tokens`] is the rule written plainly; the two
/// agree on every text (tests and the `gesture` fuzz target).
pub fn scan_gestures(text: &str) -> Vec<&str> {
    scan_gestures_tuned(text, PARTITION_PAST, BUCKET_SIZE)
}

/// [`scan_gestures`] with its names joined by single spaces (skill names hold
/// none), built in one string of the exact size: what the Node binding hands
/// to JS.
pub fn scan_gestures_joined(text: &str) -> String {
    match scan(text, PARTITION_PAST, BUCKET_SIZE) {
        Scan::Few(names) => names.join(" "),
        Scan::Many(found) => {
            let mut joined = String::with_capacity(found.joined_len());
            for name in found.names() {
                if !joined.is_empty() {
                    joined.push(' ');
                }
                joined.push_str(name);
            }
            joined
        }
    }
}

/// [`scan_gestures`] with its two sizes given: past `partition_past` distinct
/// names the scan partitions, into buckets of about `bucket_size` gestures.
/// For tests, benches and the fuzz target (small sizes reach the partitioned
/// path with small texts); the answer is the same for any sizes.
#[doc(hidden)]
pub fn scan_gestures_tuned(text: &str, partition_past: usize, bucket_size: usize) -> Vec<&str> {
    match scan(text, partition_past, bucket_size) {
        Scan::Few(names) => names,
        Scan::Many(found) => {
            let mut names = Vec::with_capacity(found.count);
            names.extend(found.names());
            names
        }
    }
}

/// A scan's answer: the names themselves (few), or where to find them (many).
enum Scan<'t> {
    Few(Vec<&'t str>),
    Many(Partitioned<'t>),
}

fn scan(text: &str, partition_past: usize, bucket_size: usize) -> Scan<'_> {
    // Offsets and counts are u32 in the partitioned path.
    let partition_past = if u32::try_from(text.len()).is_ok() {
        partition_past.max(1)
    } else {
        usize::MAX
    };
    let mut names: Vec<&str> = Vec::new();
    // Sized for the gestures the text can hold (one per `/`), up to a bound a
    // text of slashes alone cannot inflate; past it the set grows as usual.
    let slashes = memchr::memchr_iter(b'/', text.as_bytes()).count();
    let mut seen: HashSet<&str, foldhash::fast::RandomState> = HashSet::with_capacity_and_hasher(
        slashes.min(partition_past.saturating_add(1)).min(1 << 16),
        Default::default(),
    );
    let mut rest = gestures(text);
    for name in rest.by_ref() {
        if seen.insert(name) {
            names.push(name);
            if names.len() > partition_past {
                drop(seen);
                return Scan::Many(Partitioned::new(text, names, rest, slashes, bucket_size));
            }
        }
    }
    Scan::Few(names)
}

/// One gesture of a text: where its name starts and how long it is.
#[derive(Clone, Copy)]
struct Span {
    start: u32,
    len: u32,
}

/// One gesture in its partition bucket: the low half of its name's hash (the
/// high bits chose the bucket), where it is in the text's gestures, and its
/// span (so comparing two names reads the text alone).
#[derive(Clone, Copy, Default)]
struct Entry {
    hash: u32,
    at: u32,
    start: u32,
    len: u32,
}

/// The first occurrences among a text's many gestures, found bucket by
/// bucket. The gestures are collected in text order with their hash, then
/// partitioned (stably, by the hash's high bits) into buckets small enough to
/// stay in the cache; each bucket's repeats are found with a small probe
/// table, reused, and its first occurrences marked in a bitmap over the
/// gestures. The names are then read in text order off the bitmap: no
/// hash set of a million entries and no sort.
struct Partitioned<'t> {
    text: &'t str,
    spans: Vec<Span>,
    first: Vec<u64>,
    /// How many names, and their bytes.
    count: usize,
    bytes: usize,
}

/// The most hash bits a partition uses (4,096 buckets).
const MAX_BITS: u32 = 12;

impl<'t> Partitioned<'t> {
    /// `found`: the distinct names of the text's first gestures, in order;
    /// `rest`: the text's gestures after them. Each name of `found` stands for
    /// all its occurrences there, so the answer is that of the whole text.
    fn new(
        text: &'t str,
        found: Vec<&'t str>,
        rest: impl Iterator<Item = &'t str>,
        slashes: usize,
        bucket_size: usize,
    ) -> Self {
        let hasher = foldhash::fast::RandomState::default();
        let base = text.as_ptr() as usize;
        let span = |name: &str| Span {
            // In bounds of u32: the text is (checked in `scan`).
            start: (name.as_ptr() as usize - base) as u32,
            len: name.len() as u32,
        };
        // At most one gesture per `/`.
        let mut spans: Vec<Span> = Vec::with_capacity(slashes);
        let mut hashes: Vec<u64> = Vec::with_capacity(slashes);
        // Counts per top MAX_BITS bits of the hash; fewer bits merge them.
        let mut counts = vec![0u32; 1 << MAX_BITS];
        for name in found.into_iter().chain(rest) {
            let hash = hasher.hash_one(name);
            counts[(hash >> (64 - MAX_BITS)) as usize] += 1;
            spans.push(span(name));
            hashes.push(hash);
        }
        let n = spans.len();
        // Buckets of about `bucket_size` gestures: 2^bits of them.
        let wanted = n.div_ceil(bucket_size.max(1)).max(1);
        let bits = wanted
            .next_power_of_two()
            .trailing_zeros()
            .clamp(1, MAX_BITS);
        let merge = 1usize << (MAX_BITS - bits);
        let mut ends: Vec<usize> = Vec::with_capacity(1 << bits);
        let mut next: Vec<usize> = Vec::with_capacity(1 << bits);
        let mut total = 0usize;
        let mut largest = 0usize;
        for group in counts.chunks(merge) {
            let size = group.iter().map(|&c| c as usize).sum::<usize>();
            next.push(total);
            total += size;
            ends.push(total);
            largest = largest.max(size);
        }
        // Stable scatter: a bucket holds its gestures in text order.
        let mut entries = vec![Entry::default(); n];
        for (at, (&hash, s)) in hashes.iter().zip(&spans).enumerate() {
            let bucket = (hash >> (64 - bits)) as usize;
            entries[next[bucket]] = Entry {
                hash: hash as u32,
                at: at as u32,
                start: s.start,
                len: s.len,
            };
            next[bucket] += 1;
        }
        drop(hashes);
        // Per bucket, a probe table at most half full (slot: index in the
        // bucket + 1, 0 empty), linear probing on the low hash bits.
        let bytes_of = |e: &Entry| &text.as_bytes()[e.start as usize..(e.start + e.len) as usize];
        let mut slots = vec![0u32; (largest * 2).next_power_of_two().max(2)];
        let mut first = vec![0u64; n.div_ceil(64)];
        let (mut count, mut bytes) = (0usize, 0usize);
        let mut begin = 0usize;
        for &end in &ends {
            let bucket = &entries[begin..end];
            begin = end;
            let size = (bucket.len() * 2).next_power_of_two().max(2);
            let mask = size - 1;
            let table = &mut slots[..size];
            table.fill(0);
            for (i, e) in bucket.iter().enumerate() {
                let mut slot = e.hash as usize & mask;
                loop {
                    let held = table[slot];
                    if held == 0 {
                        table[slot] = i as u32 + 1;
                        first[e.at as usize / 64] |= 1 << (e.at % 64);
                        count += 1;
                        bytes += e.len as usize;
                        break;
                    }
                    let other = &bucket[held as usize - 1];
                    if other.hash == e.hash && other.len == e.len && bytes_of(other) == bytes_of(e)
                    {
                        break;
                    }
                    slot = (slot + 1) & mask;
                }
            }
        }
        Partitioned {
            text,
            spans,
            first,
            count,
            bytes,
        }
    }

    /// The length of the names joined by single spaces.
    fn joined_len(&self) -> usize {
        self.bytes + self.count.saturating_sub(1)
    }

    /// The names, in text order.
    fn names(&self) -> impl Iterator<Item = &'t str> + '_ {
        let text = self.text;
        self.first
            .iter()
            .enumerate()
            .flat_map(move |(word, &bits)| {
                let mut bits = bits;
                std::iter::from_fn(move || {
                    if bits == 0 {
                        return None;
                    }
                    let at = word * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    let s = self.spans[at];
                    Some(&text[s.start as usize..(s.start + s.len) as usize])
                })
            })
    }
}

/// Whether `text` holds at least one `/name` gesture (stops at the first).
pub fn has_gesture(text: &str) -> bool {
    gestures(text).next().is_some()
}

/// The `/name` gestures of `texts` (read as one text: a gesture never spans
/// two) whose name is one of `candidates`, first occurrence order, each once:
/// what [`scan_gestures`] gives for the texts with the other names left out.
/// The cost per gesture is one look-up among the candidates, however many
/// distinct names the texts hold; the scan stops once every candidate is found.
pub fn scan_gestures_among<'t, T: AsRef<str>>(texts: &'t [T], candidates: &[&str]) -> Vec<&'t str> {
    let mut index: HashMap<&str, usize, foldhash::fast::RandomState> =
        HashMap::with_capacity_and_hasher(candidates.len(), Default::default());
    for name in candidates {
        if is_skill_name(name) {
            let next = index.len();
            index.entry(name).or_insert(next);
        }
    }
    let mut found = vec![false; index.len()];
    let mut names: Vec<&str> = Vec::new();
    for text in texts {
        if names.len() == index.len() {
            break;
        }
        for name in gestures(text.as_ref()) {
            if let Some(&at) = index.get(name) {
                if !found[at] {
                    found[at] = true;
                    names.push(name);
                    if names.len() == index.len() {
                        break;
                    }
                }
            }
        }
    }
    names
}

/// Every `/name` gesture of `text` in order, repeats included: the boundary
/// rule, shared by the scans above.
fn gestures(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    memchr::memchr_iter(b'/', bytes).filter_map(move |slash| {
        if slash > 0 && !whitespace_before(text, slash) {
            return None;
        }
        let start = slash + 1;
        // A name is at most MAX_SKILL_NAME_LEN characters: look no further
        // than one past that (a longer run is no gesture), so a slash costs
        // a bounded look whatever follows it.
        let window = &bytes[start..bytes.len().min(start + MAX_SKILL_NAME_LEN + 1)];
        let end = start
            + window
                .iter()
                .position(|&b| !matches!(b, b'a'..=b'z' | b'0'..=b'9' | b'-'))
                .unwrap_or(window.len());
        if end - start > MAX_SKILL_NAME_LEN || (end < bytes.len() && !whitespace_at(text, end)) {
            return None;
        }
        let name = &text[start..end];
        is_skill_name(name).then_some(name)
    })
}

/// The character that ends just before byte `at` (a char boundary) is JS
/// whitespace.
fn whitespace_before(text: &str, at: usize) -> bool {
    text[..at].chars().next_back().is_some_and(is_js_whitespace)
}

/// The character that starts at byte `at` (a char boundary) is JS whitespace.
fn whitespace_at(text: &str, at: usize) -> bool {
    text[at..].chars().next().is_some_and(is_js_whitespace)
}

/// [`scan_gestures`] written as the rule reads: split the text at JS
/// whitespace, keep the tokens that are `/` and a skill name, each once.
pub fn scan_gestures_by_tokens(text: &str) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    let mut seen: HashSet<&str, foldhash::fast::RandomState> = HashSet::default();
    for token in text.split(is_js_whitespace) {
        let Some(name) = token.strip_prefix('/') else {
            continue;
        };
        if is_skill_name(name) && seen.insert(name) {
            names.push(name);
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gestures_by_the_boundary_rule() {
        for (text, expected) in [
            ("/deploy", vec!["deploy"]),
            ("/deploy now", vec!["deploy"]),
            ("please /code-review this", vec!["code-review"]),
            ("run /a then /b2 and /a again", vec!["a", "b2"]),
            ("line one\n/deploy\tnext", vec!["deploy"]),
            ("\u{3000}/deploy\u{a0}", vec!["deploy"]),
            ("/deploy\u{2028}", vec!["deploy"]),
            ("/b /a /b", vec!["b", "a"]),
            // Not gestures: paths, fractions, punctuation, case, bad names.
            ("a/b", vec![]),
            ("see /usr/bin", vec![]),
            ("1/2 of it", vec![]),
            ("/deploy.", vec![]),
            ("/deploy, then", vec![]),
            ("(/deploy)", vec![]),
            ("x/deploy", vec![]),
            ("//deploy", vec![]),
            ("/Deploy", vec![]),
            ("/deploy-", vec![]),
            ("/de--ploy", vec![]),
            ("/", vec![]),
            ("/ deploy", vec![]),
            ("", vec![]),
            ("/déploy", vec![]),
            // U+0085 and U+200B are not JS whitespace: still glued.
            ("/deploy\u{85}", vec![]),
            ("\u{200b}/deploy", vec![]),
        ] {
            assert_eq!(scan_gestures(text), expected, "{text:?}");
            assert_eq!(scan_gestures_by_tokens(text), expected, "{text:?}");
        }
    }

    #[test]
    fn the_scan_agrees_with_the_rule_on_random_texts() {
        // Texts from a small alphabet that makes gestures, near-misses and
        // multi-byte whitespace and letters common.
        const PIECES: [&str; 16] = [
            "/", "a", "b", "9", "-", " ", "\n", "\u{a0}", "\u{3000}", "\u{2028}", "é", "\u{85}",
            "x/", "/de", "--", "\u{feff}",
        ];
        let mut rng = crate::test_rng::Rng::new(0x9e37_79b9_7f4a_7c15);
        let mut next = move || rng.next();
        for _ in 0..20_000 {
            let len = (next() % 24) as usize;
            let text: String = (0..len)
                .map(|_| PIECES[(next() % PIECES.len() as u64) as usize])
                .collect();
            assert_eq!(
                scan_gestures(&text),
                scan_gestures_by_tokens(&text),
                "{text:?}"
            );
        }
    }

    #[test]
    fn the_filtered_scan_and_the_check_agree_with_the_scan_on_random_texts() {
        const PIECES: [&str; 14] = [
            "/", "a", "b", "ab", "-", " ", "\n", "\u{a0}", "\u{3000}", "é", "x/", "/a", "/b", "/ab",
        ];
        const CANDIDATES: [&str; 7] = ["a", "b", "ab", "a-b", "A", "a b", ""];
        let mut rng = crate::test_rng::Rng::new(0x2545_f491_4f6c_dd1d);
        let mut next = move || rng.next();
        for _ in 0..20_000 {
            let texts: Vec<String> = (0..(next() % 4))
                .map(|_| {
                    (0..(next() % 12))
                        .map(|_| PIECES[(next() % PIECES.len() as u64) as usize])
                        .collect()
                })
                .collect();
            let candidates: Vec<&str> = CANDIDATES
                .iter()
                .copied()
                .filter(|_| next() % 2 == 0)
                .collect();
            let mut expected: Vec<&str> = Vec::new();
            for text in &texts {
                assert_eq!(
                    has_gesture(text),
                    !scan_gestures(text).is_empty(),
                    "{text:?}"
                );
                for name in scan_gestures(text) {
                    if candidates.contains(&name) && !expected.contains(&name) {
                        expected.push(name);
                    }
                }
            }
            assert_eq!(
                scan_gestures_among(&texts, &candidates),
                expected,
                "{texts:?} {candidates:?}"
            );
        }
    }

    #[test]
    fn the_partitioned_scan_agrees_with_the_rule_on_random_texts() {
        // Small sizes send small texts down the partitioned path: from the
        // first distinct name on, into buckets of one or a few gestures, so
        // repeats land in the same bucket as their first occurrence or not.
        const PIECES: [&str; 14] = [
            "/a", "/b", "/ab", "/a-b", "/9", " ", "\n", "\u{3000}", "x", "/", "-", "a", "\u{a0}",
            "/ba",
        ];
        let mut rng = crate::test_rng::Rng::new(0x51_7cc1_b727_220a);
        let mut next = move || rng.next();
        for _ in 0..20_000 {
            let len = (next() % 40) as usize;
            let text: String = (0..len)
                .map(|_| PIECES[(next() % PIECES.len() as u64) as usize])
                .collect();
            let expected = scan_gestures_by_tokens(&text);
            for (past, size) in [(0, 1), (1, 1), (1, 2), (2, 3), (3, 64), (usize::MAX, 1)] {
                assert_eq!(
                    scan_gestures_tuned(&text, past, size),
                    expected,
                    "{text:?} {past} {size}"
                );
            }
            assert_eq!(scan_gestures(&text), expected, "{text:?}");
            assert_eq!(scan_gestures_joined(&text), expected.join(" "), "{text:?}");
        }
    }

    #[test]
    fn many_distinct_gestures_with_repeats_far_apart() {
        // Past the partition bound: 300,000 distinct names, of every length
        // from 1 to 70 bytes and with names one dash apart (`a-1` and `a1`),
        // each first seen in a shuffled order and repeated far later (some
        // once, some many times), among prose and non-gestures.
        let mut rng = crate::test_rng::Rng::new(0x2f69_3b2c_8d1e_4a57);
        let mut next = move || rng.next();
        let name = |i: u64| match i % 4 {
            0 => format!("s{i}"),
            1 => format!("s-{i}"),
            2 => format!("{}{i}", "x".repeat((i % 64) as usize)),
            _ => format!("a-{}", "b".repeat((i % 70) as usize + 1)) + &format!("-{i}"),
        };
        let count = 300_000u64;
        let mut order: Vec<u64> = (0..count).collect();
        for i in (1..order.len()).rev() {
            order.swap(i, (next() % (i as u64 + 1)) as usize);
        }
        let mut text = String::new();
        for (k, &i) in order.iter().enumerate() {
            text.push_str(&format!("/{} ", name(i)));
            if k % 7 == 0 {
                text.push_str("a/b /Not /s-- x/s1\n");
            }
            if k % 5 == 0 && k > 0 {
                // A repeat of a name seen much earlier.
                let j = order[(next() % k as u64) as usize];
                text.push_str(&format!("\u{3000}/{}\t", name(j)));
            }
        }
        for _ in 0..count {
            text.push_str(&format!("/{} ", name(next() % count)));
        }
        let expected = scan_gestures_by_tokens(&text);
        // Names past 64 characters are no gestures.
        let short = (0..count)
            .filter(|&i| name(i).len() <= MAX_SKILL_NAME_LEN)
            .count();
        assert!(short < count as usize);
        assert_eq!(expected.len(), short);
        let names = scan_gestures(&text);
        assert!(names == expected, "the scan and the rule differ");
        assert!(scan_gestures_joined(&text) == expected.join(" "));
        for (past, size) in [(1 << 10, 64), (1 << 16, 1 << 14), (1, 1 << 20)] {
            assert!(
                scan_gestures_tuned(&text, past, size) == expected,
                "{past} {size}"
            );
        }
    }

    #[test]
    fn many_distinct_gestures_keep_first_occurrence_order() {
        // 200,000 distinct names, each repeated later in reverse order: the
        // first pass decides the order, the second adds nothing. (The scan was
        // quadratic in the number of distinct names: this took minutes.)
        let count = 200_000;
        let mut text = String::new();
        for i in 0..count {
            text.push_str(&format!("/s{i} "));
        }
        for i in (0..count).rev() {
            text.push_str(&format!("x /s{i}\n"));
        }
        let names = scan_gestures(&text);
        assert_eq!(names.len(), count);
        for (i, name) in names.iter().enumerate() {
            assert_eq!(*name, format!("s{i}"));
        }
    }

    #[test]
    fn names_past_64_characters_are_no_gestures() {
        let longest = "a".repeat(MAX_SKILL_NAME_LEN);
        let last = format!("{}-c", "b".repeat(62));
        let text = format!("/{longest} /{longest}b /{last}");
        let expected = vec![longest.as_str(), last.as_str()];
        assert_eq!(scan_gestures(&text), expected);
        assert_eq!(scan_gestures_by_tokens(&text), expected);
        // Ten megabytes of one name: nothing, and no ten-megabyte answer.
        let huge = format!("/{}", "a".repeat(10 << 20));
        assert!(scan_gestures(&huge).is_empty());
        assert!(scan_gestures_joined(&huge).is_empty());
        assert!(!has_gesture(&huge));
        assert!(scan_gestures_among(&[huge.as_str()], &[&huge[1..]]).is_empty());
        // Many slashes each followed by a long run: still one look per slash.
        let runs = format!("/{} ", "a".repeat(1000)).repeat(10_000);
        assert!(scan_gestures(&runs).is_empty());
    }
}
