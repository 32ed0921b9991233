//! Error conversion, the panic guard and the log switch shared by every export.
//!
//! Panic policy: the workspace builds with `panic = "unwind"`. Every exported
//! function and method carries `#[napi(catch_unwind)]`, and work run off the JS
//! thread goes through [`guard`], so a Rust panic becomes a JS `Error` whose
//! message starts with `dsh-skill-native internal error` instead of aborting Node.

use napi::{Error, Status};
use std::fmt::Display;
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
/// `DSH_SKILL_LOG=debug` or `DSH_SKILL_LOG=skill_core=trace`).
#[napi_derive::module_init]
fn init() {
    if let Ok(filter) = std::env::var("DSH_SKILL_LOG") {
        if filter.is_empty() {
            return;
        }
        let _ = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
            .with_writer(std::io::stderr)
            .try_init();
    }
}

/// Test hook: panics inside an export so the tests can prove the panic policy.
#[napi_derive::napi(catch_unwind, js_name = "__panicForTest")]
pub fn panic_for_test(message: String) -> napi::Result<()> {
    if message.is_empty() {
        return Ok(());
    }
    panic!("{message}")
}

/// Test hook: panics inside work run off the JS thread.
#[napi_derive::napi(js_name = "__panicOffThreadForTest")]
pub fn panic_off_thread_for_test(message: String) -> napi::bindgen_prelude::AsyncTask<PanicTask> {
    napi::bindgen_prelude::AsyncTask::new(PanicTask(message))
}

/// Task that panics in `compute`.
pub struct PanicTask(String);

impl napi::Task for PanicTask {
    type Output = ();
    type JsValue = ();

    fn compute(&mut self) -> napi::Result<()> {
        let message = self.0.clone();
        guard(move || panic!("{message}"))
    }

    fn resolve(&mut self, _env: napi::Env, _output: ()) -> napi::Result<()> {
        Ok(())
    }
}
