//! Reading JS values into the core's loosely typed [`Raw`] for validation.
//!
//! Only the fields the registry needs are read; locators, metadata contents and
//! anything else stay in JS untouched.

use napi::bindgen_prelude::*;
use napi::JsValue;
use skill_core::model::Raw;

/// Top-level fields read from candidates, definitions and registrations.
const SKILL_FIELDS: &[&str] = &[
    "name",
    "description",
    "whenToUse",
    "invocation",
    "source",
    "provider",
    "resourceBase",
    "rank",
    "path",
    "metadata",
    "content",
];
const INVOCATION_FIELDS: &[&str] = &["modelInvocable", "userInvocable"];
const RESOURCE_FIELDS: &[&str] = &["kind", "path", "url", "description"];

fn scalar(value: &Unknown<'_>) -> Result<Raw> {
    Ok(match value.get_type()? {
        ValueType::Undefined => Raw::Undefined,
        ValueType::Null => Raw::Null,
        // SAFETY: each cast matches the type just reported by `get_type`.
        ValueType::Boolean => Raw::Bool(unsafe { value.cast::<bool>()? }),
        ValueType::Number => Raw::Number(unsafe { value.cast::<f64>()? }),
        ValueType::String => Raw::String(unsafe { value.cast::<String>()? }),
        ValueType::Object => {
            if value.is_array()? {
                Raw::Array
            } else {
                Raw::Object(Vec::new())
            }
        }
        ValueType::Function => Raw::Other("function"),
        ValueType::Symbol => Raw::Other("symbol"),
        ValueType::BigInt => Raw::Other("bigint"),
        _ => Raw::Other("unknown"),
    })
}

fn object_fields(value: &Unknown<'_>, keys: &[&str], nested: bool) -> Result<Raw> {
    let raw = scalar(value)?;
    let Raw::Object(_) = raw else {
        return Ok(raw);
    };
    // SAFETY: `scalar` reported a non-array object.
    let object: Object<'_> = unsafe { value.cast()? };
    let mut fields = Vec::with_capacity(keys.len());
    for key in keys {
        let field: Unknown<'_> = object.get_named_property(key)?;
        let parsed = match (*key, nested) {
            ("invocation", true) => object_fields(&field, INVOCATION_FIELDS, false)?,
            ("resourceBase", true) => object_fields(&field, RESOURCE_FIELDS, false)?,
            _ => scalar(&field)?,
        };
        if parsed != Raw::Undefined {
            fields.push((key.to_string(), parsed));
        }
    }
    Ok(Raw::Object(fields))
}

/// Read a candidate, definition or registration object.
pub fn skill_like(value: &Unknown<'_>) -> Result<Raw> {
    object_fields(value, SKILL_FIELDS, true)
}
