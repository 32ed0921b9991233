//! Conversions between `skill-core` values and plain JS objects, shared by
//! every binding module.
//!
//! Objects are built property by property with the field names and shapes of
//! the public typings (`SkillSummary`, `SkillCandidate`, `SkillDefinition`);
//! optional fields that are absent are omitted rather than set to `undefined`.

use crate::util::invalid_arg;
use napi::bindgen_prelude::{Env, Object, Result, Unknown, ValueType};
use skill_core::model::{
    Candidate, InvocationPolicy, Locator, ResourceBase, SkillDefinition, SkillSummary,
};

/// `{ modelInvocable, userInvocable }`.
pub fn invocation_to_js<'e>(env: &'e Env, policy: &InvocationPolicy) -> Result<Object<'e>> {
    let mut obj = Object::new(env)?;
    obj.set("modelInvocable", policy.model_invocable)?;
    obj.set("userInvocable", policy.user_invocable)?;
    Ok(obj)
}

/// `{ kind: 'directory', path }`, `{ kind: 'url', url }` or
/// `{ kind: 'opaque', description }`.
pub fn resource_base_to_js<'e>(env: &'e Env, base: &ResourceBase) -> Result<Object<'e>> {
    let mut obj = Object::new(env)?;
    match base {
        ResourceBase::Directory { path } => {
            obj.set("kind", "directory")?;
            obj.set("path", path.as_str())?;
        }
        ResourceBase::Url { url } => {
            obj.set("kind", "url")?;
            obj.set("url", url.as_str())?;
        }
        ResourceBase::Opaque { description } => {
            obj.set("kind", "opaque")?;
            obj.set("description", description.as_str())?;
        }
    }
    Ok(obj)
}

/// A JSON object (parsed `metadata`) as a plain JS object.
pub fn metadata_to_js<'e>(
    env: &'e Env,
    metadata: &serde_json::Map<String, serde_json::Value>,
) -> Result<Unknown<'e>> {
    env.to_js_value(metadata)
}

/// Write the `SkillSummary` fields onto `obj`.
pub fn set_summary_fields(env: &Env, obj: &mut Object<'_>, summary: &SkillSummary) -> Result<()> {
    obj.set("name", summary.name.as_str())?;
    obj.set("description", summary.description.as_str())?;
    if let Some(w) = &summary.when_to_use {
        obj.set("whenToUse", w.as_str())?;
    }
    obj.set("invocation", invocation_to_js(env, &summary.invocation)?)?;
    obj.set("source", summary.source.as_str())?;
    obj.set("provider", summary.provider.as_str())?;
    if let Some(base) = &summary.resource_base {
        obj.set("resourceBase", resource_base_to_js(env, base)?)?;
    }
    Ok(())
}

/// A `SkillDefinition` object.
pub fn definition_to_js<'e>(env: &'e Env, definition: &SkillDefinition) -> Result<Object<'e>> {
    let mut obj = Object::new(env)?;
    set_summary_fields(env, &mut obj, &definition.summary)?;
    obj.set("content", definition.content.as_str())?;
    if let Some(path) = &definition.path {
        obj.set("path", path.as_str())?;
    }
    if let Some(m) = &definition.metadata {
        obj.set("metadata", metadata_to_js(env, m)?)?;
    }
    Ok(obj)
}

/// An array of strings.
pub fn strings_to_js<'e>(env: &'e Env, items: &[String]) -> Result<Object<'e>> {
    let mut array = env.create_array(u32::try_from(items.len()).unwrap_or(u32::MAX))?;
    for (i, item) in items.iter().enumerate() {
        array.set(u32::try_from(i).unwrap_or(u32::MAX), item.as_str())?;
    }
    array.coerce_to_object()
}

/// A property that must be a string when present (`what` names the object in
/// errors, e.g. `candidate`).
pub fn optional_string(obj: &Object<'_>, key: &str, what: &str) -> Result<Option<String>> {
    let Some(value) = obj.get::<Unknown>(key)? else {
        return Ok(None);
    };
    match value.get_type()? {
        ValueType::String => Ok(Some(unsafe { value.cast::<String>() }?)),
        ValueType::Null => Ok(None),
        other => Err(invalid_arg(format!(
            "{what}.{key} must be a string (got {})",
            type_name(other)
        ))),
    }
}

/// A property that must be an object when present.
pub fn optional_object<'e>(obj: &Object<'e>, key: &str, what: &str) -> Result<Option<Object<'e>>> {
    let Some(value) = obj.get::<Unknown>(key)? else {
        return Ok(None);
    };
    match value.get_type()? {
        ValueType::Object => Ok(Some(unsafe { value.cast::<Object>() }?)),
        ValueType::Null => Ok(None),
        other => Err(invalid_arg(format!(
            "{what}.{key} must be an object (got {})",
            type_name(other)
        ))),
    }
}

fn type_name(t: ValueType) -> &'static str {
    match t {
        ValueType::Undefined => "undefined",
        ValueType::Null => "null",
        ValueType::Boolean => "boolean",
        ValueType::Number => "number",
        ValueType::String => "string",
        ValueType::Symbol => "symbol",
        ValueType::Object => "object",
        ValueType::Function => "function",
        ValueType::External => "external",
        ValueType::BigInt => "bigint",
        _ => "unknown",
    }
}

/// Serialisable view of a [`Candidate`] with the `SkillCandidate` field names.
/// The opaque `locator` is `{ path }` for a [`Locator::None`] candidate that
/// has a path (native providers), the index for [`Locator::Index`], else
/// absent.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct CandidateJson<'a> {
    name: &'a str,
    description: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    when_to_use: Option<&'a str>,
    invocation: &'a InvocationPolicy,
    source: &'a str,
    provider: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    resource_base: Option<&'a ResourceBase>,
    rank: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    locator: Option<LocatorJson<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    path: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    metadata: Option<&'a serde_json::Map<String, serde_json::Value>>,
}

#[derive(serde::Serialize)]
#[serde(untagged)]
enum LocatorJson<'a> {
    Path { path: &'a str },
    Index(u32),
}

/// Serialise candidates to a JSON array (off the JS thread); the JS side turns
/// it into objects with one `JSON.parse`, far cheaper than building every
/// property through Node-API. Non-finite ranks become `null`.
pub fn candidates_to_json(candidates: &[std::sync::Arc<Candidate>]) -> serde_json::Result<String> {
    let view: Vec<CandidateJson<'_>> = candidates
        .iter()
        .map(|c| CandidateJson {
            name: &c.summary.name,
            description: &c.summary.description,
            when_to_use: c.summary.when_to_use.as_deref(),
            invocation: &c.summary.invocation,
            source: &c.summary.source,
            provider: &c.summary.provider,
            resource_base: c.summary.resource_base.as_ref(),
            rank: c.rank,
            locator: match (&c.locator, &c.path) {
                (Locator::Index(i), _) => Some(LocatorJson::Index(*i)),
                (Locator::None, Some(path)) => Some(LocatorJson::Path { path }),
                (Locator::None, None) => None,
            },
            path: c.path.as_deref(),
            metadata: c.metadata.as_ref(),
        })
        .collect();
    serde_json::to_string(&view)
}

/// `JSON.parse(text)` in the given environment.
pub fn parse_json<'e>(env: &'e Env, text: String) -> Result<Unknown<'e>> {
    use napi::bindgen_prelude::{Function, JsObjectValue};
    let global = env.get_global()?;
    let json: Object = global.get_named_property("JSON")?;
    let parse: Function<String, Unknown> = json.get_named_property("parse")?;
    parse.call(text)
}
