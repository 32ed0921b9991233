//! Exports that exist only for the JS tests (the panic policy, the entry-order
//! comparator). Compiled only with
//! the `test-hooks` cargo feature, which the test suite turns on for its own
//! build of the addon; release and install builds never enable it, so the
//! published addon has none of these functions.
//!
//! The panics raised here are expected: a panic hook keeps them off stderr (a
//! passing test run must not print `thread … panicked` and a backtrace), while
//! any other panic still goes to the previous hook.

use crate::util::guard;
use napi::bindgen_prelude::AsyncTask;
use std::sync::Once;

/// Install, once, a panic hook that stays silent for panics raised in this file.
fn quiet_test_panics() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if info
                .location()
                .is_some_and(|at| at.file().ends_with("test_hooks.rs"))
            {
                return;
            }
            previous(info);
        }));
    });
}

/// Panics inside an export, on the JS thread.
#[napi_derive::napi(catch_unwind, js_name = "__panicForTest")]
pub fn panic_for_test(message: String) -> napi::Result<()> {
    quiet_test_panics();
    if message.is_empty() {
        return Ok(());
    }
    panic!("{message}")
}

/// Panics inside work run off the JS thread (on the libuv pool).
#[napi_derive::napi(js_name = "__panicOffThreadForTest")]
pub fn panic_off_thread_for_test(message: String) -> AsyncTask<PanicTask> {
    quiet_test_panics();
    AsyncTask::new(PanicTask(message))
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

/// Test hook: compare two names with the entry order of a skill root (the
/// approximation of `String.prototype.localeCompare`). Returns -1, 0 or 1.
#[napi_derive::napi(catch_unwind, js_name = "__localeCompareForTest")]
pub fn locale_compare_for_test(a: String, b: String) -> i32 {
    match skill_core::local::order::locale_compare(&a, &b) {
        std::cmp::Ordering::Less => -1,
        std::cmp::Ordering::Equal => 0,
        std::cmp::Ordering::Greater => 1,
    }
}
