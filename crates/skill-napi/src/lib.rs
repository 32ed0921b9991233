//! Node-API binding for `skill-core`. Conversions at the edge and thread bridges
//! only; every rule lives in the core crate.
#![deny(clippy::all)]

pub mod catalog;
pub mod convert;
pub mod embed;
pub mod entries;
pub mod local;
pub mod local_fs;
pub mod raw;
pub mod registry;
pub mod search;
pub mod structured;
#[cfg(feature = "test-hooks")]
pub mod test_hooks;
pub mod util;
