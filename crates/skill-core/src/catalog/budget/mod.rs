//! Budgeted catalogs: the entries block fitted into a number of characters
//! without dropping a skill silently.
//!
//! A [`Budget`] is the most UTF-16 code units (JS `.length`, as `maxLength`
//! counts) the entries block may take: the joined lines, without the message
//! prose around them. When every entry fits in full, the block is exactly the
//! unbudgeted one (same bytes, same digest).
//!
//! Otherwise the room is spent in this order ([`priority`] has the groups):
//!
//! 1. **Kept ahead.** The pinned skills, then the preferred ones
//!    ([`Budget::with_preferred`]), keep their full descriptions.
//! 2. **Fair shares.** What they leave is shared between the **sources**:
//!    the folders the other skills were found in (each root of the local
//!    provider on its own), or their source labels where no folder is known.
//!    Each source's demand is its lines in full; max-min fairness
//!    ([`share`]): a source that needs no more than an equal share of what is
//!    left keeps every entry in full, smallest first, and the room it does not
//!    need is shared between the others. The sources still over their share
//!    fit into it one by one, the farthest first (highest rank), each taking
//!    an equal part of what is left; what one does not use goes to the nearer
//!    ones.
//! 3. **Within its share** a source takes these steps, each only when the one
//!    before cannot fit:
//!    1. *Shortening (water-filling).* Its descriptions are cut to one common
//!       length `C` (counted like `maxLength`, `...` included, the usual cut):
//!       descriptions no longer than `C` stay whole, longer ones are cut to
//!       `C`, so the longest are cut first. `C` is the largest length that
//!       fits, never below [`MIN_SHORTENED_LENGTH`] (nor at or above
//!       `maxLength`, which would cut nothing).
//!    2. *Name-only entries*, where they buy reach: with every description at
//!       `MIN_SHORTENED_LENGTH`, entries become `` - `NAME` `` (no colon, no
//!       description), the last in name order first. Without a search tool a
//!       name is the only way the model learns of a skill that is not listed,
//!       so this step is always taken; with one, only when it lists every
//!       skill of the source (otherwise the left-out skills are found by
//!       search anyway, and the room keeps descriptions).
//!    3. *Omission.* Entries are left out, the last in name order first, and
//!       one last line, [`omitted_notice`], says how many are not listed. It is
//!       the only line that does not start with `` - ` ``. Room for it is kept
//!       before the shares are made whenever something is left out.
//! 4. **When the sources are all left out** and the block still does not fit,
//!    the preferred skills, then the pinned ones (the last pinned first) take
//!    the same steps.
//!
//! Rank (nearness) decides which copy of a name wins, and here only the order
//! of the sources: nearer sources get the room farther ones leave. A budget
//! may name a search tool ([`Budget::with_search_tool`]): the last line then
//! says how to find a left-out skill with it; without one it says that the
//! `skill` tool loads a skill only by its exact name, which the list does not
//! show.
//!
//! If not even the notice line fits, the block is that line alone (the only
//! case where the block is longer than the budget: it never looks empty when
//! skills exist).
//!
//! A catalog without origins ([`Catalog::new`]) is one source: its unpinned
//! skills give way in name order (the entries at the end of the alphabet
//! first). Pins that match no entry are ignored. Entries always stay in name
//! order; the result depends only on the skills and the options, so the same
//! input gives the same bytes and digest.

mod priority;
mod report;
mod share;

pub use report::{CatalogReport, SourceReport};

use super::{push_description, utf16_len, Catalog, CatalogError, Entries};
use priority::{groups, Groups, Pin};
use std::ops::Range;

/// Shortest description length (UTF-16 units, `...` included) a budget cuts
/// to; below it an entry becomes name-only instead.
pub const MIN_SHORTENED_LENGTH: usize = 40;

const NOTICE_ONE: &str =
    "(1 more skill is available but not listed here; the `skill` tool loads it only by its exact name, which this list does not show.)";
const NOTICE_MANY_START: &str = "(";
const NOTICE_MANY_END: &str = " more skills are available but not listed here; the `skill` tool loads one only by its exact name, which this list does not show.)";

/// The last line of a budgeted block that left `omitted` skills out.
pub fn omitted_notice(omitted: usize) -> String {
    Notice::default().text(omitted)
}

/// The last line of a budgeted block that left skills out: with a search
/// tool ([`Budget::with_search_tool`]), how to find one and load it; without
/// one, that the `skill` tool loads a skill only by its exact name, which the
/// model was not shown.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Notice {
    search_tool: Option<String>,
}

impl Notice {
    fn text(&self, omitted: usize) -> String {
        match &self.search_tool {
            None if omitted == 1 => NOTICE_ONE.to_string(),
            None => format!("{NOTICE_MANY_START}{omitted}{NOTICE_MANY_END}"),
            Some(tool) if omitted == 1 => format!(
                "(1 more skill is available but not listed here; find it by what it does with the `{tool}` tool, then load it by its exact name with the `skill` tool.)"
            ),
            Some(tool) => format!(
                "({omitted} more skills are available but not listed here; find one by what it does with the `{tool}` tool, then load it by its exact name with the `skill` tool.)"
            ),
        }
    }

    /// Whether the harness names no search tool: a skill left out is then
    /// reachable only by a name the model was shown, so name-only entries
    /// always buy reach.
    fn no_search_tool(&self) -> bool {
        self.search_tool.is_none()
    }

    /// Length of [`Notice::text`] (ASCII: bytes are UTF-16 units).
    fn len(&self, omitted: usize) -> usize {
        match &self.search_tool {
            None if omitted == 1 => NOTICE_ONE.len(),
            None => NOTICE_MANY_START.len() + omitted.to_string().len() + NOTICE_MANY_END.len(),
            Some(_) => self.text(omitted).len(),
        }
    }
}

/// Length of [`omitted_notice`].
#[cfg(test)]
fn notice_len(omitted: usize) -> usize {
    Notice::default().len(omitted)
}

/// Whether `name` may name a search tool in the notice line: 1 to 64 ASCII
/// letters, digits, `_`, `-` or `.` (it is written between backticks).
pub fn is_tool_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
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
    pins: Vec<Pin>,
    /// Skill names that come right after the pins, highest priority first.
    preferred: Vec<String>,
    notice: Notice,
}

impl Budget {
    /// A budget of `chars` UTF-16 units (at least 1); `pinned` lists skill
    /// names and globs (`*`: any run of characters) in priority order; pins
    /// that match nothing in the catalog are ignored.
    pub fn new(chars: usize, pinned: Vec<String>) -> Result<Self, CatalogError> {
        if chars == 0 {
            return Err(CatalogError::Budget("0".to_string()));
        }
        let pins = pinned.iter().map(|p| Pin::new(p)).collect();
        Ok(Self {
            chars,
            pinned,
            pins,
            preferred: Vec::new(),
            notice: Notice::default(),
        })
    }

    /// Skill names that keep their description right after the pins,
    /// highest priority first (the `prefer: 'used'` priority: the skills a
    /// registry loaded); names the catalog does not hold, and pinned ones,
    /// are ignored. Empty: as without this call.
    pub fn with_preferred(mut self, preferred: Vec<String>) -> Self {
        self.preferred = preferred;
        self
    }

    /// Names a search tool in the last line of a block that leaves skills
    /// out (`None`: the line of a harness without one). A name that is not
    /// [`is_tool_name`] is refused.
    pub fn with_search_tool(mut self, tool: Option<String>) -> Result<Self, CatalogError> {
        if let Some(name) = &tool {
            if !is_tool_name(name) {
                return Err(CatalogError::SearchTool(name.clone()));
            }
        }
        self.notice = Notice { search_tool: tool };
        Ok(self)
    }

    /// The names [`Budget::with_preferred`] gave.
    pub fn preferred(&self) -> &[String] {
        &self.preferred
    }

    /// Most UTF-16 units the entries block may take.
    pub fn chars(&self) -> usize {
        self.chars
    }

    /// Pinned names and globs, highest priority first.
    pub fn pinned(&self) -> &[String] {
        &self.pinned
    }
}

/// How one entry appears in the entries block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// As without a budget (`maxLength` still applies).
    Full,
    /// Description cut to this length (below `maxLength`).
    Cut(usize),
    /// `` - `NAME` ``.
    NameOnly,
    /// Left out (counted by the last line).
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
    notice: &'c Notice,
    /// The shape each entry starts from: `Full`, or `NameOnly` for one whose
    /// description is never shown (not even measured, [`described`]).
    initial: Vec<Shape>,
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
            self.notice.len(self.omitted)
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
            || (self.names_reach(group, budget) && self.give_way(group, Shape::NameOnly, budget))
            || self.give_way(group, Shape::Omitted, budget)
    }

    /// The largest common description length (at least
    /// [`MIN_SHORTENED_LENGTH`], below `maxLength`) at which the lines of
    /// `group` take at most `room` units; `None` when even the shortest does
    /// not fit, or `maxLength` leaves nothing to shorten.
    fn largest_cap(&self, group: &[usize], room: usize) -> Option<usize> {
        let max_len = self.catalog.max_len;
        let floor = MIN_SHORTENED_LENGTH;
        if floor >= max_len {
            return None;
        }
        let with_cap = |cap: usize| {
            group
                .iter()
                .map(|&i| 6 + self.catalog.items[i].0.len() + self.desc_len(i, cap))
                .sum::<usize>()
        };
        if with_cap(floor) > room {
            return None;
        }
        // Past the longest description nothing is cut, which does not fit.
        let longest = group.iter().map(|&i| self.descs[i].norm).max().unwrap_or(0);
        let (mut lo, mut hi) = (floor, (max_len - 1).min(longest.max(floor)));
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if with_cap(mid) <= room {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        Some(lo)
    }

    /// [`Layout::names_buy_reach`] for a group given way to in the whole
    /// block: without a search tool, or when the block fits with every entry
    /// of `group` name-only.
    fn names_reach(&self, group: &[usize], budget: usize) -> bool {
        let saved: usize = group
            .iter()
            .filter(|&&i| self.shapes[i] != Shape::Omitted)
            .map(|&i| self.line_len(i, self.shapes[i]) - self.line_len(i, Shape::NameOnly))
            .sum();
        self.notice.no_search_tool() || self.total() - saved <= budget
    }

    /// Step 1: the largest common description length that fits; when even the
    /// shortest does not, every description of `group` is left at it.
    fn shorten(&mut self, group: &[usize], budget: usize) -> bool {
        let lines: usize = group
            .iter()
            .map(|&i| self.line_len(i, self.shapes[i]))
            .sum();
        let others = self.total() - lines;
        match self.largest_cap(group, budget.saturating_sub(others)) {
            Some(cap) if others <= budget => {
                self.cut_to(group, cap);
                true
            }
            _ => {
                if MIN_SHORTENED_LENGTH < self.catalog.max_len {
                    self.cut_to(group, MIN_SHORTENED_LENGTH);
                }
                false
            }
        }
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
            out.push_str(&self.notice.text(self.omitted));
        }
        out
    }

    fn report(&self, chars: usize) -> CatalogReport {
        CatalogReport::of(self.catalog, &self.shapes, chars)
    }
}

/// The entries of `catalog` fitted into `budget` (see the module docs).
pub(super) fn render(catalog: &Catalog<'_>, budget: &Budget) -> Entries {
    render_shaped(catalog, budget).0
}

/// Units of the line of entry `i` in full, with its newline (descriptions
/// rendered to measure them: for the few pinned and preferred entries).
fn full_line(catalog: &Catalog<'_>, i: usize, scratch: &mut String) -> usize {
    let (name, description) = catalog.items[i];
    scratch.clear();
    push_description(scratch, description, catalog.max_len);
    7 + name.len() + utf16_len(scratch)
}

/// Which entries may show a description in the block: those of a source
/// whose lines by name only (each with its newline) fit the most room the
/// sources can share, `budget + 1` less the pinned and preferred lines in
/// full; of a bigger source, none when the budget names no search tool (it
/// ends with every entry name-only or left out), else the first entries in
/// name order whose shortest possible lines (a line of no description is
/// `- `NAME`: `) already exceed that room (the others are left out before
/// them). The others are neither rendered nor measured: a budget of 8,000
/// over 10,000 skills reads a few hundred descriptions, not 10,000.
fn described(catalog: &Catalog<'_>, groups: &Groups, budget: &Budget) -> Vec<bool> {
    let items = &catalog.items;
    let mut out = vec![true; items.len()];
    let mut scratch = String::new();
    let kept: usize = groups
        .pinned
        .iter()
        .chain(&groups.preferred)
        .map(|&i| full_line(catalog, i, &mut scratch))
        .sum();
    let room = budget.chars.saturating_add(1).saturating_sub(kept);
    for source in &groups.sources {
        let names: usize = source.iter().map(|&i| 5 + items[i].0.len()).sum();
        if names <= room {
            continue;
        }
        let mut keep = 0;
        if !budget.notice.no_search_tool() {
            let mut shortest = 0;
            while keep < source.len() && shortest <= room {
                shortest += 7 + items[source[keep]].0.len();
                keep += 1;
            }
        }
        for &i in &source[keep..] {
            out[i] = false;
        }
    }
    out
}

/// [`render`], and how each entry appears in the block.
pub(in crate::catalog) fn render_shaped(
    catalog: &Catalog<'_>,
    budget: &Budget,
) -> (Entries, Vec<Shape>) {
    let total = catalog.len();
    let items = &catalog.items;
    let groups = groups(catalog, &budget.pins, &budget.preferred);
    let described = described(catalog, &groups, budget);
    let all_described = described.iter().all(|&d| d);
    // The unbudgeted rendering of the described entries, each description
    // measured while it is fresh in cache.
    let mut full = String::with_capacity(if all_described {
        catalog.size_hint()
    } else {
        0
    });
    let mut spans = Vec::with_capacity(total);
    let mut descs = Vec::with_capacity(total);
    let mut initial = Vec::with_capacity(total);
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
            initial.push(Shape::NameOnly);
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
        initial.push(Shape::Full);
    }
    let full_chars = listed_len + total.saturating_sub(1);
    if all_described && full_chars <= budget.chars {
        let entries = Entries {
            text: full,
            report: CatalogReport::unbudgeted(catalog, full_chars),
        };
        return (entries, initial);
    }
    let mut layout = Layout {
        catalog,
        notice: &budget.notice,
        shapes: initial.clone(),
        initial,
        descs,
        escapes,
        listed_len,
        listed: total,
        omitted: 0,
    };
    let fits = layout.share(&groups, budget.chars);
    // When the sources are all left out and the block still does not fit,
    // the preferred skills give way, then the pinned ones.
    if !fits && !layout.degrade(&groups.preferred, budget.chars) {
        layout.degrade(&groups.pinned, budget.chars);
    }
    let chars = layout.total();
    let text = layout.write(&full, &spans);
    debug_assert_eq!(utf16_len(&text), chars);
    let entries = Entries {
        report: layout.report(chars),
        text,
    };
    (entries, layout.shapes)
}

#[cfg(test)]
mod tests;
