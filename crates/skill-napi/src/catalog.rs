//! Binding for the catalog renderer (see `skill_core::catalog`).
