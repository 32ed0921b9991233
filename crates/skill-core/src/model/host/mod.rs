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
    is_skill_name, js_number, quoted_name, too_long_name, InvocationPolicy, RuntimeSkill, Subject,
    ValidationError, RUNTIME_PROVIDER, RUNTIME_SOURCE,
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
                too_long_name(name).unwrap_or_else(|| {
                    format!(
                        "must be a kebab-case skill name (got {})",
                        quoted_name(name)
                    )
                }),
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

    /// `resourceBase`: absent, or an object whose known kinds (`directory`,
    /// `url`, `opaque`) carry their field. Any other kind passes through (the
    /// model-facing tool result is where an unknown kind is refused).
    fn resource_base(&self, r: &Record<'_, '_>) -> Result<(), ValidationError> {
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
            _ => Ok(()),
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
        self.resource_base(r)?;
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

/// Most candidates one `list()` result may hold. A larger result is refused
/// before any candidate is read, so a runaway provider costs nothing.
pub const MAX_LIST_CANDIDATES: usize = 1_000_000;

/// Check the shape of what JS provider `provider`'s `list()` returned, before
/// any candidate is read: an array of `count` candidates (complete), or an
/// object whose `complete` is a boolean (checked first) and whose
/// `candidates` is an array of `count` items; at most
/// [`MAX_LIST_CANDIDATES`]. Returns `complete`.
pub fn validate_list_head(
    provider: &str,
    head: &ListHead,
    count: usize,
) -> Result<bool, ValidationError> {
    let checker = Checker {
        provider,
        subject: Subject::ListResult,
    };
    let found = |tag: Tag, number: f64| describe(tag, Some(number));
    let complete = match head.value {
        Tag::Array => true,
        Tag::Object => {
            let complete = match head.complete {
                Tag::True => true,
                Tag::False => false,
                other => {
                    return Err(checker.err_at(
                        "complete",
                        format!("must be a boolean (got {})", found(other, head.numbers[2])),
                    ))
                }
            };
            if head.candidates != Tag::Array {
                return Err(checker.err_at(
                    "candidates",
                    format!(
                        "must be an array (got {})",
                        found(head.candidates, head.numbers[1])
                    ),
                ));
            }
            complete
        }
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
    if count > MAX_LIST_CANDIDATES {
        return Err(match head.value {
            Tag::Array => checker.err(
                Field::Value,
                format!("{count} candidates, more than the {MAX_LIST_CANDIDATES} one list() result may hold"),
            ),
            _ => checker.err_at(
                "candidates",
                format!("has {count} items, more than the {MAX_LIST_CANDIDATES} candidates one list() result may hold"),
            ),
        });
    }
    Ok(complete)
}

/// Validate what JS provider `provider`'s `list()` returned: an array of
/// candidates (complete) or `{ candidates, complete }` (see
/// [`validate_list_head`]). `records` are the candidates (none unless `head`
/// says there is an array of them), validated in order: the first invalid
/// one is reported. A host may pack only up to the first candidate that is
/// not an object (that one included): the result is refused at it all the
/// same.
pub fn validate_listing(
    provider: &str,
    head: &ListHead,
    records: &Records<'_>,
) -> Result<HostListing, ValidationError> {
    let complete = validate_list_head(provider, head, records.len())?;
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
/// (both invocation surfaces, source and provider `runtime`). As for provider
/// values, a `resourceBase` of an unknown kind passes through.
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
    checker.resource_base(&r)?;
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

mod owned;
#[cfg(test)]
mod tests;

pub use owned::OwnedRecords;
