//! The fast reader for the shape almost every skill file has.
//!
//! It reads a top-level block mapping whose keys are simple words (`name`,
//! `user-invocable`, `a_b.c`, `1`) and whose values are
//! - plain scalars on one line (`text`, `3`, `true`, `~`, `a # comment`),
//! - single- or double-quoted scalars on one line (common escapes),
//! - literal or folded block scalars (`|`, `>`, with `-`/`+` chomping),
//! - flow sequences of simple words or quoted strings (`[a, "b c", 3]`),
//! - one nested level: a block mapping or block sequence of the above
//!   one-line scalars (a simple `metadata` map).
//!
//! Anything else (tabs, control or line-break characters other than `\n`,
//! multi-line plain or quoted scalars, anchors, tags, comments inside nested
//! blocks, duplicate keys, deeper nesting, ...) makes it return `None` and the
//! caller uses the full composer. When it returns a value, that value is
//! exactly the one the composer gives (the property tests check it).

use super::compose::MAX_NODES;
use super::scalar::{resolve_plain, KeyId, Scalar};
use super::value::Value;
use std::borrow::Cow;
use std::collections::HashSet;

/// Most lines the fast reader takes (it indexes them); longer frontmatter
/// (not the common shape) goes to the composer.
const MAX_LINES: usize = 16_384;

/// Read `yaml` if it has the common shape.
pub fn parse(yaml: &str) -> Option<Value<'_>> {
    let content = yaml.strip_suffix('\n')?;
    // The line count first: a vectorised search that stops at the first line
    // too many, before the byte-by-byte check.
    let too_long = memchr::memchr_iter(b'\n', yaml.as_bytes())
        .nth(MAX_LINES)
        .is_some();
    if too_long || !simple_text(yaml.as_bytes()) {
        return None;
    }
    let lines = content
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let mut reader = Reader {
        lines,
        pos: 0,
        nodes: 1,
    };
    let pairs = reader.mapping(0)?;
    if pairs.is_empty() || reader.pos != reader.lines.len() {
        return None;
    }
    Some(Value::Map(pairs))
}

/// No tab, no control character (`\r` only before `\n`), none of the
/// characters YAML treats specially (NEL, LS, PS, BOM, non-characters).
fn simple_text(b: &[u8]) -> bool {
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\n' | 0x20..=0x7e => {}
            b'\r' if b.get(i + 1) == Some(&b'\n') => {}
            // C1 controls (U+0080..U+009F, NEL included).
            0xc2 if matches!(b.get(i + 1), Some(0x80..=0x9f)) => return false,
            // U+2028, U+2029.
            0xe2 if b.get(i + 1) == Some(&0x80) && matches!(b.get(i + 2), Some(0xa8 | 0xa9)) => {
                return false
            }
            // U+FEFF, U+FFFE, U+FFFF.
            0xef if b.get(i + 1) == Some(&0xbb) && b.get(i + 2) == Some(&0xbf) => return false,
            0xef if b.get(i + 1) == Some(&0xbf) && matches!(b.get(i + 2), Some(0xbe | 0xbf)) => {
                return false
            }
            0x80..=0xff => {}
            _ => return false,
        }
        i += 1;
    }
    true
}

struct Reader<'a> {
    lines: Vec<&'a str>,
    pos: usize,
    /// Nodes read so far, counted as the composer counts them.
    nodes: usize,
}

fn indentation(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// The identity of a key for the uniqueness rule, borrowing the key's text.
fn key_id<'a>(text: &'a str, key: &Scalar<'_>) -> Option<KeyId<'a>> {
    match key {
        Scalar::Str(_) => Some(KeyId::Str(text)),
        Scalar::Null => Some(KeyId::Null),
        Scalar::Bool(b) => Some(KeyId::Bool(*b)),
        Scalar::Number(n) if n.is_nan() => None,
        Scalar::Number(n) => Some(KeyId::Number((n + 0.0).to_bits())),
        Scalar::Other(_) => None,
    }
}

/// `key:` followed by the end of the line or a space: the key and the rest.
fn split_key(rest: &str) -> Option<(&str, &str)> {
    let b = rest.as_bytes();
    let first = *b.first()?;
    if !(first.is_ascii_alphanumeric() || first == b'_' || first == b'.') {
        return None;
    }
    let end = b
        .iter()
        .position(|c| !(c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-')))?;
    // An implicit key may not be longer than 1024 characters.
    if end > 1024 || b[end] != b':' || !matches!(b.get(end + 1), None | Some(b' ')) {
        return None;
    }
    Some((&rest[..end], &rest[end + 1..]))
}

/// After a quoted scalar or a flow sequence: nothing, or spaces and a comment.
fn trailing_ok(rest: &str) -> bool {
    if rest.is_empty() {
        return true;
    }
    let trimmed = rest.trim_start_matches(' ');
    trimmed.len() < rest.len() && (trimmed.is_empty() || trimmed.starts_with('#'))
}

impl<'a> Reader<'a> {
    fn count(&mut self, n: usize) -> Option<()> {
        self.nodes += n;
        (self.nodes <= MAX_NODES).then_some(())
    }

    /// A block mapping whose keys sit at column `indent`.
    fn mapping(&mut self, indent: usize) -> Option<Vec<(Value<'a>, Value<'a>)>> {
        let mut pairs = Vec::new();
        let mut seen: HashSet<_, foldhash::fast::RandomState> = HashSet::default();
        while let Some(&line) = self.lines.get(self.pos) {
            if line.is_empty() {
                self.pos += 1;
                continue;
            }
            let ind = indentation(line);
            if ind == line.len() {
                return None;
            }
            if indent == 0 && line.starts_with('#') {
                self.pos += 1;
                continue;
            }
            if ind < indent {
                break;
            }
            if ind > indent {
                return None;
            }
            let (key_text, after) = split_key(&line[ind..])?;
            let key = resolve_plain(Cow::Borrowed(key_text));
            if let Some(id) = key_id(key_text, &key) {
                if !seen.insert(id) {
                    return None;
                }
            }
            self.count(1)?;
            self.pos += 1;
            let value = self.value(after, indent)?;
            pairs.push((Value::Scalar(key), value));
        }
        Some(pairs)
    }

    /// The value after `key:` (`after` starts after the colon).
    fn value(&mut self, after: &'a str, indent: usize) -> Option<Value<'a>> {
        let top = indent == 0;
        let text = after.trim_start_matches(' ');
        if text.is_empty() || text.starts_with('#') {
            return self.nested(top, indent);
        }
        match text.as_bytes()[0] {
            b'|' | b'>' if top => {
                self.count(1)?;
                self.block_scalar(text)
                    .map(|s| Value::Scalar(Scalar::Str(Cow::Owned(s))))
            }
            b'[' => self.flow_sequence(text),
            _ => {
                self.count(1)?;
                inline_scalar(text).map(Value::Scalar)
            }
        }
    }

    /// `key:` with nothing after it: a null, or (below the top level only) a
    /// nested block mapping or sequence on the following, indented lines.
    fn nested(&mut self, top: bool, indent: usize) -> Option<Value<'a>> {
        let mut p = self.pos;
        while self.lines.get(p).is_some_and(|l| l.is_empty()) {
            p += 1;
        }
        let Some(&line) = self.lines.get(p) else {
            self.count(1)?;
            return Some(Value::Scalar(Scalar::Null));
        };
        let ind = indentation(line);
        if ind <= indent {
            self.count(1)?;
            return Some(Value::Scalar(Scalar::Null));
        }
        if !top {
            return None;
        }
        let rest = &line[ind..];
        if rest.starts_with('#') || rest.is_empty() {
            return None;
        }
        self.count(1)?;
        if rest == "-" || rest.starts_with("- ") {
            self.sequence(ind).map(Value::Seq)
        } else {
            let pairs = self.mapping(ind)?;
            (!pairs.is_empty()).then_some(Value::Map(pairs))
        }
    }

    /// A block sequence of one-line scalars whose dashes sit at `indent`.
    fn sequence(&mut self, indent: usize) -> Option<Vec<Value<'a>>> {
        let mut items = Vec::new();
        while let Some(&line) = self.lines.get(self.pos) {
            if line.is_empty() {
                self.pos += 1;
                continue;
            }
            let ind = indentation(line);
            if ind == line.len() || ind > indent {
                return None;
            }
            if ind < indent {
                break;
            }
            let text = line[ind..].strip_prefix("- ")?.trim_start_matches(' ');
            if text.is_empty() || text.starts_with('#') || text.starts_with('[') {
                return None;
            }
            self.pos += 1;
            self.count(1)?;
            items.push(Value::Scalar(inline_scalar(text)?));
        }
        Some(items)
    }

    /// `[a, "b", 'c']` on one line: simple words or quoted strings without
    /// escapes.
    fn flow_sequence(&mut self, text: &'a str) -> Option<Value<'a>> {
        let close = text.find(']')?;
        let inner = &text[1..close];
        if !trailing_ok(&text[close + 1..]) || inner.contains(['[', '{', '}']) {
            return None;
        }
        self.count(1)?;
        let mut items = Vec::new();
        if !inner.trim_matches(' ').is_empty() {
            for item in inner.split(',') {
                let item = item.trim_matches(' ');
                self.count(1)?;
                items.push(Value::Scalar(flow_item(item)?));
            }
        }
        Some(Value::Seq(items))
    }

    /// A literal or folded block scalar whose header is `text`; its content
    /// is on the following lines, indented.
    fn block_scalar(&mut self, text: &str) -> Option<String> {
        let header = text.trim_end_matches(' ');
        let (folded, chomp) = match header {
            "|" => (false, Chomp::Clip),
            "|-" => (false, Chomp::Strip),
            "|+" => (false, Chomp::Keep),
            ">" => (true, Chomp::Clip),
            ">-" => (true, Chomp::Strip),
            ">+" => (true, Chomp::Keep),
            _ => return None,
        };
        let start = self.pos;
        let mut end = start;
        while self
            .lines
            .get(end)
            .is_some_and(|l| l.is_empty() || l.starts_with(' '))
        {
            end += 1;
        }
        self.pos = end;
        let region = &self.lines[start..end];
        let first = region.iter().position(|l| !l.is_empty())?;
        let last = region.iter().rposition(|l| !l.is_empty())?;
        let indent = indentation(region[first]);
        for line in &region[first..=last] {
            if line.is_empty() {
                continue;
            }
            let ind = indentation(line);
            if ind == line.len() || ind < indent || (folded && ind != indent) {
                return None;
            }
        }
        let mut out = "\n".repeat(first);
        let mut blank_run = 0usize;
        let mut started = false;
        for line in &region[first..=last] {
            if line.is_empty() {
                blank_run += 1;
                continue;
            }
            if started {
                if folded && blank_run == 0 {
                    out.push(' ');
                } else if folded {
                    out.push_str(&"\n".repeat(blank_run));
                } else {
                    out.push_str(&"\n".repeat(blank_run + 1));
                }
            }
            started = true;
            blank_run = 0;
            out.push_str(&line[indent..]);
        }
        let trailing = region.len() - 1 - last;
        match chomp {
            Chomp::Clip => out.push('\n'),
            Chomp::Strip => {}
            Chomp::Keep => out.push_str(&"\n".repeat(trailing + 1)),
        }
        Some(out)
    }
}

enum Chomp {
    Clip,
    Strip,
    Keep,
}

/// A plain, single-quoted or double-quoted scalar that ends on this line.
fn inline_scalar(text: &str) -> Option<Scalar<'_>> {
    match text.as_bytes()[0] {
        b'"' => {
            let (s, rest) = double_quoted(text)?;
            trailing_ok(rest).then_some(Scalar::Str(s))
        }
        b'\'' => {
            let (s, rest) = single_quoted(text)?;
            trailing_ok(rest).then_some(Scalar::Str(s))
        }
        _ => plain(text),
    }
}

/// A plain scalar in block context, up to a ` #` comment.
fn plain(text: &str) -> Option<Scalar<'_>> {
    let b = text.as_bytes();
    match b[0] {
        b',' | b'[' | b']' | b'{' | b'}' | b'#' | b'&' | b'*' | b'!' | b'|' | b'>' | b'\''
        | b'"' | b'%' | b'@' | b'`' | b'?' | b':' => return None,
        b'-' if matches!(b.get(1), None | Some(b' ')) => return None,
        _ => {}
    }
    let content = match text.find(" #") {
        Some(i) => &text[..i],
        None => text,
    };
    let content = content.trim_end_matches(' ');
    if content.contains(": ") || content.ends_with(':') {
        return None;
    }
    Some(resolve_plain(Cow::Borrowed(content)))
}

/// An item of a one-line flow sequence.
fn flow_item(item: &str) -> Option<Scalar<'_>> {
    let b = item.as_bytes();
    let quoted = |q: u8| {
        (b.len() >= 2
            && b[b.len() - 1] == q
            && !item[1..item.len() - 1].contains([q as char, '\\']))
        .then(|| Scalar::Str(Cow::Borrowed(&item[1..item.len() - 1])))
    };
    match *b.first()? {
        b'"' => quoted(b'"'),
        b'\'' => quoted(b'\''),
        b'-' if matches!(b.get(1), None | Some(b' ')) => None,
        b'+' | b'.' | b'-' | b'_' | b'/' => simple_word(item),
        c if c.is_ascii_alphanumeric() || c >= 0x80 => simple_word(item),
        _ => None,
    }
}

fn simple_word(item: &str) -> Option<Scalar<'_>> {
    // A `-` right before the `,` or `]` that ends the item is an error for
    // the YAML parser.
    if item.ends_with('-') {
        return None;
    }
    item.bytes()
        .all(|c| {
            c.is_ascii_alphanumeric()
                || c >= 0x80
                || matches!(c, b' ' | b'-' | b'_' | b'.' | b'/' | b'+')
        })
        .then(|| resolve_plain(Cow::Borrowed(item)))
}

/// `'...'` on one line (`''` is a quote): the value and the text after it.
fn single_quoted(text: &str) -> Option<(Cow<'_, str>, &str)> {
    let body = &text[1..];
    let mut owned: Option<String> = None;
    let mut i = 0;
    let b = body.as_bytes();
    while i < b.len() {
        if b[i] == b'\'' {
            if b.get(i + 1) == Some(&b'\'') {
                let s = owned.get_or_insert_with(String::new);
                if s.is_empty() {
                    s.push_str(&body[..i]);
                }
                s.push('\'');
                i += 2;
                continue;
            }
            let value = match owned {
                Some(s) => Cow::Owned(s),
                None => Cow::Borrowed(&body[..i]),
            };
            return Some((value, &body[i + 1..]));
        }
        let len = utf8_len(b[i]);
        if let Some(s) = owned.as_mut() {
            s.push_str(&body[i..i + len]);
        }
        i += len;
    }
    None
}

/// `"..."` on one line with the usual escapes: the value and the text after.
fn double_quoted(text: &str) -> Option<(Cow<'_, str>, &str)> {
    let body = &text[1..];
    let b = body.as_bytes();
    let first_special = b.iter().position(|c| *c == b'"' || *c == b'\\')?;
    if b[first_special] == b'"' {
        return Some((
            Cow::Borrowed(&body[..first_special]),
            &body[first_special + 1..],
        ));
    }
    let mut out = String::from(&body[..first_special]);
    let mut i = first_special;
    while i < b.len() {
        match b[i] {
            b'"' => return Some((Cow::Owned(out), &body[i + 1..])),
            b'\\' => {
                let c = match *b.get(i + 1)? {
                    b'0' => '\0',
                    b'a' => '\u{7}',
                    b'b' => '\u{8}',
                    b't' => '\t',
                    b'n' => '\n',
                    b'v' => '\u{b}',
                    b'f' => '\u{c}',
                    b'r' => '\r',
                    b'e' => '\u{1b}',
                    b' ' => ' ',
                    b'"' => '"',
                    b'/' => '/',
                    b'\\' => '\\',
                    b'N' => '\u{85}',
                    b'_' => '\u{a0}',
                    b'L' => '\u{2028}',
                    b'P' => '\u{2029}',
                    b'x' | b'u' | b'U' => {
                        let digits = match b[i + 1] {
                            b'x' => 2,
                            b'u' => 4,
                            _ => 8,
                        };
                        let hex = body.get(i + 2..i + 2 + digits)?;
                        if !hex.bytes().all(|c| c.is_ascii_hexdigit()) {
                            return None;
                        }
                        let c = char::from_u32(u32::from_str_radix(hex, 16).ok()?)?;
                        out.push(c);
                        i += 2 + digits;
                        continue;
                    }
                    _ => return None,
                };
                out.push(c);
                i += 2;
            }
            c => {
                let len = utf8_len(c);
                out.push_str(&body[i..i + len]);
                i += len;
            }
        }
    }
    None
}

fn utf8_len(first: u8) -> usize {
    match first {
        0x00..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        _ => 4,
    }
}
