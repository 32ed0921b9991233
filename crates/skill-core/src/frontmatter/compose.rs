//! The full YAML path: `saphyr-parser` events composed into values under a
//! budget.
//!
//! The composer keeps the document as written (aliases are references, not
//! copies) and tracks, for every node, how large it is once every alias is
//! expanded. Work and memory are linear in the input: the expanded document
//! may hold at most [`MAX_NODES`] nodes, [`MAX_BYTES`] bytes of scalar text
//! (or the frontmatter's own length when that is larger) and nest at most
//! [`MAX_DEPTH`] collections deep; past any of these the parse stops at once.
//!
//! On top of that it applies the rules of the JS `yaml` package's `parse`
//! (YAML 1.2, core schema, default options): duplicate keys are an error
//! (keys compare by their resolved value), an alias may not be expanded more
//! often than that package's `maxAliasCount` (100) allows, a stream holding
//! more than one document is an error.

use super::mask::{mask, needs_mask, StandIns};
use super::scalar::{resolve_plain, resolve_tagged, KeyId, Scalar};
use super::value::Value;
use super::FrontmatterError;
use saphyr_parser::{Event, Marker, Parser, ScalarStyle, ScanError, Tag};
use std::borrow::Cow;
use std::collections::HashSet;

/// Most nodes the expanded frontmatter may hold.
pub const MAX_NODES: usize = 20_000;
/// Most bytes of scalar text the expanded frontmatter may hold (unless the
/// frontmatter itself is longer: text that is written out is never refused).
pub const MAX_BYTES: usize = 4 * 1024 * 1024;
/// Deepest collection nesting, aliases expanded.
pub const MAX_DEPTH: usize = 128;
/// The JS `yaml` package's default `maxAliasCount`.
const MAX_ALIAS_COUNT: u64 = 100;
/// Most directives (`%TAG`, `%YAML`, reserved) before the document: the
/// parser keeps each `%TAG` in a map, and tens of thousands of them cost more
/// than a whole document within the budget.
pub const MAX_DIRECTIVES: usize = 1000;

/// Compose `yaml` (the text between the `---` lines) into a value. `line_offset`
/// is added to line numbers in messages (the frontmatter starts on line 2).
pub fn compose(yaml: &str, line_offset: usize) -> Result<Value<'_>, FrontmatterError> {
    check_directive_count(yaml)?;
    // U+FEFF after the start, a lone carriage return and U+0000 are content
    // for the JS package where the scanner would not read them so: the
    // scanner reads stand-ins for them (`mask`).
    if !needs_mask(yaml) {
        return compose_tabs(yaml, line_offset);
    }
    let stand_ins = StandIns::unused_in(yaml);
    let (masked, inserted) = mask(yaml, &stand_ins, true);
    let value = match compose_tabs_with(&masked, line_offset, &inserted) {
        Ok(value) => value.into_owned_with(&|s: &str| stand_ins.restore(s)),
        // A space put in beside a carriage return lies inside a scalar
        // (where the return is plain content): read the returns as content
        // only.
        Err(Failure::MaskedInScalar) if !inserted.is_empty() => {
            let (masked, _) = mask(yaml, &stand_ins, false);
            compose_tabs_with(&masked, line_offset, &[])
                .map_err(Failure::into_error)?
                .into_owned_with(&|s: &str| stand_ins.restore(s))
        }
        Err(e) => return Err(e.into_error()),
    };
    Ok(value)
}

/// Refuse more than [`MAX_DIRECTIVES`] directives.
fn check_directive_count(yaml: &str) -> Result<(), FrontmatterError> {
    if directive_lines(yaml).nth(MAX_DIRECTIVES).is_some() {
        return Err(FrontmatterError::Yaml(format!(
            "more than {MAX_DIRECTIVES} directives (`%` lines) before the document"
        )));
    }
    Ok(())
}

/// The byte offsets of the directives: the lines starting with `%` before
/// the document's `---` line (every line, when there is none: a `%` line
/// there is an error or, at the top of a block scalar, text of a document
/// that is not a mapping, refused either way). Only line starts are looked
/// at, found by vectorised searches rather than line by line.
pub(super) fn directive_lines(yaml: &str) -> impl Iterator<Item = usize> + '_ {
    let bytes = yaml.as_bytes();
    let document_start = line_starts(bytes, b"---")
        .find(|&at| is_marker_end(bytes.get(at + 3)))
        .unwrap_or(bytes.len());
    line_starts(bytes, b"%").take_while(move |&at| at < document_start)
}

/// The byte offsets of the lines of `bytes` that are a `...` marker (alone
/// or followed by a space, tab or carriage return).
pub(super) fn marker_lines(bytes: &[u8]) -> impl Iterator<Item = usize> + '_ {
    line_starts(bytes, b"...").filter(|&at| is_marker_end(bytes.get(at + 3)))
}

/// The byte offsets of the lines of `bytes` that start with `prefix`, in
/// order.
fn line_starts<'a>(bytes: &'a [u8], prefix: &'a [u8]) -> impl Iterator<Item = usize> + 'a {
    let first = bytes.starts_with(prefix).then_some(0);
    let mut needle = Vec::with_capacity(prefix.len() + 1);
    needle.push(b'\n');
    needle.extend_from_slice(prefix);
    let finder = memchr::memmem::Finder::new(&needle).into_owned();
    let mut from = 0usize;
    first.into_iter().chain(std::iter::from_fn(move || {
        let found = finder.find(bytes.get(from..)?)?;
        let at = from + found + 1;
        from = at;
        Some(at)
    }))
}

/// Whether the byte after a `---` or `...` at the start of a line (`None`:
/// the end) makes it a document marker.
fn is_marker_end(next: Option<&u8>) -> bool {
    matches!(next, None | Some(b'\n' | b' ' | b'\t' | b'\r'))
}

/// The byte offset of the character at `index` (the scanner counts
/// characters), if there is one.
fn byte_offset(yaml: &str, index: usize) -> Option<usize> {
    if yaml.is_ascii() {
        return (index < yaml.len()).then_some(index);
    }
    yaml.char_indices().nth(index).map(|(i, _)| i)
}

/// [`compose_tabs_with`] with nothing protected.
fn compose_tabs(yaml: &str, line_offset: usize) -> Result<Value<'_>, FrontmatterError> {
    compose_tabs_with(yaml, line_offset, &[]).map_err(Failure::into_error)
}

/// Tabs right after a `:` separate a key from its value (YAML 1.2, and the JS
/// package reads them so), but the scanner refuses `key:<TAB>value`. Read
/// them as spaces; if a replaced tab turns out to lie inside a scalar (where
/// it is content), read the text as written instead. `protected` (sorted
/// character indices) must not lie inside a scalar either: if one does, the
/// failure is returned for the caller to retry without them.
fn compose_tabs_with<'a>(
    yaml: &'a str,
    line_offset: usize,
    protected: &[usize],
) -> Result<Value<'a>, Failure> {
    if !yaml.contains(":\t") {
        return compose_text(yaml, line_offset, protected);
    }
    let mut masked = String::with_capacity(yaml.len());
    let mut replaced = Vec::new();
    let mut after_colon = false;
    for (index, c) in yaml.chars().enumerate() {
        if c == '\t' && after_colon {
            replaced.push(index);
            masked.push(' ');
            continue;
        }
        after_colon = c == ':';
        masked.push(c);
    }
    let tabs = replaced.len();
    if !protected.is_empty() {
        replaced.extend_from_slice(protected);
        replaced.sort_unstable();
    }
    match compose_text(&masked, line_offset, &replaced) {
        Err(Failure::MaskedInScalar) if tabs > 0 => compose_text(yaml, line_offset, protected),
        Ok(value) => Ok(value.into_owned_with(&str::to_string)),
        Err(e) => Err(e),
    }
}

/// Why composing stopped.
enum Failure {
    Error(FrontmatterError),
    /// A tab read as a space, or a space put in beside a carriage return,
    /// lies inside a scalar.
    MaskedInScalar,
}

impl Failure {
    fn into_error(self) -> FrontmatterError {
        match self {
            Failure::Error(e) => e,
            Failure::MaskedInScalar => {
                FrontmatterError::Yaml("tab after `:` inside a scalar".into())
            }
        }
    }
}

impl From<FrontmatterError> for Failure {
    fn from(e: FrontmatterError) -> Self {
        Failure::Error(e)
    }
}

/// Compose `yaml`; `replaced` holds the (sorted) character indices of tabs
/// read as spaces, which must not fall inside a scalar.
fn compose_text<'a>(
    yaml: &'a str,
    line_offset: usize,
    replaced: &[usize],
) -> Result<Value<'a>, Failure> {
    let mut next_replaced = 0usize;
    let mut c = Composer {
        nodes: Vec::new(),
        stack: Vec::new(),
        anchors: Vec::new(),
        total_nodes: 0,
        total_bytes: 0,
        max_bytes: MAX_BYTES.max(yaml.len()),
        line_offset,
    };
    let mut parser = Parser::new_from_str(yaml);
    let mut root = None;
    let mut documents = 0usize;
    while let Some(next) = parser.next_event() {
        let (event, span) = next.map_err(|e| c.scan_error(&e))?;
        let mark = span.start;
        let done = match event {
            Event::StreamEnd => break,
            Event::StreamStart | Event::Nothing => None,
            Event::DocumentEnd => {
                c.check_after_document_end(yaml, span.start)?;
                None
            }
            Event::DocumentStart(explicit) => {
                documents += 1;
                if documents > 1 {
                    return Err(c
                        .error(
                            "the frontmatter holds more than one YAML document".into(),
                            mark,
                        )
                        .into());
                }
                if explicit {
                    c.check_directives(yaml, mark)?;
                } else {
                    c.check_before_document(yaml, mark)?;
                }
                None
            }
            Event::Scalar(text, style, anchor, tag) => {
                while replaced
                    .get(next_replaced)
                    .is_some_and(|i| *i < span.start.index())
                {
                    next_replaced += 1;
                }
                if replaced
                    .get(next_replaced)
                    .is_some_and(|i| *i < span.end.index())
                {
                    return Err(Failure::MaskedInScalar);
                }
                Some(c.scalar(text, style, anchor, tag, mark)?)
            }
            Event::Alias(anchor) => Some(c.alias(anchor, mark)?),
            Event::SequenceStart(anchor, _) => {
                c.open(false, anchor, mark)?;
                None
            }
            Event::MappingStart(anchor, _) => {
                c.open(true, anchor, mark)?;
                None
            }
            Event::SequenceEnd | Event::MappingEnd => Some(c.close()?),
        };
        if let Some(index) = done {
            match c.stack.last_mut() {
                Some(frame) => frame.items.push(index),
                None => root = Some(index),
            }
        }
    }
    Ok(match root {
        Some(index) => c.expand(index),
        None => Value::Scalar(Scalar::Null),
    })
}

/// A node as written (kept small: the budget allows 20,000 of them).
struct Node<'a> {
    kind: Kind<'a>,
    /// Nodes once every alias inside is expanded (this one included; at most
    /// the budget).
    size: u32,
    /// Bytes of scalar text once every alias inside is expanded (capped).
    bytes: u32,
    /// Collection nesting once expanded (0 for a scalar; at most 128).
    depth: u16,
    /// Where it starts (line, 0-based column), for messages.
    line: u32,
    col: u32,
}

fn small(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

enum Kind<'a> {
    Scalar(Scalar<'a>),
    /// An alias, by anchor id.
    Alias(usize),
    Seq(Vec<u32>),
    /// Keys and values, alternating.
    Map(Vec<u32>),
}

/// An open collection.
struct Frame {
    map: bool,
    anchor: usize,
    items: Vec<u32>,
    mark: Marker,
}

/// What the JS package tracks per anchor to limit alias expansion.
struct Anchor {
    /// The anchored node; `None` while it is still open.
    node: Option<u32>,
    /// Times the anchored value was produced (1 + aliases so far).
    count: u64,
    /// The package's "alias count" of the anchored node, once computed.
    alias_count: Option<u64>,
}

struct Composer<'a> {
    nodes: Vec<Node<'a>>,
    stack: Vec<Frame>,
    anchors: Vec<Option<Anchor>>,
    total_nodes: usize,
    total_bytes: usize,
    max_bytes: usize,
    line_offset: usize,
}

impl<'a> Composer<'a> {
    fn error(&self, message: String, mark: Marker) -> FrontmatterError {
        FrontmatterError::Yaml(format!(
            "{message} at line {} column {}",
            mark.line() + self.line_offset,
            mark.col() + 1
        ))
    }

    fn scan_error(&self, e: &ScanError) -> FrontmatterError {
        // The scanner stops at 255 open flow collections, before the
        // composer sees the 129th.
        let info = match e.info() {
            "recursion limit exceeded" => {
                format!("collections nest deeper than {MAX_DEPTH} levels")
            }
            other => other.to_string(),
        };
        self.error(info, *e.marker())
    }

    /// Count an expanded addition against the budget.
    fn spend(&mut self, nodes: usize, bytes: usize) -> Result<(), FrontmatterError> {
        self.total_nodes = self.total_nodes.saturating_add(nodes);
        self.total_bytes = self.total_bytes.saturating_add(bytes);
        if self.total_nodes > MAX_NODES {
            return Err(FrontmatterError::Expands(format!("{MAX_NODES} nodes")));
        }
        if self.total_bytes > self.max_bytes {
            return Err(FrontmatterError::Expands(format!(
                "{} bytes of text",
                self.max_bytes
            )));
        }
        Ok(())
    }

    fn push(&mut self, node: Node<'a>) -> u32 {
        let index = u32::try_from(self.nodes.len()).unwrap_or(u32::MAX);
        self.nodes.push(node);
        index
    }

    fn register(&mut self, anchor: usize, node: Option<u32>) {
        if anchor == 0 {
            return;
        }
        if self.anchors.len() <= anchor {
            self.anchors.resize_with(anchor + 1, || None);
        }
        self.anchors[anchor] = Some(Anchor {
            node,
            count: 1,
            alias_count: None,
        });
    }

    fn mark(&self, node: &Node<'_>) -> Marker {
        Marker::new(0, node.line as usize, node.col as usize)
    }

    fn scalar(
        &mut self,
        text: Cow<'a, str>,
        style: ScalarStyle,
        anchor: usize,
        tag: Option<Cow<'_, Tag>>,
        mark: Marker,
    ) -> Result<u32, FrontmatterError> {
        let bytes = text.len();
        self.spend(1, bytes)?;
        let value = match tag {
            Some(tag) => {
                let full = if tag.handle == "!" {
                    format!("!{}", tag.suffix)
                } else {
                    format!("{}{}", tag.handle, tag.suffix)
                };
                if full == "!" {
                    Scalar::Str(text)
                } else {
                    resolve_tagged(text, &full)
                }
            }
            None if style == ScalarStyle::Plain => resolve_plain(text),
            None => Scalar::Str(text),
        };
        let index = self.push(Node {
            kind: Kind::Scalar(value),
            size: 1,
            bytes: small(bytes),
            depth: 0,
            line: small(mark.line()),
            col: small(mark.col()),
        });
        self.register(anchor, Some(index));
        Ok(index)
    }

    fn alias(&mut self, anchor: usize, mark: Marker) -> Result<u32, FrontmatterError> {
        let Some(target) = self
            .anchors
            .get(anchor)
            .and_then(|a| a.as_ref())
            .map(|a| a.node)
        else {
            return Err(self.error("unknown anchor".into(), mark));
        };
        let Some(target) = target else {
            // An alias inside the collection it names expands forever.
            return Err(FrontmatterError::Expands(format!(
                "{MAX_NODES} nodes (an alias refers to a collection that contains it)"
            )));
        };
        let (size, bytes, depth) = {
            let t = &self.nodes[target as usize];
            (t.size, t.bytes, t.depth)
        };
        if self.stack.len() + usize::from(depth) > MAX_DEPTH {
            return Err(self.error(
                format!(
                    "collections nest deeper than {MAX_DEPTH} levels once aliases are expanded"
                ),
                mark,
            ));
        }
        self.spend(size as usize, bytes as usize)?;
        self.count_alias(anchor, target, mark)?;
        Ok(self.push(Node {
            kind: Kind::Alias(anchor),
            size,
            bytes,
            depth,
            line: small(mark.line()),
            col: small(mark.col()),
        }))
    }

    /// The JS package's alias limit: each use of an anchor multiplies its
    /// use count by the anchored node's own alias count; past 100 the
    /// document is refused.
    fn count_alias(
        &mut self,
        anchor: usize,
        target: u32,
        mark: Marker,
    ) -> Result<(), FrontmatterError> {
        let computed = self.anchors[anchor].as_ref().and_then(|a| a.alias_count);
        let alias_count = match computed {
            Some(n) => n,
            None => self.alias_count_of(target),
        };
        let Some(a) = self.anchors[anchor].as_mut() else {
            return Ok(());
        };
        a.count += 1;
        a.alias_count = Some(alias_count);
        if a.count.saturating_mul(alias_count) > MAX_ALIAS_COUNT {
            return Err(self.error(
                "excessive alias count (an anchor is expanded more often than 100 times, counting nested aliases)".into(),
                mark,
            ));
        }
        Ok(())
    }

    /// `getAliasCount` of the JS package: 1 for a scalar, the use count times
    /// the alias count of an alias's anchor, the maximum over a collection's
    /// items (0 when empty).
    fn alias_count_of(&self, index: u32) -> u64 {
        match &self.nodes[index as usize].kind {
            Kind::Scalar(_) => 1,
            Kind::Alias(anchor) => self
                .anchors
                .get(*anchor)
                .and_then(|a| a.as_ref())
                .map_or(0, |a| a.count.saturating_mul(a.alias_count.unwrap_or(0))),
            Kind::Seq(items) | Kind::Map(items) => items
                .iter()
                .map(|i| self.alias_count_of(*i))
                .max()
                .unwrap_or(0),
        }
    }

    fn open(&mut self, map: bool, anchor: usize, mark: Marker) -> Result<(), FrontmatterError> {
        if self.stack.len() >= MAX_DEPTH {
            return Err(self.error(
                format!("collections nest deeper than {MAX_DEPTH} levels"),
                mark,
            ));
        }
        self.spend(1, 0)?;
        self.register(anchor, None);
        self.stack.push(Frame {
            map,
            anchor,
            items: Vec::new(),
            mark,
        });
        Ok(())
    }

    fn close(&mut self) -> Result<u32, FrontmatterError> {
        let Some(frame) = self.stack.pop() else {
            return Err(FrontmatterError::Yaml("unbalanced collection end".into()));
        };
        let (mut size, mut bytes, mut depth) = (1u32, 0u32, 0u16);
        for i in &frame.items {
            let n = &self.nodes[*i as usize];
            size = size.saturating_add(n.size);
            bytes = bytes.saturating_add(n.bytes);
            depth = depth.max(n.depth);
        }
        if frame.map {
            self.check_unique_keys(&frame.items)?;
        }
        let kind = if frame.map {
            Kind::Map(frame.items)
        } else {
            Kind::Seq(frame.items)
        };
        let index = self.push(Node {
            kind,
            size,
            bytes,
            depth: depth.saturating_add(1),
            line: small(frame.mark.line()),
            col: small(frame.mark.col()),
        });
        if frame.anchor != 0 {
            if let Some(Some(a)) = self.anchors.get_mut(frame.anchor) {
                a.node = Some(index);
            }
        }
        Ok(index)
    }

    fn check_unique_keys(&self, items: &[u32]) -> Result<(), FrontmatterError> {
        if items.len() < 4 {
            // Zero or one pair.
            return Ok(());
        }
        let mut seen = HashSet::with_capacity(items.len() / 2);
        for key in items.iter().step_by(2) {
            let node = &self.nodes[*key as usize];
            let Kind::Scalar(scalar) = &node.kind else {
                continue;
            };
            let Some(id) = KeyId::of(scalar) else {
                continue;
            };
            if !seen.insert(id) {
                let shown = match &node.kind {
                    Kind::Scalar(Scalar::Str(s)) => format!("{:?}", truncate(s, 40)),
                    Kind::Scalar(Scalar::Number(n)) => super::scalar::js_number_text(*n),
                    Kind::Scalar(Scalar::Bool(b)) => b.to_string(),
                    _ => "null".into(),
                };
                return Err(self.error(format!("duplicate mapping key {shown}"), self.mark(node)));
            }
        }
        Ok(())
    }

    /// After an explicit `...`, the JS package reads another `...` line as a
    /// second (empty) document, which it refuses; the scanner skips it.
    fn check_after_document_end(&self, yaml: &str, at: Marker) -> Result<(), FrontmatterError> {
        // Without two `...` lines there is nothing to look for (and no
        // character index to turn into a byte offset).
        if marker_lines(yaml.as_bytes()).nth(1).is_none() {
            return Ok(());
        }
        let Some(offset) = byte_offset(yaml, at.index()) else {
            return Ok(());
        };
        let rest = &yaml[offset..];
        if !rest.starts_with("...") {
            return Ok(());
        }
        let bytes = rest.as_bytes();
        if let Some(line) = marker_lines(bytes).find(|&line| line > 0) {
            let line_no = at.line() + memchr::memchr_iter(b'\n', &bytes[..line]).count();
            return Err(self.error(
                "the frontmatter holds more than one YAML document".into(),
                Marker::new(0, line_no, 0),
            ));
        }
        Ok(())
    }

    /// A `...` line before the first document's content ends an (empty)
    /// document for the JS package, which then refuses the document that
    /// follows as a second one; the scanner skips the line.
    fn check_before_document(&self, yaml: &str, start: Marker) -> Result<(), FrontmatterError> {
        if marker_lines(yaml.as_bytes()).next().is_none() {
            return Ok(());
        }
        let end = byte_offset(yaml, start.index()).unwrap_or(yaml.len());
        let bytes = &yaml.as_bytes()[..end];
        if let Some(line) = marker_lines(bytes).next() {
            let line_no = memchr::memchr_iter(b'\n', &bytes[..line]).count();
            return Err(self.error(
                "the frontmatter holds more than one YAML document (a `...` line ends an empty one)"
                    .into(),
                Marker::new(0, line_no, 0),
            ));
        }
        Ok(())
    }

    /// Refuse `%YAML 1.1` (the JS package would switch to the YAML 1.1
    /// schema, where `yes` is a boolean); other directives are left to the
    /// parser.
    fn check_directives(&self, yaml: &str, start: Marker) -> Result<(), FrontmatterError> {
        if start.index() == 0 {
            return Ok(());
        }
        let end = byte_offset(yaml, start.index()).unwrap_or(yaml.len());
        for line in yaml[..end].lines() {
            if let Some(rest) = line.strip_prefix("%YAML") {
                let version = rest.split_whitespace().next().unwrap_or("");
                if version != "1.2" {
                    return Err(self.error(
                        format!("only YAML 1.2 is supported, the frontmatter declares `%YAML {version}`"),
                        start,
                    ));
                }
            }
        }
        Ok(())
    }

    /// The value of a node with every alias expanded (within the budget
    /// already checked).
    fn expand(&self, index: u32) -> Value<'a> {
        match &self.nodes[index as usize].kind {
            Kind::Scalar(s) => Value::Scalar(s.clone()),
            Kind::Alias(anchor) => match self
                .anchors
                .get(*anchor)
                .and_then(|a| a.as_ref())
                .and_then(|a| a.node)
            {
                Some(target) => self.expand(target),
                None => Value::Scalar(Scalar::Null),
            },
            Kind::Seq(items) => Value::Seq(items.iter().map(|i| self.expand(*i)).collect()),
            Kind::Map(items) => Value::Map(
                items
                    .chunks(2)
                    .map(|kv| {
                        let k = self.expand(kv[0]);
                        let v = kv
                            .get(1)
                            .map_or(Value::Scalar(Scalar::Null), |v| self.expand(*v));
                        (k, v)
                    })
                    .collect(),
            ),
        }
    }
}

fn truncate(s: &str, chars: usize) -> &str {
    match s.char_indices().nth(chars) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}
