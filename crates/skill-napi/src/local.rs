//! Binding for the local provider (see `skill_core::local`).

use crate::convert::{
    candidates_to_json, definition_to_js, optional_object, optional_string, parse_json,
    strings_to_js,
};
use crate::util::{failure, guard, invalid_arg};
use napi::bindgen_prelude::{
    AsyncTask, Env, JsValue, Object, ObjectFinalize, Result, ToNapiValue, Unknown,
};
use napi::ScopedTask;
use napi_derive::napi;
use skill_core::local::{Diagnosis, Discovery, LoadError, LocalOptions, LocalProvider};
use skill_core::model::{Candidate, InvocationPolicy, Locator, SkillDefinition, SkillSummary};
use skill_core::provider::LookupContext;
use skill_core::watch::{LocalWatcher, Stamp};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

/// Configuration of a `NativeLocalProvider`. The JS layer fills in the
/// defaults that come from the environment (`process.env` and the home
/// directory): the OS environment is never read here.
#[napi(object)]
#[derive(Default)]
pub struct NativeLocalProviderConfig {
    /// Provider name (default `local`; not empty, not `runtime`).
    pub provider_name: Option<String>,
    /// Scan the project's `.dsh/skills` and `.agents/skills` and the user
    /// roots (default true).
    pub include_default_roots: Option<bool>,
    /// Scan the project roots of every directory from `cwd` up to the project
    /// root, nearest first (default false).
    pub nested_roots: Option<bool>,
    /// Compatibility roots: `claude`, `codex` (default none).
    pub compat_roots: Option<Vec<String>>,
    /// The Claude home (required with `compatRoots: ['claude']`).
    pub claude_home: Option<String>,
    /// The Codex home (required with `compatRoots: ['codex']`).
    pub codex_home: Option<String>,
    /// The DSH home (required with the default roots).
    pub dsh_home: Option<String>,
    /// The agents home (required with the default roots).
    pub agents_home: Option<String>,
    /// Extra roots (rank 300, source `custom`), in order.
    pub custom_skill_dirs: Option<Vec<String>>,
    /// Bundled root (rank 600), if any.
    pub bundled_skill_dir: Option<String>,
    /// Larger skill files are skipped with a warning (default 1 MiB).
    pub max_skill_file_bytes: Option<f64>,
    /// Watch roots (default true).
    pub watch: Option<bool>,
    /// Poll instead of native events (default false).
    pub watch_use_polling: Option<bool>,
    /// Write stability threshold in ms (default 200).
    pub watch_stability_threshold_ms: Option<f64>,
    /// Polling interval in ms (default 100).
    pub watch_poll_interval_ms: Option<f64>,
    /// Project watchers kept (default 128).
    pub watch_max_projects: Option<f64>,
    /// Follow symbolic links when watching (default true).
    pub watch_follow_symlinks: Option<bool>,
}

impl From<NativeLocalProviderConfig> for LocalOptions {
    fn from(c: NativeLocalProviderConfig) -> Self {
        LocalOptions {
            provider_name: c.provider_name,
            include_default_roots: c.include_default_roots,
            nested_roots: c.nested_roots,
            compat_roots: c.compat_roots,
            claude_home: c.claude_home,
            codex_home: c.codex_home,
            dsh_home: c.dsh_home,
            agents_home: c.agents_home,
            custom_skill_dirs: c.custom_skill_dirs,
            bundled_skill_dir: c.bundled_skill_dir,
            max_skill_file_bytes: c.max_skill_file_bytes,
            watch: c.watch,
            watch_use_polling: c.watch_use_polling,
            watch_stability_threshold_ms: c.watch_stability_threshold_ms,
            watch_poll_interval_ms: c.watch_poll_interval_ms,
            watch_max_projects: c.watch_max_projects,
            watch_follow_symlinks: c.watch_follow_symlinks,
        }
    }
}

/// The native memory a provider told V8 about (`napi_adjust_external_memory`),
/// so that V8's garbage collector weighs a provider object by what it keeps
/// alive. Updated on the JS thread: at construction, when a call resolves, at
/// `close()`; withdrawn when the object is finalised.
#[derive(Default)]
pub(crate) struct External {
    /// Bytes reported; `None` once the object was finalised.
    reported: Mutex<Option<i64>>,
}

impl External {
    fn new() -> Arc<Self> {
        Arc::new(Self {
            reported: Mutex::new(Some(0)),
        })
    }

    /// Report what `provider` holds now.
    pub(crate) fn sync(&self, env: &Env, provider: &LocalProvider) {
        let mut reported = self.reported.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(last) = *reported else { return };
        let now = i64::try_from(provider.memory().total_bytes).unwrap_or(i64::MAX);
        if now != last && env.adjust_external_memory(now - last).is_ok() {
            *reported = Some(now);
        }
    }

    /// Withdraw everything reported (the object is gone).
    fn release(&self, env: &Env) {
        let last = self
            .reported
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(last) = last.filter(|n| *n != 0) {
            let _ = env.adjust_external_memory(-last);
        }
    }

    fn reported(&self) -> i64 {
        self.reported
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .unwrap_or(0)
    }
}

/// The native local filesystem skill provider. Discovery and loading run on
/// the libuv thread pool; results are plain JS objects.
#[napi(custom_finalize)]
pub struct NativeLocalProvider {
    inner: Arc<LocalProvider>,
    external: Arc<External>,
    /// The watcher installed, unless `watch: false` (diagnostics).
    watcher: Option<Arc<LocalWatcher>>,
}

/// A moment on two clocks, in milliseconds.
#[napi(object)]
pub struct NativeWatchStamp {
    /// `CLOCK_MONOTONIC` (on Unix the clock of `process.hrtime.bigint()`,
    /// divided by 1e6).
    pub monotonic_ms: f64,
    /// Wall clock since the Unix epoch (the clock of file times).
    pub realtime_ms: f64,
}

/// One watched directory.
#[napi(object)]
pub struct NativeWatchedDir {
    /// The path the provider knows it by (a configured root, a bundle).
    pub path: String,
    /// The path the OS watches it through (a root's real path, or with
    /// `watchFollowSymlinks: false` a symlinked root's own path).
    pub os: String,
}

/// What the watcher did and when (diagnostics; see `skill_core::watch::WatchStats`).
#[napi(object)]
pub struct NativeWatchDiagnostics {
    /// Watched directories, sorted by path.
    pub watches: Vec<NativeWatchedDir>,
    /// Batches published (listeners notified).
    pub publications: f64,
    /// Of those, batches whose every change lookups had already applied
    /// (listeners notified without a second invalidation).
    pub applied_publications: f64,
    /// Silent invalidations by lookups catching up (read-your-writes).
    pub catch_ups: f64,
    /// When a catalog change was last noted.
    pub last_change: Option<NativeWatchStamp>,
    /// When the last publication started.
    pub last_publication: Option<NativeWatchStamp>,
    /// When the last silent invalidation by a lookup started.
    pub last_catch_up: Option<NativeWatchStamp>,
}

fn stamp(stamp: Option<Stamp>) -> Option<NativeWatchStamp> {
    stamp.map(|s| NativeWatchStamp {
        monotonic_ms: s.monotonic_ns as f64 / 1e6,
        realtime_ms: s.realtime_ns as f64 / 1e6,
    })
}

impl NativeLocalProvider {
    /// The core provider (for native registration in a registry).
    pub(crate) fn core(&self) -> Arc<LocalProvider> {
        self.inner.clone()
    }

    /// The external memory accounting of this provider object.
    pub(crate) fn external(&self) -> Arc<External> {
        self.external.clone()
    }
}

impl ObjectFinalize for NativeLocalProvider {
    fn finalize(self, env: Env) -> Result<()> {
        self.external.release(&env);
        Ok(())
    }
}

/// The native memory of a provider (estimates; see `memoryUse()`).
#[napi(object)]
pub struct NativeMemoryUse {
    /// Files whose parse is cached.
    pub parse_cache_files: u32,
    /// Bytes the parse cache accounts for.
    pub parse_cache_bytes: f64,
    /// Roots whose logged warnings are remembered.
    pub warned: u32,
    /// Everything the provider holds natively.
    pub total_bytes: f64,
    /// What V8 was told (external memory) for this object.
    pub reported_bytes: f64,
}

fn cwd_path(cwd: Option<String>) -> Option<PathBuf> {
    cwd.filter(|c| !c.is_empty()).map(PathBuf::from)
}

fn lookup(cwd: Option<String>) -> LookupContext {
    LookupContext::new(cwd_path(cwd))
}

#[napi]
impl NativeLocalProvider {
    /// Validate the configuration. Throws on a non-positive-integer tunable,
    /// an empty path, a missing home, an unknown compatibility root, an empty
    /// or reserved provider name, or an option that shapes the default roots
    /// without them.
    #[napi(constructor, catch_unwind)]
    pub fn new(env: Env, config: Option<NativeLocalProviderConfig>) -> Result<Self> {
        let options: LocalOptions = config.unwrap_or_default().into();
        let config = options.resolve_with(&|_| None).map_err(invalid_arg)?;
        let provider = LocalProvider::new(config);
        // Diagnostics: `DSH_SKILL_KEEP_LISTINGS=0` lists every root on every
        // discovery (docs/known-problems.md).
        if std::env::var_os("DSH_SKILL_KEEP_LISTINGS").is_some_and(|v| v == "0") {
            provider.keep_listings(false);
        }
        // Hot refresh (unless `watch: false`): every lookup's roots get watched.
        let watcher = LocalWatcher::installed(&provider);
        let external = External::new();
        external.sync(&env, &provider);
        Ok(Self {
            inner: Arc::new(provider),
            external,
            watcher,
        })
    }

    /// Provider name (`providerName`, default `local`).
    #[napi(getter, catch_unwind)]
    pub fn name(&self) -> String {
        self.inner.config().provider_name.clone()
    }

    /// Discover candidates for `cwd` (no project roots without one).
    #[napi(
        catch_unwind,
        ts_return_type = "Promise<{ candidates: object[]; complete: boolean; warnings: string[] }>"
    )]
    pub fn list(&self, cwd: Option<String>) -> AsyncTask<ListTask> {
        AsyncTask::new(ListTask {
            provider: self.inner.clone(),
            external: self.external.clone(),
            ctx: lookup(cwd),
        })
    }

    /// Re-read and re-parse the file behind a listed candidate. Resolves to
    /// the definition, or `undefined` when the file is gone or no longer a
    /// valid skill; rejects on unexpected I/O failures and for a path that is
    /// not a skill file of a configured root (or of `cwd`'s project).
    #[napi(
        catch_unwind,
        ts_args_type = "candidate: { path?: string; source?: string; rank?: number; resourceBase?: object; locator?: unknown; name?: string }, cwd?: string | undefined | null",
        ts_return_type = "Promise<object | undefined>"
    )]
    pub fn get(&self, candidate: Object, cwd: Option<String>) -> Result<AsyncTask<GetTask>> {
        Ok(AsyncTask::new(GetTask {
            provider: self.inner.clone(),
            external: self.external.clone(),
            candidate: candidate_from_js(&candidate)?,
            cwd: cwd_path(cwd),
            detailed: false,
        }))
    }

    /// The definition `get` would resolve to, when one loaded before is
    /// still what its file holds (a watched root whose watcher noted nothing
    /// leading to it since; no file is read). `null`: call `get`.
    #[napi(
        catch_unwind,
        ts_args_type = "candidate: { path?: string; source?: string; rank?: number; resourceBase?: object; locator?: unknown; name?: string }, cwd?: string | undefined | null",
        ts_return_type = "object | null"
    )]
    pub fn load_kept<'e>(
        &self,
        env: &'e Env,
        candidate: Object,
        cwd: Option<String>,
    ) -> Result<Option<Object<'e>>> {
        let candidate = candidate_from_js(&candidate)?;
        let cwd = cwd_path(cwd);
        match guard(|| Ok(self.inner.load_kept(&candidate, cwd.as_deref())))? {
            Some(definition) => Ok(Some(definition_to_js(env, &definition)?)),
            None => Ok(None),
        }
    }

    /// Like `get`, but resolves to `{ definition?, warning? }` so the caller
    /// can log why a present file is not loadable.
    #[napi(
        catch_unwind,
        ts_args_type = "candidate: { path?: string; source?: string; rank?: number; resourceBase?: object; locator?: unknown; name?: string }, cwd?: string | undefined | null",
        ts_return_type = "Promise<{ definition?: object; warning?: string }>"
    )]
    pub fn load(&self, candidate: Object, cwd: Option<String>) -> Result<AsyncTask<GetTask>> {
        Ok(AsyncTask::new(GetTask {
            provider: self.inner.clone(),
            external: self.external.clone(),
            candidate: candidate_from_js(&candidate)?,
            cwd: cwd_path(cwd),
            detailed: true,
        }))
    }

    /// One record per root and per file considered for `cwd`.
    #[napi(catch_unwind, ts_return_type = "Promise<object>")]
    pub fn diagnose(&self, cwd: Option<String>) -> AsyncTask<DiagnoseTask> {
        AsyncTask::new(DiagnoseTask {
            provider: self.inner.clone(),
            external: self.external.clone(),
            ctx: lookup(cwd),
        })
    }

    /// A first-party write or edit touched `path`; returns whether the
    /// catalog was invalidated. Listeners are not notified from here: the JS
    /// caller notifies them synchronously through its registration's control.
    #[napi(catch_unwind)]
    pub fn observe_host_mutation(&self, path: String) -> bool {
        self.inner
            .observe_host_mutation_silently(std::path::Path::new(&path))
    }

    /// Stop watching and release the native state only a watched provider
    /// needs (the watcher, the parse cache, the record of logged warnings);
    /// idempotent. Discovery and loading keep working, unwatched.
    #[napi(catch_unwind)]
    pub fn close(&self, env: Env) {
        self.inner.close();
        self.external.sync(&env, &self.inner);
    }

    /// Tell V8 what this provider holds now (external memory). The registry
    /// calls it when a lookup through it has read the disk, whose caches
    /// grow; this object's own calls do it themselves.
    #[napi(catch_unwind)]
    pub fn sync_memory(&self, env: Env) {
        self.external.sync(&env, &self.inner);
    }

    /// The native memory this provider holds (estimates) and what V8 was
    /// last told about it (not updated by this call). A diagnostic.
    #[napi(catch_unwind)]
    pub fn memory_use(&self) -> NativeMemoryUse {
        let m = self.inner.memory();
        NativeMemoryUse {
            parse_cache_files: u32::try_from(m.parse_cache_files).unwrap_or(u32::MAX),
            parse_cache_bytes: m.parse_cache_bytes as f64,
            warned: u32::try_from(m.warned).unwrap_or(u32::MAX),
            total_bytes: m.total_bytes as f64,
            reported_bytes: self.external.reported() as f64,
        }
    }

    /// Whether `close()` was called.
    #[napi(getter, catch_unwind)]
    pub fn closed(&self) -> bool {
        self.inner.is_closed()
    }

    /// The watcher's diagnostics: what it watches (and through which path)
    /// and when it last noted a change and invalidated; `null` with
    /// `watch: false`.
    #[napi(catch_unwind)]
    pub fn watch_diagnostics(&self) -> Option<NativeWatchDiagnostics> {
        let watcher = self.watcher.as_ref()?.watcher();
        let stats = watcher.stats();
        let text = |p: PathBuf| p.to_string_lossy().into_owned();
        Some(NativeWatchDiagnostics {
            watches: watcher
                .os_paths()
                .into_iter()
                .map(|(path, os)| NativeWatchedDir {
                    path: text(path),
                    os: text(os),
                })
                .collect(),
            publications: stats.publications as f64,
            applied_publications: stats.applied_publications as f64,
            catch_ups: stats.catch_ups as f64,
            last_change: stamp(stats.last_change),
            last_publication: stamp(stats.last_publication),
            last_catch_up: stamp(stats.last_catch_up),
        })
    }
}

/// The skill file a JS candidate names (`path`, else `locator.path`).
pub(crate) fn candidate_path(obj: &Object<'_>) -> Result<String> {
    const WHAT: &str = "candidate";
    let locator_path = match optional_object(obj, "locator", WHAT)? {
        Some(locator) => optional_string(&locator, "path", "candidate.locator")?,
        None => None,
    };
    optional_string(obj, "path", WHAT)?
        .or(locator_path)
        .ok_or_else(|| invalid_arg("candidate.path must be a string (the skill file)"))
}

/// What loading needs from a JS candidate: its skill file (and name).
fn candidate_from_js(obj: &Object<'_>) -> Result<Candidate> {
    let path = candidate_path(obj)?;
    Ok(Candidate {
        summary: SkillSummary {
            name: optional_string(obj, "name", "candidate")?.unwrap_or_default(),
            description: String::new(),
            when_to_use: None,
            invocation: InvocationPolicy::default(),
            source: String::new(),
            provider: String::new(),
            resource_base: None,
        },
        rank: 0.0,
        path: Some(path),
        metadata: None,
        locator: Locator::None,
        fingerprint: None,
        lead: None,
    })
}

/// `list()` work.
pub struct ListTask {
    provider: Arc<LocalProvider>,
    external: Arc<External>,
    ctx: LookupContext,
}

/// Discovery result with the candidates already serialised.
pub struct Listed {
    candidates_json: String,
    complete: bool,
    warnings: Vec<String>,
}

impl<'task> ScopedTask<'task> for ListTask {
    type Output = Listed;
    type JsValue = Object<'task>;

    fn compute(&mut self) -> Result<Listed> {
        let provider = self.provider.clone();
        let ctx = self.ctx.clone();
        guard(move || {
            let d: Discovery = provider.discover(&ctx);
            Ok(Listed {
                candidates_json: candidates_to_json(&d.observation.candidates).map_err(failure)?,
                complete: d.observation.complete,
                warnings: d.warnings,
            })
        })
    }

    fn resolve(&mut self, env: &'task Env, output: Listed) -> Result<Object<'task>> {
        self.external.sync(env, &self.provider);
        let mut obj = Object::new(env)?;
        obj.set("candidates", parse_json(env, output.candidates_json)?)?;
        obj.set("complete", output.complete)?;
        obj.set("warnings", strings_to_js(env, &output.warnings)?)?;
        Ok(obj)
    }
}

/// `get()` / `load()` work.
pub struct GetTask {
    provider: Arc<LocalProvider>,
    external: Arc<External>,
    candidate: Candidate,
    cwd: Option<PathBuf>,
    detailed: bool,
}

impl<'task> ScopedTask<'task> for GetTask {
    type Output = std::result::Result<Option<SkillDefinition>, LoadError>;
    type JsValue = Unknown<'task>;

    fn compute(&mut self) -> Result<Self::Output> {
        let provider = self.provider.clone();
        let candidate = self.candidate.clone();
        let cwd = self.cwd.clone();
        guard(move || Ok(provider.load(&candidate, cwd.as_deref())))
    }

    fn resolve(&mut self, env: &'task Env, output: Self::Output) -> Result<Unknown<'task>> {
        self.external.sync(env, &self.provider);
        let (definition, warning) = match output {
            Ok(d) => (d, None),
            Err(LoadError::Invalid { path, reason }) => {
                (None, Some(format!("skill file {path} skipped: {reason}")))
            }
            Err(e) => return Err(failure(e)),
        };
        if !self.detailed {
            return match definition {
                Some(d) => Ok(definition_to_js(env, &d)?.to_unknown()),
                None => ().into_unknown(env),
            };
        }
        let mut obj = Object::new(env)?;
        if let Some(d) = definition {
            obj.set("definition", definition_to_js(env, &d)?)?;
        }
        if let Some(w) = warning {
            obj.set("warning", w)?;
        }
        Ok(obj.to_unknown())
    }
}

/// `diagnose()` work.
pub struct DiagnoseTask {
    provider: Arc<LocalProvider>,
    external: Arc<External>,
    ctx: LookupContext,
}

impl<'task> ScopedTask<'task> for DiagnoseTask {
    type Output = Diagnosis;
    type JsValue = Unknown<'task>;

    fn compute(&mut self) -> Result<Diagnosis> {
        let provider = self.provider.clone();
        let ctx = self.ctx.clone();
        guard(move || Ok(provider.diagnose(&ctx)))
    }

    fn resolve(&mut self, env: &'task Env, output: Diagnosis) -> Result<Unknown<'task>> {
        self.external.sync(env, &self.provider);
        env.to_js_value(&output)
    }
}
