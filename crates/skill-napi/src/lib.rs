//! Node-API binding for `skill-core`. Conversions at the edge and thread bridges
//! only; every rule lives in the core crate.
#![deny(clippy::all)]

mod catalog;
mod convert;
mod local;
mod registry;
mod util;
