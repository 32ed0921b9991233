//! Budgeted catalogs: the entries block fitted into a number of characters
//! without dropping a skill silently.
//!
//! A [`Budget`] is the most UTF-16 code units (JS `.length`, as `maxLength`
//! counts) the entries block may take: the joined lines, without the message
//! prose around them. When every entry fits in full, the block is exactly the
//! unbudgeted one (same bytes, same digest). Otherwise it is made to fit in
//! these steps, each one taken only when the one before cannot fit:
//!
//! 1. **Shortening (water-filling).** Descriptions of unpinned skills are cut to
//!    one common length `C` (counted like `maxLength`, `...` included, the
//!    usual cut): descriptions no longer than `C` stay whole, longer ones are cut
//!    to `C`, so the longest are cut first. `C` is the largest length that fits,
//!    and never below [`MIN_SHORTENED_LENGTH`] (nor at or above `maxLength`,
//!    which would cut nothing).
//! 2. **Name-only entries.** With every unpinned description at
//!    `MIN_SHORTENED_LENGTH`, unpinned entries become the name-only form
//!    `` - `NAME` `` (no colon, no description), lowest priority first.
//! 3. **Omission.** With every unpinned entry name-only, unpinned entries are
//!    left out, lowest priority first, and one last line,
//!    [`omitted_notice`], says how many are not listed and how to load one by
//!    name. It is the only line that does not start with `` - ` ``.
//! 4. **Pinned skills** keep their full description until every unpinned skill
//!    is left out; only then do they go through the same steps among themselves.
//!    If not even the notice line fits, the block is that line alone (the only
//!    case where the block is longer than the budget: it never looks empty when
//!    skills exist).
//!
//! **Priority** (who becomes name-only or is left out first): pinned skills rank
//! above every other, in the order of the `pinned` list; the others rank in
//! name order (the entry order), so the entries at the end of the alphabet give
//! way first. Names in `pinned` that are not in the catalog are ignored.
//! Entries always stay in name order; the result depends only on the skills and
//! the options, so the same input gives the same bytes and digest.

use super::{push_description, utf16_len, Catalog, CatalogError, Entries};
use std::ops::Range;

/// Shortest description length (UTF-16 units, `...` included) a budget cuts
/// to; below it an entry becomes name-only instead.
pub const MIN_SHORTENED_LENGTH: usize = 40;

const NOTICE_ONE: &str =
    "(1 more skill is available but not listed here; load it by its exact name with the `skill` tool.)";
const NOTICE_MANY_START: &str = "(";
const NOTICE_MANY_END: &str = " more skills are available but not listed here; load one by its exact name with the `skill` tool.)";

/// The last line of a budgeted block that left `omitted` skills out.
pub fn omitted_notice(omitted: usize) -> String {
    if omitted == 1 {
        NOTICE_ONE.to_string()
    } else {
        format!("{NOTICE_MANY_START}{omitted}{NOTICE_MANY_END}")
    }
}

/// Length of [`omitted_notice`] (ASCII: bytes are UTF-16 units).
fn notice_len(omitted: usize) -> usize {
    if omitted == 1 {
        NOTICE_ONE.len()
    } else {
        NOTICE_MANY_START.len() + omitted.to_string().len() + NOTICE_MANY_END.len()
    }
}

/// Whether the entries block ends with an [`omitted_notice`] line.
pub(super) fn ends_with_notice(entries: &str) -> bool {
    entries
        .rsplit('\n')
        .next()
        .is_some_and(|line| line.starts_with(NOTICE_MANY_START))
}

/// How many characters the entries block may take and which skills keep their
/// full description (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Budget {
    chars: usize,
    pinned: Vec<String>,
}

impl Budget {
    /// A budget of `chars` UTF-16 units (at least 1); `pinned` lists skill names
    /// in priority order (names not in the catalog are ignored).
    pub fn new(chars: usize, pinned: Vec<String>) -> Result<Self, CatalogError> {
        if chars == 0 {
            return Err(CatalogError::Budget("0".to_string()));
        }
        Ok(Self { chars, pinned })
    }

    /// Most UTF-16 units the entries block may take.
    pub fn chars(&self) -> usize {
        self.chars
    }

    /// Pinned names, highest priority first.
    pub fn pinned(&self) -> &[String] {
        &self.pinned
    }
}

/// How each model-invocable skill appears in the entries block.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CatalogReport {
    /// Model-invocable skills in the catalog (`full + shortened + name_only + omitted`).
    pub total: usize,
    /// Entries shown exactly as without a budget (`maxLength` still applies).
    pub full: usize,
    /// Entries whose description the budget cut shorter.
    pub shortened: usize,
    /// Entries shown by name only.
    pub name_only: usize,
    /// Skills left out (counted by the last line).
    pub omitted: usize,
    /// Length of the entries block in UTF-16 units.
    pub chars: usize,
}

impl CatalogReport {
    /// Every entry in full.
    pub(super) fn unbudgeted(total: usize, chars: usize) -> Self {
        Self {
            total,
            full: total,
            chars,
            ..Self::default()
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    Full,
    /// Description cut to this length (below `maxLength`).
    Cut(usize),
    NameOnly,
    Omitted,
}

/// A description as rendered in full, measured.
struct Desc {
    /// UTF-16 units of the rendered (escaped) description.
    units: usize,
    /// UTF-16 units of the normalised text before escaping (`maxLength` when
    /// the full rendering was cut).
    norm: usize,
    /// Whether the rendering is ASCII (then bytes are UTF-16 units).
    ascii: bool,
    /// Its escapes in [`Layout::escapes`].
    escapes: Range<usize>,
}

/// Length of the escape starting at `at` in a rendered description: `&amp;`,
/// or `&lt;` / `&gt;`.
fn escape_len(bytes: &[u8], at: usize) -> usize {
    if bytes.get(at + 1) == Some(&b'a') {
        5
    } else {
        4
    }
}

/// [`measure`] for ASCII text, where bytes are units: records the escapes and
/// returns the units they add, or `None` (escapes half recorded) when the text
/// is not ASCII. Eight bytes at a time: this runs over every description.
fn measure_ascii(bytes: &[u8], escapes: &mut Vec<(usize, usize)>) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut extra = 0;
    let mut found = |at: usize, extra: &mut usize| {
        let len = escape_len(bytes, at);
        escapes.push((at - *extra, len - 1));
        *extra += len - 1;
    };
    let mut chunks = bytes.chunks_exact(8);
    let mut at = 0;
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let word = u64::from_le_bytes(word);
        if word & HIGH != 0 {
            return None;
        }
        // Any byte equal to `&` (exact for "any"; the bytes are then checked).
        let x = word ^ (ONES * u64::from(b'&'));
        if x.wrapping_sub(ONES) & !x & HIGH != 0 {
            for (k, &b) in chunk.iter().enumerate() {
                if b == b'&' {
                    found(at + k, &mut extra);
                }
            }
        }
        at += 8;
    }
    for (k, &b) in chunks.remainder().iter().enumerate() {
        if b >= 0x80 {
            return None;
        }
        if b == b'&' {
            found(at + k, &mut extra);
        }
    }
    Some(extra)
}

/// Measures a rendered description; every `&` in it starts an escape, since a
/// literal `&` is always escaped. Records `(position in normalised units, extra
/// units)` of each escape.
fn measure(rendered: &str, escapes: &mut Vec<(usize, usize)>) -> Desc {
    let start = escapes.len();
    let bytes = rendered.as_bytes();
    if let Some(extra) = measure_ascii(bytes, escapes) {
        return Desc {
            units: bytes.len(),
            norm: bytes.len() - extra,
            ascii: true,
            escapes: start..escapes.len(),
        };
    }
    escapes.truncate(start);
    let (mut units, mut norm, mut i) = (0, 0, 0);
    while i < bytes.len() {
        // (units written, bytes, normalised units)
        let (width, step, count) = match bytes[i] {
            b'&' => {
                let len = escape_len(bytes, i);
                escapes.push((norm, len - 1));
                (len, len, 1)
            }
            0x00..=0x7f => (1, 1, 1),
            0xc0..=0xdf => (1, 2, 1),
            0xe0..=0xef => (1, 3, 1),
            _ => (2, 4, 2),
        };
        units += width;
        norm += count;
        i += step;
    }
    Desc {
        units,
        norm,
        ascii: false,
        escapes: start..escapes.len(),
    }
}

/// The shape of every entry and the running length of the block.
struct Layout<'c, 'a> {
    catalog: &'c Catalog<'a>,
    descs: Vec<Desc>,
    escapes: Vec<(usize, usize)>,
    shapes: Vec<Shape>,
    /// Sum of the listed lines' lengths (without newlines).
    listed_len: usize,
    listed: usize,
    omitted: usize,
}

impl Layout<'_, '_> {
    /// Units taken by the first `keep` normalised units of description `i`
    /// once escaped.
    fn prefix_len(&self, i: usize, keep: usize) -> usize {
        let mut len = keep;
        for &(at, extra) in &self.escapes[self.descs[i].escapes.clone()] {
            if at >= keep {
                break;
            }
            len += extra;
        }
        len
    }

    /// Length of description `i` cut to `cap` (whole when it is not longer).
    fn desc_len(&self, i: usize, cap: usize) -> usize {
        let desc = &self.descs[i];
        if desc.norm <= cap {
            return desc.units;
        }
        self.prefix_len(i, cap - 3) + 3
    }

    fn line_len(&self, i: usize, shape: Shape) -> usize {
        // Names are ASCII: bytes are units.
        let name = self.catalog.items[i].0.len();
        match shape {
            Shape::Full => 6 + name + self.descs[i].units,
            Shape::Cut(cap) => 6 + name + self.desc_len(i, cap),
            Shape::NameOnly => 4 + name,
            Shape::Omitted => 0,
        }
    }

    fn set(&mut self, i: usize, shape: Shape) {
        let old = self.shapes[i];
        if old == Shape::Omitted {
            self.omitted -= 1;
        } else {
            self.listed_len -= self.line_len(i, old);
            self.listed -= 1;
        }
        if shape == Shape::Omitted {
            self.omitted += 1;
        } else {
            self.listed_len += self.line_len(i, shape);
            self.listed += 1;
        }
        self.shapes[i] = shape;
    }

    /// Length of the block as the shapes stand.
    fn total(&self) -> usize {
        let notice = if self.omitted > 0 {
            notice_len(self.omitted)
        } else {
            0
        };
        let lines = self.listed + usize::from(self.omitted > 0);
        self.listed_len + notice + lines.saturating_sub(1)
    }

    /// Cuts the descriptions of `group` longer than `cap`.
    fn cut_to(&mut self, group: &[usize], cap: usize) {
        for &i in group {
            if self.descs[i].norm > cap {
                self.set(i, Shape::Cut(cap));
            }
        }
    }

    /// Takes the steps of the module docs on `group` (entries in priority
    /// order, all in full) until the block fits; false when it still does not.
    fn degrade(&mut self, group: &[usize], budget: usize) -> bool {
        self.shorten(group, budget)
            || self.give_way(group, Shape::NameOnly, budget)
            || self.give_way(group, Shape::Omitted, budget)
    }

    /// Step 1: the largest common description length that fits; when even the
    /// shortest does not, every description of `group` is left at it.
    fn shorten(&mut self, group: &[usize], budget: usize) -> bool {
        let max_len = self.catalog.max_len;
        let floor = MIN_SHORTENED_LENGTH;
        if floor >= max_len {
            return false;
        }
        let others = self.total()
            - group
                .iter()
                .map(|&i| self.line_len(i, self.shapes[i]))
                .sum::<usize>();
        let with_cap = |cap: usize| {
            others
                + group
                    .iter()
                    .map(|&i| 6 + self.catalog.items[i].0.len() + self.desc_len(i, cap))
                    .sum::<usize>()
        };
        if with_cap(floor) > budget {
            self.cut_to(group, floor);
            return false;
        }
        // Past the longest description nothing is cut, which does not fit.
        let longest = group.iter().map(|&i| self.descs[i].norm).max().unwrap_or(0);
        let (mut lo, mut hi) = (floor, (max_len - 1).min(longest.max(floor)));
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if with_cap(mid) <= budget {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        self.cut_to(group, lo);
        true
    }

    /// Steps 2 and 3: entries of `group` take `shape` (name-only, then left
    /// out), lowest priority first, until the block fits.
    fn give_way(&mut self, group: &[usize], shape: Shape, budget: usize) -> bool {
        for &i in group.iter().rev() {
            self.set(i, shape);
            if self.total() <= budget {
                return true;
            }
        }
        false
    }

    /// Writes the block; `full` is the unbudgeted rendering and `spans` the
    /// byte range of each description in it.
    fn write(&self, full: &str, spans: &[(usize, usize)]) -> String {
        let mut out = String::with_capacity(self.total() + 16);
        for (i, &shape) in self.shapes.iter().enumerate() {
            if shape == Shape::Omitted {
                continue;
            }
            if !out.is_empty() {
                out.push('\n');
            }
            let (name, description) = self.catalog.items[i];
            out.push_str("- `");
            out.push_str(name);
            match shape {
                Shape::Full => {
                    out.push_str("`: ");
                    let (start, end) = spans[i];
                    out.push_str(&full[start..end]);
                }
                Shape::Cut(cap) => {
                    out.push_str("`: ");
                    if self.descs[i].ascii {
                        // The cut text is a prefix of the full rendering (`cap`
                        // is below `maxLength`), escapes kept whole.
                        let (start, _) = spans[i];
                        out.push_str(&full[start..start + self.prefix_len(i, cap - 3)]);
                        out.push_str("...");
                    } else {
                        push_description(&mut out, description, cap);
                    }
                }
                Shape::NameOnly | Shape::Omitted => out.push('`'),
            }
        }
        if self.omitted > 0 {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&omitted_notice(self.omitted));
        }
        out
    }

    fn report(&self, chars: usize) -> CatalogReport {
        let mut report = CatalogReport {
            total: self.shapes.len(),
            chars,
            ..CatalogReport::default()
        };
        for shape in &self.shapes {
            match shape {
                Shape::Full => report.full += 1,
                Shape::Cut(_) => report.shortened += 1,
                Shape::NameOnly => report.name_only += 1,
                Shape::Omitted => report.omitted += 1,
            }
        }
        report
    }
}

/// Pinned entries (in pinned order) and the others (in name order).
fn groups(items: &[(&str, &str)], pinned: &[String]) -> (Vec<usize>, Vec<usize>) {
    let mut is_pinned = vec![false; items.len()];
    let mut first = Vec::new();
    for name in pinned {
        // Items are sorted by name; a plain array may hold a name twice.
        let start = items.partition_point(|(n, _)| *n < name.as_str());
        for (i, (n, _)) in items.iter().enumerate().skip(start) {
            if n != name {
                break;
            }
            if !is_pinned[i] {
                is_pinned[i] = true;
                first.push(i);
            }
        }
    }
    let rest = (0..items.len()).filter(|&i| !is_pinned[i]).collect();
    (first, rest)
}

/// The entries of `catalog` fitted into `budget` (see the module docs).
pub(super) fn render(catalog: &Catalog<'_>, budget: &Budget) -> Entries {
    let total = catalog.len();
    let items = &catalog.items;
    let (pinned, rest) = groups(items, &budget.pinned);
    // When every entry name-only is already too long, no unpinned description
    // can be shown (the steps end in omissions): they are not even rendered.
    let names_len = items.iter().map(|(n, _)| 4 + n.len()).sum::<usize>() + total.saturating_sub(1);
    let names_only = names_len > budget.chars;
    let mut described = vec![!names_only; total];
    for &i in &pinned {
        described[i] = true;
    }
    // The unbudgeted rendering of the described entries, each description
    // measured while it is fresh in cache.
    let mut full = String::with_capacity(if names_only { 0 } else { catalog.size_hint() });
    let mut spans = Vec::with_capacity(total);
    let mut descs = Vec::with_capacity(total);
    let mut shapes = Vec::with_capacity(total);
    let mut escapes = Vec::new();
    let mut listed_len = 0;
    for (i, (name, description)) in items.iter().enumerate() {
        if !described[i] {
            listed_len += 4 + name.len();
            spans.push((0, 0));
            descs.push(Desc {
                units: 0,
                norm: 0,
                ascii: true,
                escapes: 0..0,
            });
            shapes.push(Shape::NameOnly);
            continue;
        }
        if i > 0 {
            full.push('\n');
        }
        full.push_str("- `");
        full.push_str(name);
        full.push_str("`: ");
        let start = full.len();
        push_description(&mut full, description, catalog.max_len);
        let desc = measure(&full[start..], &mut escapes);
        listed_len += 6 + name.len() + desc.units;
        spans.push((start, full.len()));
        descs.push(desc);
        shapes.push(Shape::Full);
    }
    let full_chars = listed_len + total.saturating_sub(1);
    if !names_only && full_chars <= budget.chars {
        return Entries {
            text: full,
            report: CatalogReport::unbudgeted(total, full_chars),
        };
    }
    let mut layout = Layout {
        catalog,
        descs,
        escapes,
        shapes,
        listed_len,
        listed: total,
        omitted: 0,
    };
    let fits = if names_only {
        layout.give_way(&rest, Shape::Omitted, budget.chars)
    } else {
        layout.degrade(&rest, budget.chars)
    };
    // When this does not fit either, everything is left out and the notice
    // line remains.
    if !fits {
        layout.degrade(&pinned, budget.chars);
    }
    let chars = layout.total();
    let text = layout.write(&full, &spans);
    debug_assert_eq!(utf16_len(&text), chars);
    Entries {
        report: layout.report(chars),
        text,
    }
}

#[cfg(test)]
mod tests;
