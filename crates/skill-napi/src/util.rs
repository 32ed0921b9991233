//! Error conversion, the panic guard and the log switch shared by every export.
//!
//! Panic policy: the workspace builds with `panic = "unwind"`. Every exported
//! function and method carries `#[napi(catch_unwind)]`, and work run off the JS
//! thread goes through [`guard`], so a Rust panic becomes a JS `Error` whose
//! message starts with `dsh-skill-native internal error` instead of aborting Node.

use napi::{Error, Status};
use std::fmt::Display;
use std::io::IsTerminal;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// A JS `Error` for caller misuse (bad arguments, bad config).
pub fn invalid_arg(message: impl Display) -> Error {
    Error::new(Status::InvalidArg, message.to_string())
}

/// A JS `Error` for a failure with a message.
pub fn failure(message: impl Display) -> Error {
    Error::new(Status::GenericFailure, message.to_string())
}

fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_string()
    }
}

/// Run `f`, turning a panic into an error.
pub fn guard<T>(f: impl FnOnce() -> napi::Result<T>) -> napi::Result<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(payload) => Err(failure(format!(
            "dsh-skill-native internal error: {}",
            panic_message(payload)
        ))),
    }
}

/// Turn on `tracing` output on stderr when `DSH_SKILL_LOG` is set (for example
/// `DSH_SKILL_LOG=debug` or `DSH_SKILL_LOG=skill_core=trace`). Colours only when
/// stderr is a terminal, so a redirected log holds no escape codes.
#[napi_derive::module_init]
fn init() {
    if let Ok(filter) = std::env::var("DSH_SKILL_LOG") {
        if filter.is_empty() {
            return;
        }
        let _ = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
            .with_writer(std::io::stderr)
            .with_ansi(std::io::stderr().is_terminal())
            .try_init();
    }
}
