//! Binding module.
