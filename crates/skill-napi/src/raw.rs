//! Host values arrive as JSON text and become the core's loosely typed [`Raw`].
//!
//! JS serialises only the fields the registry reads (`JSON.stringify` with the
//! key list in `lib/registry.js`), so one string crosses the boundary instead of
//! dozens of property reads per candidate; locators and metadata contents stay
//! in JS. JSON turns non-finite numbers into `null`, which the validators report
//! as "null or a non-finite number".

use crate::util::invalid_arg;
use skill_core::model::Raw;

/// Parse JSON text produced by the JS layer.
pub fn parse(text: &str) -> napi::Result<Raw> {
    serde_json::from_str(text).map_err(|e| invalid_arg(format!("malformed value from JS: {e}")))
}
