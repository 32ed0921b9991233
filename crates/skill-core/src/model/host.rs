//! Values read from host (JS) objects, packed column-wise, and the validation
//! rules the registry applies to them: JS provider candidates, the
//! definitions their `get()` returns, and runtime registrations.
//!
//! The host reads each object's fields once and hands over only what the rules
//! need ([`Records`]): one type [`Tag`] per known [`Field`], every rank, the
//! names as text, and the few low-cardinality strings (source, provider,
//! `resourceBase.kind`) interned. Everything else (descriptions, locators,
//! metadata contents, paths, bodies) stays on the host side, where the objects
//! keep their identity: the rules only need to know that a description is a
//! non-empty string. The rules below are the only copy: the host never
//! validates by itself.

use super::{
    is_skill_name, js_number, InvocationPolicy, RuntimeSkill, Subject, ValidationError,
    RUNTIME_PROVIDER, RUNTIME_SOURCE,
};

/// The fields of a host object the registry reads, in packing order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Field {
    /// The object itself (a candidate, a definition, a registration).
    Value = 0,
    /// `name`.
    Name,
    /// `description`.
    Description,
    /// `whenToUse`.
    WhenToUse,
    /// `invocation`.
    Invocation,
    /// `invocation.modelInvocable`.
    ModelInvocable,
    /// `invocation.userInvocable`.
    UserInvocable,
    /// `source`.
    Source,
    /// `provider`.
    Provider,
    /// `rank`.
    Rank,
    /// `resourceBase`.
    ResourceBase,
    /// `resourceBase.kind`.
    Kind,
    /// `resourceBase.path`.
    BasePath,
    /// `resourceBase.url`.
    BaseUrl,
    /// `resourceBase.description`.
    BaseDescription,
    /// `path`.
    Path,
    /// `metadata`.
    Metadata,
    /// `content`.
    Content,
}

impl Field {
    /// Number of fields (tags per record).
    pub const COUNT: usize = 18;

    /// Every field, in packing order.
    pub const ALL: [Field; Field::COUNT] = [
        Field::Value,
        Field::Name,
        Field::Description,
        Field::WhenToUse,
        Field::Invocation,
        Field::ModelInvocable,
        Field::UserInvocable,
        Field::Source,
        Field::Provider,
        Field::Rank,
        Field::ResourceBase,
        Field::Kind,
        Field::BasePath,
        Field::BaseUrl,
        Field::BaseDescription,
        Field::Path,
        Field::Metadata,
        Field::Content,
    ];

    /// The field's path as error messages name it (empty for the value itself).
    pub fn path(self) -> &'static str {
        match self {
            Field::Value => "",
            Field::Name => "name",
            Field::Description => "description",
            Field::WhenToUse => "whenToUse",
            Field::Invocation => "invocation",
            Field::ModelInvocable => "invocation.modelInvocable",
            Field::UserInvocable => "invocation.userInvocable",
            Field::Source => "source",
            Field::Provider => "provider",
            Field::Rank => "rank",
            Field::ResourceBase => "resourceBase",
            Field::Kind => "resourceBase.kind",
            Field::BasePath => "resourceBase.path",
            Field::BaseUrl => "resourceBase.url",
            Field::BaseDescription => "resourceBase.description",
            Field::Path => "path",
            Field::Metadata => "metadata",
            Field::Content => "content",
        }
    }

    /// Position of the field's interned string in a record's three refs.
    fn interned(self) -> Option<usize> {
        match self {
            Field::Source => Some(0),
            Field::Provider => Some(1),
            Field::Kind => Some(2),
            _ => None,
        }
    }
}

/// The JS type of a field value (`typeof`, with `null`, arrays, booleans and
/// empty strings told apart).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Tag {
    /// `undefined` or absent.
    Undefined = 0,
    /// `null`.
    Null,
    /// `false`.
    False,
    /// `true`.
    True,
    /// A number (any, including non-finite ones).
    Number,
    /// `''`.
    EmptyString,
    /// A string of at least one code unit.
    String,
    /// A non-array object.
    Object,
    /// An array.
    Array,
    /// A function.
    Function,
    /// A symbol.
    Symbol,
    /// A bigint.
    BigInt,
}

impl Tag {
    const LAST: u8 = Tag::BigInt as u8;

    /// The tag packed as `byte`, if it is one.
    pub fn from_u8(byte: u8) -> Option<Tag> {
        Some(match byte {
            0 => Tag::Undefined,
            1 => Tag::Null,
            2 => Tag::False,
            3 => Tag::True,
            4 => Tag::Number,
            5 => Tag::EmptyString,
            6 => Tag::String,
            7 => Tag::Object,
            8 => Tag::Array,
            9 => Tag::Function,
            10 => Tag::Symbol,
            11 => Tag::BigInt,
            _ => return None,
        })
    }

    fn is_string(self) -> bool {
        matches!(self, Tag::String | Tag::EmptyString)
    }
}

/// "No interned string" in [`Records::refs`].
pub const NO_REF: u32 = u32::MAX;

/// Host objects packed column-wise (see the module docs). Record `i` owns
/// `tags[i * Field::COUNT..][..Field::COUNT]`, `ranks[i]`, `spans[i * 2..][..2]`
/// and `refs[i * 3..][..3]`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Records<'a> {
    /// One [`Tag`] per field per record.
    pub tags: &'a [u8],
    /// `rank` of each record (unused unless its tag is [`Tag::Number`]).
    pub ranks: &'a [f64],
    /// Names.
    pub text: &'a str,
    /// Byte range of each record's name in `text` (start, end; empty when the
    /// name is not a string).
    pub spans: &'a [u32],
    /// Per record: the `source`, `provider` and `resourceBase.kind` strings as
    /// indexes into `strings` ([`NO_REF`] when the field is not a string).
    pub refs: &'a [u32],
    /// Distinct interned strings.
    pub strings: &'a [String],
    /// `(record * Field::COUNT + field, value)` pairs for number fields other
    /// than `rank` (only error messages read them).
    pub numbers: &'a [f64],
}

/// Packed records whose parts do not fit together (a host bug, not bad input).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("malformed packed records: {0}")]
pub struct MalformedRecords(&'static str);

impl<'a> Records<'a> {
    /// Number of records.
    pub fn len(&self) -> usize {
        self.tags.len() / Field::COUNT
    }

    /// Whether there is no record.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Check that the parts fit together (lengths, tags, spans, refs).
    pub fn check(&self) -> Result<(), MalformedRecords> {
        let n = self.len();
        if self.tags.len() != n * Field::COUNT {
            return Err(MalformedRecords("tag count"));
        }
        if self.ranks.len() != n || self.spans.len() != n * 2 || self.refs.len() != n * 3 {
            return Err(MalformedRecords("column lengths"));
        }
        if self.tags.iter().any(|&t| t > Tag::LAST) {
            return Err(MalformedRecords("unknown tag"));
        }
        for span in self.spans.chunks_exact(2) {
            let (start, end) = (span[0] as usize, span[1] as usize);
            if start > end || !self.text.is_char_boundary(start) || !self.text.is_char_boundary(end)
            {
                return Err(MalformedRecords("text span"));
            }
        }
        if self
            .refs
            .iter()
            .any(|&r| r != NO_REF && r as usize >= self.strings.len())
        {
            return Err(MalformedRecords("string ref"));
        }
        if !self.numbers.len().is_multiple_of(2) {
            return Err(MalformedRecords("number pairs"));
        }
        Ok(())
    }

    fn record(&self, index: usize) -> Record<'_, 'a> {
        Record {
            records: self,
            index,
        }
    }
}

/// A byte range in a text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Span {
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

impl Span {
    /// The spanned text.
    pub fn of<'t>(&self, text: &'t str) -> &'t str {
        text.get(self.start as usize..self.end as usize)
            .unwrap_or_default()
    }
}

/// What the top-level value of a `list()` result is: an array of candidates
/// (the records), or `{ candidates, complete }`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ListHead {
    /// The result itself.
    pub value: Tag,
    /// Its `candidates` field (read when `value` is an object).
    pub candidates: Tag,
    /// Its `complete` field (read when `value` is an object).
    pub complete: Tag,
    /// The numbers behind `value`, `candidates` and `complete` when tagged
    /// [`Tag::Number`] (for error messages).
    pub numbers: [f64; 3],
}

/// A validated JS-provider candidate: what the merge keeps. The host keeps the
/// candidate object (and builds summaries from it).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HostCandidate {
    /// `name` in the listing's text.
    pub name: Span,
    /// `invocation`.
    pub invocation: InvocationPolicy,
    /// `source` as an index into the listing's strings.
    pub source: u32,
    /// `rank`.
    pub rank: f64,
}

/// A validated `list()` result (the candidates in the provider's order).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HostListing {
    /// Whether discovery was authoritative.
    pub complete: bool,
    /// The candidates.
    pub candidates: Vec<HostCandidate>,
}

/// A [`HostListing`] with the text and strings its spans and refs point into.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HostObservation {
    /// Names.
    pub text: String,
    /// Interned strings.
    pub strings: Vec<String>,
    /// The validated listing.
    pub listing: HostListing,
}

impl HostObservation {
    /// The source label of candidate `c`.
    pub fn source(&self, c: &HostCandidate) -> &str {
        self.strings
            .get(c.source as usize)
            .map(String::as_str)
            .unwrap_or_default()
    }
}

/// Which `resourceBase` kinds a rule accepts.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kinds {
    /// Only `directory`, `url` and `opaque`.
    Known,
    /// Any kind; the three known ones must carry their field (the skill tool
    /// reports unknown kinds when it loads the skill).
    Any,
}

/// How error messages name a value of type `tag` (`number` is its value when
/// it is a number).
pub(crate) fn describe(tag: Tag, number: Option<f64>) -> String {
    match tag {
        Tag::Undefined => "undefined".into(),
        Tag::Null => "null".into(),
        Tag::False => "boolean false".into(),
        Tag::True => "boolean true".into(),
        Tag::Number => match number {
            Some(n) => format!("number {}", js_number(n)),
            None => "number".into(),
        },
        Tag::EmptyString => "an empty string".into(),
        Tag::String => "string".into(),
        Tag::Object => "object".into(),
        Tag::Array => "array".into(),
        Tag::Function => "function".into(),
        Tag::Symbol => "symbol".into(),
        Tag::BigInt => "bigint".into(),
    }
}

/// One record, read through the rules.
struct Record<'r, 'a> {
    records: &'r Records<'a>,
    index: usize,
}

impl<'a> Record<'_, 'a> {
    fn tag(&self, field: Field) -> Tag {
        self.records
            .tags
            .get(self.index * Field::COUNT + field as usize)
            .and_then(|&b| Tag::from_u8(b))
            .unwrap_or(Tag::Undefined)
    }

    /// The content of a string field the host delivers (name, source,
    /// provider, `resourceBase.kind`).
    fn text(&self, field: Field) -> Option<&'a str> {
        if !self.tag(field).is_string() {
            return None;
        }
        let r = self.records;
        if field == Field::Name {
            return Some(self.name_span().of(r.text));
        }
        let at = self.index * 3 + field.interned()?;
        r.strings.get(*r.refs.get(at)? as usize).map(String::as_str)
    }

    fn name_span(&self) -> Span {
        let at = self.index * 2;
        match (self.records.spans.get(at), self.records.spans.get(at + 1)) {
            (Some(&start), Some(&end)) => Span { start, end },
            _ => Span::default(),
        }
    }

    fn number(&self, field: Field) -> Option<f64> {
        if field == Field::Rank {
            return self.records.ranks.get(self.index).copied();
        }
        let slot = (self.index * Field::COUNT + field as usize) as f64;
        self.records
            .numbers
            .chunks_exact(2)
            .find(|pair| pair[0] == slot)
            .map(|pair| pair[1])
    }

    /// How error messages name what was found.
    fn describe(&self, field: Field) -> String {
        let tag = self.tag(field);
        let number = if tag == Tag::Number {
            self.number(field)
        } else {
            None
        };
        describe(tag, number)
    }

    /// Like [`Record::describe`], quoting delivered strings.
    fn describe_quoted(&self, field: Field) -> String {
        match self.text(field) {
            Some(s) => format!("{s:?}"),
            None => self.describe(field),
        }
    }
}

/// The rules, for one subject.
struct Checker<'p> {
    provider: &'p str,
    subject: Subject,
}

impl Checker<'_> {
    fn err(&self, field: Field, problem: String) -> ValidationError {
        self.err_at(field.path(), problem)
    }

    fn err_at(&self, path: &str, problem: String) -> ValidationError {
        ValidationError {
            provider: self.provider.to_string(),
            subject: self.subject.clone(),
            field: path.to_string(),
            problem,
        }
    }

    fn object(&self, r: &Record<'_, '_>, problem: &str) -> Result<(), ValidationError> {
        match r.tag(Field::Value) {
            Tag::Object => Ok(()),
            _ => Err(self.err(
                Field::Value,
                format!("{problem} (got {})", r.describe(Field::Value)),
            )),
        }
    }

    /// A string of at least one code unit (whitespace counts).
    fn non_empty_string(&self, r: &Record<'_, '_>, field: Field) -> Result<(), ValidationError> {
        match r.tag(field) {
            Tag::String => Ok(()),
            _ => Err(self.err(
                field,
                format!("must be a non-empty string (got {})", r.describe(field)),
            )),
        }
    }

    fn optional_string(&self, r: &Record<'_, '_>, field: Field) -> Result<(), ValidationError> {
        match r.tag(field) {
            Tag::Undefined | Tag::EmptyString | Tag::String => Ok(()),
            _ => Err(self.err(
                field,
                format!("must be a string when present (got {})", r.describe(field)),
            )),
        }
    }

    fn string(&self, r: &Record<'_, '_>, field: Field) -> Result<(), ValidationError> {
        match r.tag(field) {
            Tag::EmptyString | Tag::String => Ok(()),
            _ => Err(self.err(
                field,
                format!("must be a string (got {})", r.describe(field)),
            )),
        }
    }

    fn name(&self, r: &Record<'_, '_>) -> Result<(), ValidationError> {
        match r.text(Field::Name) {
            Some(name) if is_skill_name(name) => Ok(()),
            Some(name) => Err(self.err(
                Field::Name,
                format!("must be a kebab-case skill name (got {name:?})"),
            )),
            None => Err(self.err(
                Field::Name,
                format!(
                    "must be a kebab-case string (got {})",
                    r.describe(Field::Name)
                ),
            )),
        }
    }

    fn invocation(&self, r: &Record<'_, '_>) -> Result<InvocationPolicy, ValidationError> {
        if r.tag(Field::Invocation) != Tag::Object {
            return Err(self.err(
                Field::Invocation,
                format!(
                    "must be an object {{ modelInvocable, userInvocable }} (got {})",
                    r.describe(Field::Invocation)
                ),
            ));
        }
        let flag = |field: Field| match r.tag(field) {
            Tag::True => Ok(true),
            Tag::False => Ok(false),
            _ => Err(self.err(
                field,
                format!("must be a boolean (got {})", r.describe(field)),
            )),
        };
        Ok(InvocationPolicy {
            model_invocable: flag(Field::ModelInvocable)?,
            user_invocable: flag(Field::UserInvocable)?,
        })
    }

    fn provider(&self, r: &Record<'_, '_>, expected: &str) -> Result<(), ValidationError> {
        match r.text(Field::Provider) {
            Some(p) if p == expected => Ok(()),
            _ => Err(self.err(
                Field::Provider,
                format!(
                    "must be {expected:?} (got {})",
                    r.describe_quoted(Field::Provider)
                ),
            )),
        }
    }

    fn resource_base(&self, r: &Record<'_, '_>, kinds: Kinds) -> Result<(), ValidationError> {
        match r.tag(Field::ResourceBase) {
            Tag::Undefined => return Ok(()),
            Tag::Object => {}
            _ => {
                return Err(self.err(
                    Field::ResourceBase,
                    format!(
                        "must be an object when present (got {})",
                        r.describe(Field::ResourceBase)
                    ),
                ))
            }
        }
        match r.text(Field::Kind) {
            Some("directory") => self.string(r, Field::BasePath),
            Some("url") => self.string(r, Field::BaseUrl),
            Some("opaque") => self.string(r, Field::BaseDescription),
            _ if kinds == Kinds::Any => Ok(()),
            _ => Err(self.err(
                Field::Kind,
                format!(
                    "must be 'directory', 'url' or 'opaque' (got {})",
                    r.describe_quoted(Field::Kind)
                ),
            )),
        }
    }

    fn metadata(&self, r: &Record<'_, '_>) -> Result<(), ValidationError> {
        match r.tag(Field::Metadata) {
            Tag::Undefined | Tag::Object => Ok(()),
            _ => Err(self.err(
                Field::Metadata,
                format!(
                    "must be an object when present (got {})",
                    r.describe(Field::Metadata)
                ),
            )),
        }
    }

    /// The summary fields every provider value carries.
    fn summary(
        &self,
        r: &Record<'_, '_>,
        provider: &str,
    ) -> Result<InvocationPolicy, ValidationError> {
        self.name(r)?;
        self.non_empty_string(r, Field::Description)?;
        self.optional_string(r, Field::WhenToUse)?;
        let invocation = self.invocation(r)?;
        self.non_empty_string(r, Field::Source)?;
        self.provider(r, provider)?;
        self.resource_base(r, Kinds::Any)?;
        self.metadata(r)?;
        Ok(invocation)
    }
}

fn candidate(
    provider: &str,
    records: &Records<'_>,
    index: usize,
) -> Result<HostCandidate, ValidationError> {
    let checker = Checker {
        provider,
        subject: Subject::Candidate(index),
    };
    let r = records.record(index);
    checker.object(&r, "must be an object")?;
    let invocation = checker.summary(&r, provider)?;
    let rank = match (r.tag(Field::Rank), r.number(Field::Rank)) {
        (Tag::Number, Some(n)) if n.is_finite() => n,
        _ => {
            return Err(checker.err(
                Field::Rank,
                format!("must be a finite number (got {})", r.describe(Field::Rank)),
            ))
        }
    };
    checker.optional_string(&r, Field::Path)?;
    Ok(HostCandidate {
        name: r.name_span(),
        invocation,
        source: records.refs.get(index * 3).copied().unwrap_or(NO_REF),
        rank,
    })
}

/// Validate what JS provider `provider`'s `list()` returned: an array of
/// candidates (complete) or `{ candidates, complete }`. `records` are the
/// candidates (none unless `head` says there is an array of them).
pub fn validate_listing(
    provider: &str,
    head: &ListHead,
    records: &Records<'_>,
) -> Result<HostListing, ValidationError> {
    let checker = Checker {
        provider,
        subject: Subject::ListResult,
    };
    let found = |tag: Tag, number: f64| describe(tag, Some(number));
    let complete = match head.value {
        Tag::Array => true,
        Tag::Object if head.candidates != Tag::Array => {
            return Err(checker.err_at(
                "candidates",
                format!(
                    "must be an array (got {})",
                    found(head.candidates, head.numbers[1])
                ),
            ))
        }
        Tag::Object => match head.complete {
            Tag::True => true,
            Tag::False => false,
            other => {
                return Err(checker.err_at(
                    "complete",
                    format!("must be a boolean (got {})", found(other, head.numbers[2])),
                ))
            }
        },
        other => {
            return Err(checker.err(
                Field::Value,
                format!(
                    "expected an array of candidates or {{ candidates, complete }} (got {})",
                    found(other, head.numbers[0])
                ),
            ))
        }
    };
    let candidates = (0..records.len())
        .map(|i| candidate(provider, records, i))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(HostListing {
        complete,
        candidates,
    })
}

/// Validate the definition JS provider `provider`'s `get()` returned (one
/// record; `undefined` is handled by the host before packing). Returns its
/// name.
pub fn validate_definition(
    provider: &str,
    records: &Records<'_>,
) -> Result<String, ValidationError> {
    let checker = Checker {
        provider,
        subject: Subject::Definition,
    };
    let r = records.record(0);
    checker.object(&r, "must be an object or undefined")?;
    checker.summary(&r, provider)?;
    checker.string(&r, Field::Content)?;
    checker.optional_string(&r, Field::Path)?;
    Ok(r.text(Field::Name).unwrap_or_default().to_string())
}

/// Validate a runtime skill registration (one record) and apply its defaults
/// (both invocation surfaces, source and provider `runtime`). Unlike provider
/// values, a registration's `resourceBase.kind` must be a known one.
pub fn validate_registration(records: &Records<'_>) -> Result<RuntimeSkill, ValidationError> {
    let checker = Checker {
        provider: RUNTIME_PROVIDER,
        subject: Subject::Registration,
    };
    let r = records.record(0);
    checker.object(&r, "must be an object")?;
    checker.name(&r)?;
    checker.non_empty_string(&r, Field::Description)?;
    checker.optional_string(&r, Field::WhenToUse)?;
    let invocation = match r.tag(Field::Invocation) {
        Tag::Undefined => InvocationPolicy::default(),
        _ => checker.invocation(&r)?,
    };
    let label = |field: Field, default: &str| match r.tag(field) {
        Tag::Undefined => Ok(default.to_string()),
        _ => checker
            .non_empty_string(&r, field)
            .map(|()| r.text(field).unwrap_or_default().to_string()),
    };
    let source = label(Field::Source, RUNTIME_SOURCE)?;
    let provider = label(Field::Provider, RUNTIME_PROVIDER)?;
    checker.resource_base(&r, Kinds::Known)?;
    checker.metadata(&r)?;
    checker.string(&r, Field::Content)?;
    checker.optional_string(&r, Field::Path)?;
    Ok(RuntimeSkill {
        name: r.text(Field::Name).unwrap_or_default().to_string(),
        invocation,
        source,
        provider,
    })
}

/// Owned [`Records`] built from JSON values the way the JS layer packs JS
/// objects (for Rust hosts, tests and benches). JSON has no `undefined`,
/// functions or non-finite numbers: absent keys are `undefined`, and
/// [`OwnedRecords::set`] adjusts a tag or a rank afterwards.
#[derive(Clone, Debug, Default)]
pub struct OwnedRecords {
    tags: Vec<u8>,
    ranks: Vec<f64>,
    text: String,
    spans: Vec<u32>,
    refs: Vec<u32>,
    strings: Vec<String>,
    numbers: Vec<f64>,
}

fn json_tag(value: Option<&serde_json::Value>) -> Tag {
    use serde_json::Value;
    match value {
        None => Tag::Undefined,
        Some(Value::Null) => Tag::Null,
        Some(Value::Bool(false)) => Tag::False,
        Some(Value::Bool(true)) => Tag::True,
        Some(Value::Number(_)) => Tag::Number,
        Some(Value::String(s)) if s.is_empty() => Tag::EmptyString,
        Some(Value::String(_)) => Tag::String,
        Some(Value::Object(_)) => Tag::Object,
        Some(Value::Array(_)) => Tag::Array,
    }
}

impl OwnedRecords {
    /// Pack `values` (one record each).
    pub fn from_json(values: &[serde_json::Value]) -> Self {
        let mut out = Self::default();
        for value in values {
            out.push(value);
        }
        out
    }

    /// The packed view.
    pub fn records(&self) -> Records<'_> {
        Records {
            tags: &self.tags,
            ranks: &self.ranks,
            text: &self.text,
            spans: &self.spans,
            refs: &self.refs,
            strings: &self.strings,
            numbers: &self.numbers,
        }
    }

    /// Replace the tag of `field` in record `index` (and its number, when
    /// given: the rank for [`Field::Rank`]).
    pub fn set(&mut self, index: usize, field: Field, tag: Tag, number: Option<f64>) {
        let slot = index * Field::COUNT + field as usize;
        if let Some(t) = self.tags.get_mut(slot) {
            *t = tag as u8;
        }
        if let Some(n) = number {
            if field == Field::Rank {
                if let Some(r) = self.ranks.get_mut(index) {
                    *r = n;
                }
            } else {
                self.numbers.extend([slot as f64, n]);
            }
        }
    }

    fn intern(&mut self, value: Option<&serde_json::Value>) -> u32 {
        let Some(serde_json::Value::String(s)) = value else {
            return NO_REF;
        };
        let at = match self.strings.iter().position(|x| x == s) {
            Some(at) => at,
            None => {
                self.strings.push(s.clone());
                self.strings.len() - 1
            }
        };
        u32::try_from(at).unwrap_or(NO_REF)
    }

    fn push_text(&mut self, value: Option<&serde_json::Value>) {
        let start = u32::try_from(self.text.len()).unwrap_or(u32::MAX);
        if let Some(serde_json::Value::String(s)) = value {
            self.text.push_str(s);
        }
        let end = u32::try_from(self.text.len()).unwrap_or(u32::MAX);
        self.spans.extend([start, end]);
    }

    fn push(&mut self, value: &serde_json::Value) {
        let index = self.ranks.len();
        let object = value.as_object().filter(|_| value.is_object());
        let get = |key: &str| object.and_then(|o| o.get(key));
        let nested = |parent: &str, key: &str| {
            get(parent)
                .and_then(|p| p.as_object())
                .and_then(|o| o.get(key))
        };
        let fields: [Option<&serde_json::Value>; Field::COUNT] = [
            Some(value),
            get("name"),
            get("description"),
            get("whenToUse"),
            get("invocation"),
            nested("invocation", "modelInvocable"),
            nested("invocation", "userInvocable"),
            get("source"),
            get("provider"),
            get("rank"),
            get("resourceBase"),
            nested("resourceBase", "kind"),
            nested("resourceBase", "path"),
            nested("resourceBase", "url"),
            nested("resourceBase", "description"),
            get("path"),
            get("metadata"),
            get("content"),
        ];
        for (field, v) in Field::ALL.iter().zip(fields) {
            self.tags.push(json_tag(v) as u8);
            if let (Some(n), true) = (v.and_then(|v| v.as_f64()), *field != Field::Rank) {
                self.numbers
                    .extend([(index * Field::COUNT + *field as usize) as f64, n]);
            }
        }
        self.ranks
            .push(get("rank").and_then(|r| r.as_f64()).unwrap_or(f64::NAN));
        self.push_text(get("name"));
        let refs = [
            self.intern(get("source")),
            self.intern(get("provider")),
            self.intern(nested("resourceBase", "kind")),
        ];
        self.refs.extend(refs);
    }

    /// Pack a whole `list()` result: its head and its candidates.
    pub fn from_list_json(value: &serde_json::Value) -> (ListHead, Self) {
        let number = |v: Option<&serde_json::Value>| v.and_then(|v| v.as_f64()).unwrap_or(0.0);
        let candidates = value.get("candidates").filter(|_| value.is_object());
        let complete = value.get("complete").filter(|_| value.is_object());
        let head = ListHead {
            value: json_tag(Some(value)),
            candidates: json_tag(candidates),
            complete: json_tag(complete),
            numbers: [number(Some(value)), number(candidates), number(complete)],
        };
        let items = match (value, candidates) {
            (serde_json::Value::Array(items), _) => items.as_slice(),
            (_, Some(serde_json::Value::Array(items))) => items.as_slice(),
            _ => &[],
        };
        (head, Self::from_json(items))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn candidate_json(extra: Value) -> Value {
        let mut base = json!({
            "name": "alpha",
            "description": "Does alpha",
            "invocation": { "modelInvocable": true, "userInvocable": false },
            "source": "remote",
            "provider": "p",
            "rank": 10,
        });
        if let (Some(base), Some(extra)) = (base.as_object_mut(), extra.as_object()) {
            for (k, v) in extra {
                if v.is_null() && k.starts_with('-') {
                    base.remove(&k[1..]);
                } else {
                    base.insert(k.clone(), v.clone());
                }
            }
        }
        base
    }

    fn list(values: Vec<Value>) -> Result<HostListing, ValidationError> {
        let (head, owned) = OwnedRecords::from_list_json(&Value::Array(values));
        owned.records().check().expect("well formed");
        validate_listing("p", &head, &owned.records())
    }

    #[test]
    fn valid_candidate_keeps_what_the_merge_needs() {
        let (head, owned) = OwnedRecords::from_list_json(&json!([
            candidate_json(json!({})),
            candidate_json(json!({"name": "beta", "rank": 2.5}))
        ]));
        let records = owned.records();
        let listing = validate_listing("p", &head, &records).expect("valid");
        assert!(listing.complete);
        let [a, b] = listing.candidates.as_slice() else {
            panic!("two candidates")
        };
        assert_eq!(a.name.of(records.text), "alpha");
        assert_eq!(b.name.of(records.text), "beta");
        assert!(!a.invocation.user_invocable);
        assert_eq!(records.strings[a.source as usize], "remote");
        assert_eq!((a.rank, b.rank), (10.0, 2.5));
    }

    #[test]
    fn every_bad_field_is_named() {
        let cases: Vec<(Value, &str)> = vec![
            (json!({"name": "Bad Name"}), "\"name\" must be a kebab-case skill name (got \"Bad Name\")"),
            (json!({"name": 1}), "\"name\" must be a kebab-case string (got number 1)"),
            (json!({"name": ""}), "\"name\" must be a kebab-case skill name (got \"\")"),
            (json!({"description": ""}), "\"description\" must be a non-empty string (got an empty string)"),
            (json!({"description": null}), "\"description\" must be a non-empty string (got null)"),
            (json!({"whenToUse": true}), "\"whenToUse\" must be a string when present (got boolean true)"),
            (json!({"-invocation": null}), "\"invocation\" must be an object { modelInvocable, userInvocable } (got undefined)"),
            (json!({"invocation": [true, true]}), "\"invocation\" must be an object { modelInvocable, userInvocable } (got array)"),
            (json!({"invocation": {"modelInvocable": "yes", "userInvocable": true}}), "\"invocation.modelInvocable\" must be a boolean (got string)"),
            (json!({"source": 3}), "\"source\" must be a non-empty string (got number 3)"),
            (json!({"provider": "other"}), "\"provider\" must be \"p\" (got \"other\")"),
            (json!({"-provider": null}), "\"provider\" must be \"p\" (got undefined)"),
            (json!({"rank": "1"}), "\"rank\" must be a finite number (got string)"),
            (json!({"rank": null}), "\"rank\" must be a finite number (got null)"),
            (json!({"path": 1}), "\"path\" must be a string when present (got number 1)"),
            (json!({"metadata": "x"}), "\"metadata\" must be an object when present (got string)"),
            (json!({"metadata": []}), "\"metadata\" must be an object when present (got array)"),
            (json!({"resourceBase": "x"}), "\"resourceBase\" must be an object when present (got string)"),
            (json!({"resourceBase": {"kind": "url"}}), "\"resourceBase.url\" must be a string (got undefined)"),
            (json!({"resourceBase": {"kind": "directory", "path": 4}}), "\"resourceBase.path\" must be a string (got number 4)"),
            (json!({"resourceBase": {"kind": "opaque"}}), "\"resourceBase.description\" must be a string (got undefined)"),
        ];
        for (extra, needle) in cases {
            let err = list(vec![candidate_json(extra.clone())])
                .expect_err(&format!("{extra} must fail"))
                .to_string();
            assert!(
                err.starts_with("skill provider \"p\" returned an invalid candidate at index 0: "),
                "{err}"
            );
            assert!(err.ends_with(needle), "{err}\n  should end with {needle}");
        }
        let err = list(vec![candidate_json(json!({})), json!(null)]).expect_err("null");
        assert!(
            err.to_string()
                .ends_with("index 1: must be an object (got null)"),
            "{err}"
        );
        let err = list(vec![json!(42)]).expect_err("number");
        assert!(err.to_string().ends_with("(got number 42)"), "{err}");
        let err = list(vec![json!([])]).expect_err("array");
        assert!(err.to_string().ends_with("(got array)"), "{err}");
    }

    #[test]
    fn non_finite_ranks_and_host_only_types_are_reported() {
        let (head, mut owned) = OwnedRecords::from_list_json(&json!([candidate_json(json!({}))]));
        for (rank, found) in [
            (f64::INFINITY, "number Infinity"),
            (f64::NEG_INFINITY, "number -Infinity"),
            (f64::NAN, "number NaN"),
        ] {
            owned.set(0, Field::Rank, Tag::Number, Some(rank));
            let err = validate_listing("p", &head, &owned.records()).expect_err("non-finite");
            assert!(
                err.to_string()
                    .ends_with(&format!("\"rank\" must be a finite number (got {found})")),
                "{err}"
            );
        }
        owned.set(0, Field::Rank, Tag::Number, Some(1.0));
        owned.set(0, Field::Description, Tag::Function, None);
        let err = validate_listing("p", &head, &owned.records()).expect_err("function");
        assert!(err.to_string().ends_with("(got function)"), "{err}");
        owned.set(0, Field::Description, Tag::Symbol, None);
        let err = validate_listing("p", &head, &owned.records()).expect_err("symbol");
        assert!(err.to_string().ends_with("(got symbol)"), "{err}");
    }

    #[test]
    fn whitespace_descriptions_are_non_empty_strings() {
        let listing = list(vec![candidate_json(json!({"description": " \n\t "}))]).expect("valid");
        assert_eq!(listing.candidates.len(), 1);
    }

    #[test]
    fn unknown_resource_base_kinds_pass_for_providers_not_registrations() {
        for base in [
            json!({"kind": "ftp", "host": "x"}),
            json!({"kind": 3}),
            json!({}),
        ] {
            let c = candidate_json(json!({ "resourceBase": base }));
            assert!(list(vec![c.clone()]).is_ok(), "{c}");
            let mut definition = c.clone();
            definition["content"] = json!("body");
            let owned = OwnedRecords::from_json(&[definition]);
            assert_eq!(
                validate_definition("p", &owned.records()).as_deref(),
                Ok("alpha")
            );
            let registration =
                json!({"name": "rt", "description": "d", "content": "", "resourceBase": base});
            let owned = OwnedRecords::from_json(&[registration]);
            let err = validate_registration(&owned.records()).expect_err("registration");
            assert!(
                err.to_string()
                    .contains("\"resourceBase.kind\" must be 'directory', 'url' or 'opaque'"),
                "{err}"
            );
        }
    }

    #[test]
    fn list_results() {
        let obs = json!({"candidates": [candidate_json(json!({}))], "complete": false});
        let (head, owned) = OwnedRecords::from_list_json(&obs);
        let listing = validate_listing("p", &head, &owned.records()).expect("observation");
        assert!(!listing.complete);
        assert_eq!(listing.candidates.len(), 1);
        for (bad, needle) in [
            (json!(42), "returned an invalid list() result: expected an array of candidates or { candidates, complete } (got number 42)"),
            (json!(null), "(got null)"),
            (json!("x"), "(got string)"),
            (json!({"candidates": "x", "complete": true}), "\"candidates\" must be an array (got string)"),
            (json!({"candidates": [], "complete": "yes"}), "\"complete\" must be a boolean (got string)"),
            (json!({"candidates": [], "complete": 1}), "\"complete\" must be a boolean (got number 1)"),
            (json!({"complete": true}), "\"candidates\" must be an array (got undefined)"),
        ] {
            let (head, owned) = OwnedRecords::from_list_json(&bad);
            let err = validate_listing("p", &head, &owned.records())
                .expect_err("must fail")
                .to_string();
            assert!(err.contains("\"p\"") && err.ends_with(needle), "{err}\n  should end with {needle}");
        }
    }

    #[test]
    fn registration_defaults_and_rules() {
        let owned = OwnedRecords::from_json(&[
            json!({"name": "rt", "description": "d", "content": "body"}),
        ]);
        let skill = validate_registration(&owned.records()).expect("valid");
        assert_eq!(skill.provider, RUNTIME_PROVIDER);
        assert_eq!(skill.source, RUNTIME_SOURCE);
        assert_eq!(skill.invocation, InvocationPolicy::default());
        let owned = OwnedRecords::from_json(&[json!({
            "name": "rt", "description": " ", "content": "", "source": "s", "provider": "q",
            "invocation": {"modelInvocable": false, "userInvocable": true},
            "resourceBase": {"kind": "url", "url": "https://x"}
        })]);
        let skill = validate_registration(&owned.records()).expect("valid");
        assert_eq!((skill.source.as_str(), skill.provider.as_str()), ("s", "q"));
        assert!(!skill.invocation.model_invocable);
        for (bad, needle) in [
            (
                json!({"name": "rt", "description": "d"}),
                "\"content\" must be a string (got undefined)",
            ),
            (
                json!({"name": "rt", "description": "", "content": ""}),
                "\"description\" must be a non-empty string",
            ),
            (
                json!({"name": "rt", "description": "d", "content": "", "source": ""}),
                "\"source\" must be a non-empty string",
            ),
            (
                json!({"name": "Rt", "description": "d", "content": ""}),
                "\"name\" must be a kebab-case skill name",
            ),
            (
                json!("rt"),
                "an invalid runtime skill: must be an object (got string)",
            ),
        ] {
            let owned = OwnedRecords::from_json(std::slice::from_ref(&bad));
            let err = validate_registration(&owned.records())
                .expect_err("must fail")
                .to_string();
            assert!(err.contains(needle), "{bad}: {err}");
        }
    }

    #[test]
    fn definitions_need_content() {
        let owned = OwnedRecords::from_json(&[candidate_json(json!({}))]);
        let err = validate_definition("p", &owned.records()).expect_err("no content");
        assert!(
            err.to_string()
                .contains("definition from get(): \"content\" must be a string"),
            "{err}"
        );
        let owned = OwnedRecords::from_json(&[json!(7)]);
        let err = validate_definition("p", &owned.records()).expect_err("number");
        assert!(
            err.to_string()
                .ends_with("must be an object or undefined (got number 7)"),
            "{err}"
        );
    }

    #[test]
    fn malformed_packing_is_detected() {
        let owned = OwnedRecords::from_json(&[candidate_json(json!({}))]);
        let good = owned.records();
        assert_eq!(good.check(), Ok(()));
        let bad_tags = [99u8; Field::COUNT];
        for broken in [
            Records { ranks: &[], ..good },
            Records {
                tags: &bad_tags,
                ..good
            },
            Records {
                spans: &[0, 99],
                ..good
            },
            Records {
                refs: &[7, 7, 7],
                ..good
            },
            Records {
                numbers: &[1.0],
                ..good
            },
        ] {
            assert!(broken.check().is_err());
        }
    }
}
