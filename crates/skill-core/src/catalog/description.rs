//! A skill's description as a catalog entry shows it: trimmed, JS whitespace runs
//! folded to one space, `&`, `<` and `>` escaped, cut at the maximum length
//! in UTF-16 units (with `...`), the same bytes as the TypeScript renderer.
//! Runs of plain ASCII are taken a block at a time.

use super::MIN_MAX_LENGTH;

/// Whether `c` is matched by the JavaScript regular expression class `\s`
/// (WhiteSpace plus LineTerminator; also the set `String.prototype.trim` removes).
/// Differs from [`char::is_whitespace`]: U+FEFF is included, U+0085 and U+180E are not.
pub const fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{000B}' | '\u{000C}' | '\r' | ' ' | '\u{00A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202F}'
                | '\u{205F}'
                | '\u{3000}'
                | '\u{FEFF}'
    )
}

/// Appends the escaped form of one description character.
#[inline]
pub(crate) fn push_escaped(out: &mut String, c: char) {
    match c {
        '&' => out.push_str("&amp;"),
        '<' => out.push_str("&lt;"),
        '>' => out.push_str("&gt;"),
        _ => out.push(c),
    }
}

/// Bytes copied verbatim: ASCII that is neither whitespace nor escaped.
const PLAIN: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 128 {
        table[b] = !matches!(b as u8, b'\t'..=b'\r' | b' ' | b'&' | b'<' | b'>');
        b += 1;
    }
    table
};

/// Bytes of a description taken at once inside a run of plain ASCII.
const BLOCK: usize = 32;

/// How many of the (at most [`BLOCK`]) bytes at the start of `window`
/// (which holds one more byte, the one after them) continue a run of plain
/// ASCII as the byte-wise loop would: printable ASCII (`0x20..=0x7e`) but no
/// `&`, `<` or `>`, and each space followed by a non-space printable byte (so
/// no run of whitespace, and no trailing space, is taken). Called only inside
/// a run, after a plain byte, so a space first is an inner space.
#[inline]
fn plain_prefix(window: &[u8; BLOCK + 1]) -> usize {
    blocked(window).trailing_zeros() as usize
}

/// One bit per byte of the block at the start of `window` that stops a run
/// (see [`plain_prefix`]): SSE2, which every x86-64 processor has, 16 bytes
/// per step.
#[cfg(target_arch = "x86_64")]
#[inline]
fn blocked(window: &[u8; BLOCK + 1]) -> u32 {
    // SAFETY: SSE2 is part of the x86-64 baseline: every x86-64 processor has it.
    unsafe { blocked_sse2(window) }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
#[inline]
fn blocked_sse2(window: &[u8; BLOCK + 1]) -> u32 {
    use core::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_cmpeq_epi8, _mm_cmpgt_epi8, _mm_cmplt_epi8, _mm_loadu_si128,
        _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
    };
    /// The 16 bytes of `window` from `at` (0, 1, 16 or 17).
    #[inline]
    #[target_feature(enable = "sse2")]
    fn load(window: &[u8; BLOCK + 1], at: usize) -> __m128i {
        debug_assert!(at + 16 <= window.len());
        // SAFETY: `at + 16 <= BLOCK + 1` for every caller below, so the 16
        // bytes are inside `window`; the load is unaligned.
        unsafe { _mm_loadu_si128(window.as_ptr().add(at).cast()) }
    }
    // Signed byte compares: bytes of 0x80 and above are negative, so they fail
    // `> 0x1f` and count as not printable.
    let half = |at: usize| {
        let b = load(window, at);
        let n = load(window, at + 1);
        let printable = _mm_and_si128(
            _mm_cmpgt_epi8(b, _mm_set1_epi8(0x1f)),
            _mm_cmplt_epi8(b, _mm_set1_epi8(0x7f)),
        );
        let escaped = _mm_or_si128(
            _mm_cmpeq_epi8(b, _mm_set1_epi8(b'&' as i8)),
            _mm_or_si128(
                _mm_cmpeq_epi8(b, _mm_set1_epi8(b'<' as i8)),
                _mm_cmpeq_epi8(b, _mm_set1_epi8(b'>' as i8)),
            ),
        );
        // A space is taken when the next byte is printable and not a space.
        let next_word = _mm_and_si128(
            _mm_cmpgt_epi8(n, _mm_set1_epi8(0x20)),
            _mm_cmplt_epi8(n, _mm_set1_epi8(0x7f)),
        );
        let space = _mm_cmpeq_epi8(b, _mm_set1_epi8(b' ' as i8));
        // Stops: not printable, escaped, or a space before no word.
        let stop = _mm_or_si128(
            _mm_cmpeq_epi8(printable, _mm_set1_epi8(0)),
            _mm_or_si128(
                escaped,
                _mm_and_si128(space, _mm_cmpeq_epi8(next_word, _mm_set1_epi8(0))),
            ),
        );
        _mm_movemask_epi8(stop) as u32 & 0xffff
    };
    half(0) | (half(16) << 16)
}

/// [`blocked`] without vector instructions: each byte tested without early
/// exits, so that the compiler may vectorise it.
#[cfg(not(target_arch = "x86_64"))]
#[inline]
fn blocked(window: &[u8; BLOCK + 1]) -> u32 {
    let mut bad = 0u32;
    for k in 0..BLOCK {
        let (b, n) = (window[k], window[k + 1]);
        let printable = b.wrapping_sub(0x20) < 0x5f;
        let escaped = (b == b'&') | (b == b'<') | (b == b'>');
        let lone_space = (b != b' ') | (n.wrapping_sub(0x21) < 0x5e);
        bad |= u32::from(!(printable & !escaped & lone_space)) << k;
    }
    bad
}

/// The window of [`plain_prefix`] at `i`: the bytes themselves, or near the
/// end a copy in `padded` filled up with NUL (which stops a run, as the end
/// does).
#[inline]
fn window_at<'a>(
    bytes: &'a [u8],
    i: usize,
    padded: &'a mut [u8; BLOCK + 1],
) -> Option<&'a [u8; BLOCK + 1]> {
    let rest = bytes.get(i..)?;
    if let Some(window) = rest.first_chunk::<{ BLOCK + 1 }>() {
        return Some(window);
    }
    if rest.len() < 2 {
        // Nothing a block would take that the byte-wise loop does not.
        return None;
    }
    padded.fill(0);
    padded[..rest.len()].copy_from_slice(rest);
    Some(padded)
}

/// Cut state of one description: UTF-16 units written so far (of the
/// normalised, unescaped text) and the output position after `keep` units.
struct Cutter {
    keep: usize,
    max_len: usize,
    units: usize,
    /// Output length after exactly `keep` units, and whether the character
    /// crossing `keep` was a surrogate pair (JS keeps its high half there).
    cut: Option<(usize, bool)>,
}

impl Cutter {
    /// Records one character of `width` units about to be written at `at`
    /// (output length before it) ending at `end`; true when the text is now known
    /// to be longer than `max_len`.
    #[inline]
    fn advance(&mut self, at: usize, end: usize, width: usize) -> bool {
        if self.cut.is_none() && self.units + width >= self.keep {
            self.cut = Some(if self.units + width == self.keep {
                (end, false)
            } else {
                (at, true)
            });
        }
        self.units += width;
        self.units > self.max_len
    }

    /// Ends a description that turned out longer than `max_len`.
    fn finish_cut(&self, out: &mut String, start: usize) {
        let (at, split_pair) = self.cut.unwrap_or((start, false));
        out.truncate(at);
        if split_pair {
            out.push('\u{FFFD}');
        }
        out.push_str("...");
    }
}

/// Appends the normalised, cut and escaped `description` to `out` (the
/// DESCRIPTION part of an entry). `max_len` must be at least [`MIN_MAX_LENGTH`].
///
/// One pass: whitespace runs are held back as one pending space and only written
/// before a following non-space (which trims both ends); UTF-16 units of the
/// normalised text are counted as characters are written, the output position at
/// `max_len - 3` units is remembered, and the scan stops as soon as the text is
/// known to be longer than `max_len`. Runs of plain ASCII (with single spaces
/// inside) are copied at once.
pub fn push_description(out: &mut String, description: &str, max_len: usize) {
    let max_len = max_len.max(MIN_MAX_LENGTH);
    let keep = max_len - 3;
    let start = out.len();
    let mut cutter = Cutter {
        keep,
        max_len,
        units: 0,
        cut: if keep == 0 {
            Some((start, false))
        } else {
            None
        },
    };
    let mut pending_space = false;
    let mut padded = [0u8; BLOCK + 1];
    let bytes = description.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if PLAIN[b as usize] {
            // A run of plain ASCII, single spaces between plain bytes included
            // (they are already normalised).
            let run_start = i;
            i += 1;
            while i < bytes.len() {
                // Whole blocks of printable ASCII first (see `plain_prefix`),
                // up to the first byte that needs a closer look.
                while let Some(window) = window_at(bytes, i, &mut padded) {
                    let taken = plain_prefix(window);
                    i += taken;
                    if taken < BLOCK {
                        break;
                    }
                }
                if i >= bytes.len() {
                    break;
                }
                if PLAIN[bytes[i] as usize] {
                    i += 1;
                } else if bytes[i] == b' ' && i + 1 < bytes.len() && PLAIN[bytes[i + 1] as usize] {
                    i += 2;
                } else {
                    break;
                }
            }
            if pending_space {
                pending_space = false;
                let at = out.len();
                out.push(' ');
                if cutter.advance(at, at + 1, 1) {
                    cutter.finish_cut(out, start);
                    return;
                }
            }
            // ASCII: one byte is one unit, and run bounds are char boundaries.
            let run = &description[run_start..i];
            let n = run.len();
            if cutter.units + n > max_len {
                match cutter.cut {
                    Some(_) => cutter.finish_cut(out, start),
                    None => {
                        out.push_str(&run[..keep - cutter.units]);
                        out.push_str("...");
                    }
                }
                return;
            }
            if cutter.cut.is_none() && cutter.units + n >= keep {
                cutter.cut = Some((out.len() + (keep - cutter.units), false));
            }
            out.push_str(run);
            cutter.units += n;
            continue;
        }
        let (c, len) = if b < 0x80 {
            (b as char, 1)
        } else {
            // `i` is on a character boundary: it only advances by whole characters.
            match description[i..].chars().next() {
                Some(c) => (c, c.len_utf8()),
                None => break,
            }
        };
        i += len;
        if is_js_whitespace(c) {
            pending_space = cutter.units > 0;
            continue;
        }
        if pending_space {
            pending_space = false;
            let at = out.len();
            out.push(' ');
            if cutter.advance(at, at + 1, 1) {
                cutter.finish_cut(out, start);
                return;
            }
        }
        let at = out.len();
        push_escaped(out, c);
        if cutter.advance(at, out.len(), c.len_utf16()) {
            cutter.finish_cut(out, start);
            return;
        }
    }
}

/// Number of UTF-16 code units of `text` (JS `.length`).
pub fn utf16_len(text: &str) -> usize {
    if text.is_ascii() {
        return text.len();
    }
    // One unit per character, two for the four-byte (non-BMP) ones.
    text.bytes()
        .map(|b| usize::from(b & 0xc0 != 0x80) + usize::from(b >= 0xf0))
        .sum()
}
