//! A lookup in progress: the JS providers' results handed over packed, the
//! native providers listed on the libuv pool, the merge.

use super::*;

/// One catalog collection in progress. JS knows which of its providers are
/// JS providers and which are native (it registered them), so it asks only for
/// what it needs: the native providers' discovery, and the merge.
#[napi]
pub struct NativeCollection {
    pub(super) cwd: Option<PathBuf>,
    pub(super) natives: NativeResults,
    /// Validated results of the JS providers, by position in the plan.
    pub(super) hosts: Mutex<Vec<Option<HostObservation>>>,
    pub(super) collection: Mutex<Option<Collection>>,
}

fn locked<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn tag(value: f64) -> Tag {
    Tag::from_u8(value as u8).unwrap_or(Tag::Undefined)
}

/// A `list()` result's head as JS packs it: `[tag of the result, tag of its
/// candidates, tag of its complete, and the three numbers behind them]`.
fn list_head(head: &[f64]) -> ListHead {
    let number = |i: usize| head.get(i).copied().unwrap_or(0.0);
    ListHead {
        value: tag(number(0)),
        candidates: tag(number(1)),
        complete: tag(number(2)),
        numbers: [number(3), number(4), number(5)],
    }
}

/// How a JS provider's `list()` ended (see [`NativeCollection::finish`]).
const LISTED: u8 = 0;
const RELEASED: u8 = 2;

/// What [`NativeCatalog::native_summaries_reusing`] hands back.
#[napi(object, object_from_js = false)]
pub struct NativeSummaries {
    /// For each native winner, in catalog order: its position among the
    /// native winners of the previous catalog when it is the very candidate
    /// that won there (same provider listing, nothing re-read), else -1.
    pub reuse: Float64Array,
    /// The summaries of the others (-1 in `reuse`), in catalog order,
    /// packed (see [`super::summaries`]).
    pub fresh: PackedSummaries,
}

/// What [`NativeCollection::finish`] hands back.
#[napi(object, object_from_js = false)]
pub struct FinishedCollection {
    /// The merged catalog.
    pub catalog: NativeCatalog,
    /// Its id.
    pub id: f64,
    /// Whether it is complete (and cached).
    pub complete: bool,
    /// The winners (see [`NativeCatalog::winners`]).
    pub winners: Float64Array,
    /// `position, code` pairs for the winners whose invocation an override
    /// rewrote (code 1 `user-only`, 2 `model-only`); empty without overrides.
    pub rewritten: Vec<f64>,
    /// Shadowed-duplicate warnings produced by the merge.
    pub warnings: Vec<String>,
    /// Ids of catalogs dropped from the cache since the last collection.
    pub evicted: Vec<f64>,
}

impl NativeCollection {
    /// Position in the plan and name of the JS provider in `slot`.
    fn host_name(&self, slot: f64) -> Result<(usize, String)> {
        let collection = locked(&self.collection);
        let collection = collection
            .as_ref()
            .ok_or_else(|| failure("collection already finished"))?;
        collection
            .providers
            .iter()
            .position(|p| p.slot == slot_id(slot) && p.native.is_none())
            .and_then(|i| Some((i, collection.providers.get(i)?.name.clone())))
            .ok_or_else(|| invalid_arg("no such JS provider in this collection"))
    }
}

#[napi]
impl NativeCollection {
    /// The catalog generation this collection started at.
    #[napi(getter, catch_unwind)]
    pub fn generation(&self) -> f64 {
        locked(&self.collection)
            .as_ref()
            .map_or(-1.0, |c| c.generation() as f64)
    }

    /// Slots of the JS providers to call, in plan order (each layer's in
    /// registration order, the nearest layer first).
    #[napi(catch_unwind)]
    pub fn host_slots(&self) -> Vec<f64> {
        locked(&self.collection)
            .as_ref()
            .map_or_else(Vec::new, |c| {
                c.providers
                    .iter()
                    .filter(|p| p.native.is_none())
                    .map(|p| p.slot as f64)
                    .collect()
            })
    }

    /// Ids of the runtime skills of the plan (its view's alone).
    #[napi(catch_unwind)]
    pub fn runtime_ids(&self) -> Vec<f64> {
        locked(&self.collection)
            .as_ref()
            .map_or_else(Vec::new, |c| c.runtime_ids().map(|id| id as f64).collect())
    }

    /// Slots of the native providers of the plan.
    #[napi(catch_unwind)]
    pub fn native_slots(&self) -> Vec<f64> {
        locked(&self.collection)
            .as_ref()
            .map_or_else(Vec::new, |c| {
                c.providers
                    .iter()
                    .filter(|p| p.native.is_some())
                    .map(|p| p.slot as f64)
                    .collect()
            })
    }

    /// Whether the plan has native providers (see [`Self::list_native`]).
    #[napi(getter, catch_unwind)]
    pub fn has_native(&self) -> bool {
        locked(&self.collection)
            .as_ref()
            .is_some_and(|c| c.providers.iter().any(|p| p.native.is_some()))
    }

    /// Check the shape of what the JS provider in `slot` returned from
    /// `list()` before its candidates are read: `head` as in
    /// [`Self::add_listing`], `count` the length of its candidates array.
    /// Throws naming the provider and the problem (`complete` is checked
    /// before `candidates`; at most 1,000,000 candidates).
    #[napi(catch_unwind)]
    pub fn check_listing(&self, slot: f64, head: Vec<f64>, count: f64) -> Result<()> {
        let name = self.host_name(slot)?.1;
        let count = if count.is_finite() && count >= 0.0 {
            count as usize
        } else {
            usize::MAX
        };
        validate_list_head(&name, &list_head(&head), count)
            .map(|_| ())
            .map_err(validation)
    }

    /// The native provider's discovery right here, when it can do it at once
    /// (a watched provider whose kept listings cover the lookup: a few small
    /// reads at most; see `NativeProvider::list_kept`): its warnings, the
    /// result kept for [`Self::finish`]. `null` when [`Self::list_native`]
    /// must run it (also with more than one native provider).
    #[napi(catch_unwind)]
    pub fn list_native_kept(&self) -> Result<Option<Vec<NativeWarning>>> {
        let native = locked(&self.collection).as_ref().and_then(|c| {
            let mut natives = c
                .providers
                .iter()
                .enumerate()
                .filter_map(|(i, p)| p.native.clone().map(|n| (i, p.slot, n)));
            let first = natives.next();
            first.filter(|_| natives.next().is_none())
        });
        let Some((index, slot, provider)) = native else {
            return Ok(None);
        };
        let ctx = LookupContext::new(self.cwd.clone());
        let Some((obs, warnings)) = guard(|| Ok(provider.list_kept(&ctx)))? else {
            return Ok(None);
        };
        if let Some(result) = locked(&self.natives).get_mut(index) {
            *result = Some(obs);
        }
        Ok(Some(
            warnings
                .into_iter()
                .map(|message| NativeWarning {
                    slot: slot as f64,
                    message,
                })
                .collect(),
        ))
    }

    /// Run every native provider's discovery on the libuv pool. Resolves to the
    /// warnings they produced; results stay here for [`Self::finish`].
    #[napi(catch_unwind)]
    pub fn list_native(&self) -> AsyncTask<ListNativeTask> {
        let providers = locked(&self.collection)
            .as_ref()
            .map(|c| {
                c.providers
                    .iter()
                    .enumerate()
                    .filter_map(|(i, p)| p.native.clone().map(|n| (i, p.slot, n)))
                    .collect()
            })
            .unwrap_or_default();
        AsyncTask::new(ListNativeTask {
            ctx: LookupContext::new(self.cwd.clone()),
            providers,
            results: self.natives.clone(),
        })
    }

    /// Validate what the JS provider in `slot` returned from `list()`: `head`
    /// is `[tag of the result, tag of its candidates, tag of its complete, and
    /// the three numbers behind them]`, `candidates` the packed candidates.
    /// Throws naming the provider and the field.
    #[napi(
        catch_unwind,
        ts_args_type = "slot: number, head: number[], candidates: PackedRecords"
    )]
    pub fn add_listing(&self, slot: f64, head: Vec<f64>, candidates: Packed<'_>) -> Result<()> {
        let (position, name) = self.host_name(slot)?;
        let head = list_head(&head);
        let decoded = candidates.names.decode()?;
        let listing =
            validate_listing(&name, &head, &candidates.records(&decoded)?).map_err(validation)?;
        let observation = HostObservation {
            text: decoded.text,
            strings: candidates.strings,
            listing,
        };
        if let Some(place) = locked(&self.hosts).get_mut(position) {
            *place = Some(observation);
        }
        Ok(())
    }

    /// Merge. `states` holds `slot, state` pairs saying how each JS provider's
    /// `list()` ended: 0 listed (see [`Self::add_listing`]), 1 failed or timed
    /// out, 2 released (its registration was disposed while the lookup
    /// waited); a JS provider not mentioned failed. Returns the catalog, or
    /// `null` when the generation moved and JS must retry.
    #[napi(catch_unwind)]
    pub fn finish(&self, states: Vec<f64>) -> Result<Option<FinishedCollection>> {
        let collection = locked(&self.collection)
            .take()
            .ok_or_else(|| failure("collection already finished"))?;
        let state_of = |slot: u64| {
            states
                .chunks_exact(2)
                .find(|pair| slot_id(pair[0]) == slot)
                .map_or(1, |pair| pair[1] as u8)
        };
        let mut natives = locked(&self.natives);
        let mut hosts = locked(&self.hosts);
        let mut outcomes = Vec::with_capacity(collection.providers.len());
        for (i, planned) in collection.providers.iter().enumerate() {
            let outcome = if planned.native.is_some() {
                match natives.get_mut(i).and_then(Option::take) {
                    Some(obs) => ProviderOutcome::Listed(obs),
                    None => ProviderOutcome::Failed,
                }
            } else {
                match (
                    state_of(planned.slot),
                    hosts.get_mut(i).and_then(Option::take),
                ) {
                    (LISTED, Some(obs)) => ProviderOutcome::Host(obs),
                    (RELEASED, _) => ProviderOutcome::Released,
                    _ => ProviderOutcome::Failed,
                }
            };
            outcomes.push(outcome);
        }
        drop((natives, hosts));
        let registry = collection.registry().clone();
        Ok(match collection.finish(outcomes) {
            Finish::Retry => None,
            Finish::Done { catalog, warnings } => {
                let catalog = NativeCatalog {
                    catalog,
                    usage: registry.usage(),
                };
                Some(FinishedCollection {
                    id: catalog.catalog.id as f64,
                    complete: catalog.catalog.complete,
                    winners: catalog.winners(),
                    rewritten: catalog.rewritten(),
                    warnings,
                    evicted: registry
                        .take_evicted()
                        .into_iter()
                        .map(|id| id as f64)
                        .collect(),
                    catalog,
                })
            }
        })
    }
}

/// Runs native providers' `list()` off the JS thread.
pub struct ListNativeTask {
    ctx: LookupContext,
    /// (position in the plan, slot id, provider)
    providers: Vec<(usize, u64, Arc<dyn NativeProvider>)>,
    results: NativeResults,
}

/// A warning from a native provider's discovery, with the provider's slot.
#[napi(object)]
pub struct NativeWarning {
    pub slot: f64,
    pub message: String,
}

impl Task for ListNativeTask {
    type Output = Vec<NativeWarning>;
    type JsValue = Vec<NativeWarning>;

    fn compute(&mut self) -> Result<Vec<NativeWarning>> {
        guard(|| {
            let mut warnings = Vec::new();
            for (index, slot, provider) in &self.providers {
                let (obs, w) = provider.list(&self.ctx);
                warnings.extend(w.into_iter().map(|message| NativeWarning {
                    slot: *slot as f64,
                    message,
                }));
                if let Some(result) = locked(&self.results).get_mut(*index) {
                    *result = Some(obs);
                }
            }
            Ok(warnings)
        })
    }

    fn resolve(&mut self, _env: Env, output: Vec<NativeWarning>) -> Result<Vec<NativeWarning>> {
        Ok(output)
    }
}

/// Where a catalog entry came from and how an override changed it:
/// `[kind, slot, index, rewrite]` with kind 0 = runtime (index = runtime id),
/// 1 = JS provider (index = position in its `list()` result), 2 = native
/// provider (index = position among the native winners), and rewrite 0 (none),
/// 1 (`user-only`) or 2 (`model-only`).
pub type Location = Vec<f64>;
