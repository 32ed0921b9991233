//! Binding for discovery through a host filesystem service
//! (`skill_core::local::service`).
//!
//! The JS layer performs the service calls (`resolve`, `stat`, `listDir`,
//! `readText`) asynchronously and reports each result here; every rule
//! (roots, classification, order, parsing, error codes) runs in the core. No
//! thread ever blocks on a JS promise.

use crate::convert::{candidates_to_json, definition_to_js, parse_json, strings_to_js};
use crate::local::{candidate_path, External, NativeLocalProvider};
use crate::util::{failure, guard};
use napi::bindgen_prelude::{AsyncTask, Env, Function, Object, Result, Status, Unknown};
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::{JsValue, ScopedTask};
use napi_derive::napi;
use skill_core::cancel::CancelToken;
use skill_core::local::service::{
    kind_of, project_probes, ServiceEntry, ServiceError, ServiceRead, ServiceScan,
};
use skill_core::local::{Diagnosis, Discovery, LoadError, LocalProvider};
use skill_core::provider::{Invalidate, NativeProvider};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

/// A directory probed for `.git` (`resolve(git)` then `stat`).
#[napi(object)]
pub struct NativeProjectProbe {
    /// The candidate project root.
    pub dir: String,
    /// `<dir>/.git`.
    pub git: String,
}

/// A root the host lists through its service.
#[napi(object)]
pub struct NativeServiceRoot {
    /// Index to report the listing under.
    pub index: u32,
    /// Root directory.
    pub path: String,
}

/// A skill file to read through the service (`resolve`, `stat`, `readText`).
#[napi(object)]
pub struct NativeReadRequest {
    /// Index to report the read under.
    pub id: u32,
    /// Skill file.
    pub path: String,
}

/// The result of reading one skill file through the service: `text`, or
/// `absent` (`stat` resolved to `undefined`), or `kind` (what `stat` found
/// instead of a file), or an error `code`/`message`.
#[napi(object)]
pub struct NativeServiceRead {
    /// `readText` result.
    pub text: Option<String>,
    /// `stat` found nothing.
    pub absent: Option<bool>,
    /// `stat(...).type` when it is not `file`.
    pub kind: Option<String>,
    /// The error's string `code`.
    pub code: Option<String>,
    /// The error's message.
    pub message: Option<String>,
}

impl From<NativeServiceRead> for ServiceRead {
    fn from(r: NativeServiceRead) -> Self {
        match (r.text, r.absent, r.kind) {
            (Some(text), _, _) => ServiceRead::Text(text),
            (None, Some(true), _) => ServiceRead::Absent,
            (None, _, Some(kind)) => ServiceRead::NotFile(kind_of(&kind)),
            (None, _, None) => ServiceRead::Error(error(r.code, r.message)),
        }
    }
}

fn error(code: Option<String>, message: Option<String>) -> ServiceError {
    ServiceError {
        message: message.unwrap_or_else(|| "file system service error".into()),
        code,
    }
}

type InvalidateFn = ThreadsafeFunction<(), Unknown<'static>, (), Status, false, true>;

/// Invalidates a JS registration (`control.invalidate`) from any thread.
struct JsInvalidator {
    tsfn: InvalidateFn,
}

impl Invalidate for JsInvalidator {
    fn invalidate(&self) -> bool {
        self.tsfn.call((), ThreadsafeFunctionCallMode::NonBlocking) == Status::Ok
    }

    /// The JS caller invalidates the registration itself, synchronously.
    fn invalidate_silently(&self) -> bool {
        true
    }
}

/// An optional path from JS; an empty string counts as none.
fn non_empty_path(path: Option<String>) -> Option<PathBuf> {
    path.filter(|p| !p.is_empty()).map(PathBuf::from)
}

#[napi]
impl NativeLocalProvider {
    /// The directories to probe for the project root of `cwd`, nearest first.
    /// None found: `cwd` (the first `dir`). Empty when the configuration has
    /// no project roots (nothing to probe).
    #[napi(catch_unwind)]
    pub fn project_probes(&self, cwd: String) -> Vec<NativeProjectProbe> {
        if !self.core().config().has_project_roots() {
            return Vec::new();
        }
        project_probes(Path::new(&cwd))
            .into_iter()
            .map(|p| NativeProjectProbe {
                dir: p.dir.to_string_lossy().into_owned(),
                git: p.git.to_string_lossy().into_owned(),
            })
            .collect()
    }

    /// Start discovery through a host filesystem service for a lookup from
    /// `cwd` whose project root is `projectRoot` (none without a `cwd`).
    #[napi(catch_unwind)]
    pub fn begin_service_scan(
        &self,
        project_root: Option<String>,
        cwd: Option<String>,
    ) -> NativeServiceScan {
        let provider = self.core();
        let project = non_empty_path(project_root);
        let cwd = non_empty_path(cwd);
        let scan = provider.begin_service_scan(project.as_deref(), cwd.as_deref());
        NativeServiceScan {
            provider,
            external: self.external(),
            state: Mutex::new(Some((scan, Vec::new()))),
        }
    }

    /// The skill file a candidate names (`path`, else `locator.path`), with
    /// `.` and `..` resolved, when it is a skill file of a configured root, of
    /// a recent lookup's project, or of the project of a lookup from `cwd`
    /// whose project root is `projectRoot`. Throws for any other path, and
    /// for a candidate without a path.
    #[napi(
        catch_unwind,
        ts_args_type = "candidate: { path?: string; locator?: unknown }, projectRoot?: string | undefined | null, cwd?: string | undefined | null"
    )]
    pub fn confine(
        &self,
        candidate: Object<'_>,
        project_root: Option<String>,
        cwd: Option<String>,
    ) -> Result<String> {
        let path = candidate_path(&candidate)?;
        let project = non_empty_path(project_root);
        let cwd = non_empty_path(cwd);
        self.core()
            .confine_in(Path::new(&path), project.as_deref(), cwd.as_deref())
            .map(|placement| placement.path.to_string_lossy().into_owned())
            .map_err(failure)
    }

    /// Parse the skill file `path` (as returned by `confine`) read through the
    /// service for `get()`. Returns `{ definition?, warning? }`; throws on an
    /// unexpected failure or a path `confine` refuses.
    #[napi(
        catch_unwind,
        ts_return_type = "{ definition?: object; warning?: string }"
    )]
    pub fn load_from_service<'e>(
        &self,
        env: &'e Env,
        path: String,
        project_root: Option<String>,
        cwd: Option<String>,
        read: NativeServiceRead,
    ) -> Result<Object<'e>> {
        let project = non_empty_path(project_root);
        let cwd = non_empty_path(cwd);
        let mut obj = Object::new(env)?;
        match self.core().load_from_service(
            Path::new(&path),
            project.as_deref(),
            cwd.as_deref(),
            read.into(),
        ) {
            Ok(Some(d)) => obj.set("definition", definition_to_js(env, &d)?)?,
            Ok(None) => {}
            Err(LoadError::Invalid { path, reason }) => {
                obj.set("warning", format!("skill file {path} skipped: {reason}"))?
            }
            Err(e) => return Err(failure(e)),
        }
        self.external().sync(env, &self.core());
        Ok(obj)
    }

    /// Route invalidations (watchers, host mutations) to `callback` — the
    /// `invalidate` of a JS registration — or stop with `null`.
    #[napi(catch_unwind)]
    pub fn attach_invalidator(
        &self,
        callback: Option<Function<'_, (), Unknown<'static>>>,
    ) -> Result<()> {
        let invalidator: Option<Arc<dyn Invalidate>> = match callback {
            Some(f) => {
                let tsfn: InvalidateFn = f
                    .build_threadsafe_function::<()>()
                    .callee_handled::<false>()
                    .weak::<true>()
                    .build()?;
                Some(Arc::new(JsInvalidator { tsfn }))
            }
            None => None,
        };
        self.core().attach(invalidator);
        Ok(())
    }
}

type ScanState = (ServiceScan, Vec<Option<ServiceRead>>);

/// One lookup's discovery through a host filesystem service: the JS layer
/// reports listings and reads, then finishes it once.
#[napi]
pub struct NativeServiceScan {
    provider: Arc<LocalProvider>,
    external: Arc<External>,
    state: Mutex<Option<ScanState>>,
}

impl NativeServiceScan {
    fn with<T>(&self, f: impl FnOnce(&mut ScanState) -> T) -> Option<T> {
        self.state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_mut()
            .map(f)
    }

    fn take(&self) -> Option<ScanState> {
        self.state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }
}

#[napi]
impl NativeServiceScan {
    /// The project root of the lookup.
    #[napi(getter, catch_unwind)]
    pub fn project_root(&self) -> Option<String> {
        self.with(|(scan, _)| {
            scan.project_root()
                .map(|p| p.to_string_lossy().into_owned())
        })
        .flatten()
    }

    /// The roots to list through the service (all but the bundled one).
    #[napi(catch_unwind)]
    pub fn roots(&self) -> Vec<NativeServiceRoot> {
        self.with(|(scan, _)| {
            scan.service_roots()
                .into_iter()
                .map(|i| NativeServiceRoot {
                    index: i as u32,
                    path: scan.roots()[i].path.to_string_lossy().into_owned(),
                })
                .collect()
        })
        .unwrap_or_default()
    }

    /// Resolving or listing root `index` failed. `true`: `stat` the root's
    /// target and report its type with [`Self::root_stat`].
    #[napi(catch_unwind)]
    pub fn root_failed(&self, index: u32, code: Option<String>, message: Option<String>) -> bool {
        let e = error(code, message);
        self.with(|(scan, _)| scan.root_failed(index as usize, &e))
            .unwrap_or(false)
    }

    /// The type `stat` gave root `index` (`file`, `directory`, `other`), or
    /// `undefined` when it could not tell, after [`Self::root_failed`] asked.
    #[napi(catch_unwind)]
    pub fn root_stat(&self, index: u32, kind: Option<String>) {
        self.with(|(scan, _)| scan.root_stat(index as usize, kind.as_deref().map(kind_of)));
    }

    /// Root `index` was listed (`names[i]` has type `types[i]`: `file`,
    /// `directory` or `other`). Returns the skill files to read.
    #[napi(catch_unwind)]
    pub fn root_listed(
        &self,
        index: u32,
        names: Vec<String>,
        types: Vec<String>,
    ) -> Vec<NativeReadRequest> {
        let entries: Vec<ServiceEntry> = names
            .into_iter()
            .zip(
                types
                    .iter()
                    .map(String::as_str)
                    .chain(std::iter::repeat("other")),
            )
            .map(|(name, kind)| ServiceEntry {
                name,
                kind: kind_of(kind),
            })
            .collect();
        self.with(|(scan, reads)| {
            let requests = scan.root_listed(index as usize, &entries);
            if let Some(last) = requests.last() {
                if reads.len() <= last.id {
                    reads.resize(last.id + 1, None);
                }
            }
            requests
                .into_iter()
                .map(|r| NativeReadRequest {
                    id: r.id as u32,
                    path: r.path.to_string_lossy().into_owned(),
                })
                .collect()
        })
        .unwrap_or_default()
    }

    /// The result of read request `id`.
    #[napi(catch_unwind)]
    pub fn read(&self, id: u32, read: NativeServiceRead) {
        self.with(|(_, reads)| {
            if let Some(slot) = reads.get_mut(id as usize) {
                *slot = Some(read.into());
            }
        });
    }

    /// Finish into `{ candidates, complete, warnings }` (reads the bundled root
    /// natively, off the JS thread). Only once.
    #[napi(
        catch_unwind,
        ts_return_type = "Promise<{ candidates: object[]; complete: boolean; warnings: string[] }>"
    )]
    pub fn finish(&self) -> Result<AsyncTask<ServiceFinishTask>> {
        Ok(AsyncTask::new(ServiceFinishTask {
            provider: self.provider.clone(),
            external: self.external.clone(),
            state: Some(
                self.take()
                    .ok_or_else(|| failure("the scan is already finished"))?,
            ),
            diagnose: None,
        }))
    }

    /// Finish into the diagnosis `diagnose()` returns. Only once.
    #[napi(catch_unwind, ts_return_type = "Promise<object>")]
    pub fn finish_diagnosis(&self, cwd: Option<String>) -> Result<AsyncTask<ServiceFinishTask>> {
        Ok(AsyncTask::new(ServiceFinishTask {
            provider: self.provider.clone(),
            external: self.external.clone(),
            state: Some(
                self.take()
                    .ok_or_else(|| failure("the scan is already finished"))?,
            ),
            diagnose: Some(cwd.filter(|c| !c.is_empty()).map(PathBuf::from)),
        }))
    }
}

/// `finish()` / `finishDiagnosis()` work.
pub struct ServiceFinishTask {
    provider: Arc<LocalProvider>,
    external: Arc<External>,
    state: Option<ScanState>,
    /// `Some(cwd)` for a diagnosis.
    diagnose: Option<Option<PathBuf>>,
}

/// The finished scan.
pub enum Finished {
    /// For `list()`, candidates serialised.
    Listed {
        candidates_json: String,
        complete: bool,
        warnings: Vec<String>,
    },
    /// For `diagnose()`.
    Diagnosis(Diagnosis),
}

impl<'task> ScopedTask<'task> for ServiceFinishTask {
    type Output = Finished;
    type JsValue = Unknown<'task>;

    fn compute(&mut self) -> Result<Finished> {
        let provider = self.provider.clone();
        let state = self.state.take();
        let diagnose = self.diagnose.clone();
        guard(move || {
            let (scan, reads) = state.ok_or_else(|| failure("the scan is already finished"))?;
            let cancel = CancelToken::new();
            if let Some(cwd) = diagnose {
                return Ok(Finished::Diagnosis(provider.diagnose_service_scan(
                    scan,
                    reads,
                    cwd.as_deref(),
                    &cancel,
                )));
            }
            let d: Discovery = provider.finish_service_scan(scan, reads, &cancel);
            Ok(Finished::Listed {
                candidates_json: candidates_to_json(&d.observation.candidates).map_err(failure)?,
                complete: d.observation.complete,
                warnings: d.warnings,
            })
        })
    }

    fn resolve(&mut self, env: &'task Env, output: Finished) -> Result<Unknown<'task>> {
        self.external.sync(env, &self.provider);
        match output {
            Finished::Listed {
                candidates_json,
                complete,
                warnings,
            } => {
                let mut obj = Object::new(env)?;
                obj.set("candidates", parse_json(env, candidates_json)?)?;
                obj.set("complete", complete)?;
                obj.set("warnings", strings_to_js(env, &warnings)?)?;
                Ok(obj.to_unknown())
            }
            Finished::Diagnosis(d) => env.to_js_value(&d),
        }
    }
}
