//! A merged catalog as JS holds it: its winners, the summaries and the
//! renderer's input built from them, and loads of native skills.

use super::*;

/// One merged catalog (cached catalogs are shared by every lookup that hits).
/// It holds every winner's name, description and invocation in name order
/// (JS-provider winners included), so the catalog renderer can work from it.
#[napi]
pub struct NativeCatalog {
    pub(super) catalog: Arc<Catalog>,
    /// The registry's usage book (loads are recorded in the catalog's view).
    pub(super) usage: Arc<UsageBook>,
}

impl NativeCatalog {
    /// The winners in name order, four numbers each: `kind, slot, index` (see
    /// [`Location`]) and `1` when the skill is model-invocable (else `0`).
    pub(super) fn winners(&self) -> Float64Array {
        let mut out = Vec::with_capacity(self.catalog.len() * 4);
        let mut natives = 0usize;
        for (position, entry) in self.catalog.entries().iter().enumerate() {
            if let Some(location) = self.location(position, natives) {
                out.extend(location);
                out.push(f64::from(u8::from(entry.invocation.model_invocable)));
            }
            natives += usize::from(matches!(entry.winner, Winner::Native { .. }));
        }
        Float64Array::new(out)
    }

    /// `position, code` pairs of the winners whose invocation an override
    /// rewrote (see [`rewrite_code`]).
    pub(super) fn rewritten(&self) -> Vec<f64> {
        let mut out = Vec::new();
        for (position, entry) in self.catalog.entries().iter().enumerate() {
            let code = rewrite_code(entry);
            if code != 0.0 {
                out.extend([position as f64, code]);
            }
        }
        out
    }

    pub(super) fn location(&self, position: usize, native_index: usize) -> Option<[f64; 3]> {
        Some(match &self.catalog.entries().get(position)?.winner {
            Winner::Runtime { id } => [0.0, 0.0, *id as f64],
            Winner::Host { slot, index } => [1.0, *slot as f64, f64::from(*index)],
            Winner::Native { slot, .. } => [2.0, *slot as f64, native_index as f64],
        })
    }
}

#[napi]
impl NativeCatalog {
    /// Unique catalog id.
    #[napi(getter, catch_unwind)]
    pub fn id(&self) -> f64 {
        self.catalog.id as f64
    }

    /// Whether the catalog is complete (and cached).
    #[napi(getter, catch_unwind)]
    pub fn complete(&self) -> bool {
        self.catalog.complete
    }

    /// Number of skills.
    #[napi(getter, catch_unwind)]
    pub fn length(&self) -> u32 {
        u32::try_from(self.catalog.len()).unwrap_or(u32::MAX)
    }

    /// Whether the descriptions of runtime and JS-provider winners are still
    /// to be supplied ([`NativeCatalog::supply_descriptions`]).
    #[napi(getter, catch_unwind)]
    pub fn needs_descriptions(&self) -> bool {
        !self.catalog.has_descriptions()
    }

    /// Supply the descriptions of the runtime and JS-provider winners, in
    /// catalog order (they stay in JS until a catalog is rendered from this
    /// one). The first supply stays.
    #[napi(catch_unwind, ts_args_type = "descriptions: PackedTexts")]
    pub fn supply_descriptions(&self, descriptions: Texts<'_>) -> Result<()> {
        let (text, spans) = decoded_spans(&descriptions)?;
        self.catalog
            .supply_descriptions(text, spans)
            .map_err(invalid_arg)
    }

    /// [`Self::supply_descriptions`] a few thousand at a time: each call
    /// continues the previous ones, and the one that completes the count
    /// supplies them (search hands a large catalog's descriptions over
    /// across turns of the event loop). Ignored once supplied.
    #[napi(catch_unwind, ts_args_type = "descriptions: PackedTexts")]
    pub fn supply_descriptions_part(&self, descriptions: Texts<'_>) -> Result<()> {
        let (text, spans) = decoded_spans(&descriptions)?;
        self.catalog.supply_part(&text, &spans).map_err(invalid_arg)
    }

    /// `[name, description]` of every model-invocable skill, in name order
    /// (what the catalog renderer reads), or `null` while descriptions are
    /// still to be supplied.
    #[napi(catch_unwind)]
    pub fn model_entries(&self) -> Option<Vec<(String, String)>> {
        self.catalog.model_entries().map(|entries| {
            entries
                .map(|(name, description)| (name.to_string(), description.to_string()))
                .collect()
        })
    }

    /// The summaries of the native winners, in catalog order, packed (see
    /// [`super::summaries`]).
    #[napi(catch_unwind)]
    pub fn native_summaries(&self) -> PackedSummaries {
        summaries::pack(self.catalog.native_summaries()).into()
    }

    /// [`Self::native_summaries`] for what changed since `previous`
    /// (an earlier catalog, still alive: candidates are compared by
    /// identity): the native winners that are the same shared candidate as
    /// one of `previous` point at it, the others come packed. A lookup after
    /// a one-file change then converts one summary, not the whole catalog.
    #[napi(catch_unwind)]
    pub fn native_summaries_reusing(&self, previous: &NativeCatalog) -> NativeSummaries {
        fn natives(catalog: &Catalog) -> impl Iterator<Item = &Arc<skill_core::model::Candidate>> {
            catalog.entries().iter().filter_map(|e| match &e.winner {
                Winner::Native { candidate, .. } => Some(candidate),
                _ => None,
            })
        }
        let old: Vec<&Arc<skill_core::model::Candidate>> = natives(&previous.catalog).collect();
        let mut reuse = Vec::with_capacity(old.len());
        let mut fresh = Vec::new();
        // Both in name order: one walk, mostly comparing pointers.
        let mut j = 0;
        for candidate in natives(&self.catalog) {
            let same = |j: usize| old.get(j).is_some_and(|o| Arc::ptr_eq(o, candidate));
            if !same(j) {
                let name = candidate.summary.name.as_str();
                while j < old.len() && old[j].summary.name.as_str() < name {
                    j += 1;
                }
            }
            if same(j) {
                reuse.push(j as f64);
                j += 1;
            } else {
                reuse.push(-1.0);
                fresh.push(&candidate.summary);
            }
        }
        NativeSummaries {
            reuse: Float64Array::new(reuse),
            fresh: summaries::pack(fresh).into(),
        }
    }

    /// `[kind, slot, index, rewrite]` of the winner for `name` (see
    /// [`Location`]), or `null`.
    #[napi(catch_unwind)]
    pub fn locate(&self, name: String) -> Option<Location> {
        let position = self.catalog.position(&name)?;
        let entries = self.catalog.entries();
        let natives = entries[..position]
            .iter()
            .filter(|e| matches!(e.winner, Winner::Native { .. }))
            .count();
        let mut location = Vec::from(self.location(position, natives)?);
        location.push(rewrite_code(&entries[position]));
        Some(location)
    }

    /// Every candidate the merge considered for `name`, in merge order, the
    /// winner first (`null` when no provider listed it): objects
    /// `{ kind, slot, index, provider, source, rank, modelInvocable,
    /// userInvocable, outcome, rule?, effect?, ruleLayer?, path?,
    /// resourceBase? }`, with
    /// `kind`, `slot` and `index` as in [`Location`] (for a native candidate,
    /// `index` is unused and `path` and `resourceBase` are its own) and
    /// `outcome` one of `'won'`, `'rank'`, `'order'`, `'off'`, `'scope'`,
    /// `'same'`; `ruleLayer` is the layer whose rule decided (0: the global
    /// rules).
    #[napi(catch_unwind, ts_return_type = "Array<Record<string, unknown>> | null")]
    pub fn explain<'e>(&self, env: &'e Env, name: String) -> Result<Option<Vec<Object<'e>>>> {
        let explained = self.catalog.explain(&name);
        if explained.is_empty() {
            return Ok(None);
        }
        explained
            .iter()
            .map(|e| {
                let mut obj = Object::new(env)?;
                let (kind, slot, index) = match e.from {
                    Contribution::Runtime { id } => (0.0, 0.0, id as f64),
                    Contribution::Host { slot, index } => (1.0, slot as f64, f64::from(index)),
                    Contribution::Native { slot, candidate } => {
                        if let Some(path) = &candidate.path {
                            obj.set("path", path.as_str())?;
                        }
                        if let Some(base) = &candidate.summary.resource_base {
                            obj.set("resourceBase", resource_base_to_js(env, base)?)?;
                        }
                        (2.0, slot as f64, 0.0)
                    }
                };
                obj.set("kind", kind)?;
                obj.set("slot", slot)?;
                obj.set("index", index)?;
                obj.set("provider", e.provider)?;
                obj.set("source", e.source)?;
                obj.set("rank", e.rank)?;
                obj.set("modelInvocable", e.invocation.model_invocable)?;
                obj.set("userInvocable", e.invocation.user_invocable)?;
                obj.set("outcome", e.outcome.as_str())?;
                if let Some(applied) = e.applied {
                    obj.set("rule", applied.rule)?;
                    obj.set("effect", applied.effect.as_str())?;
                    obj.set("ruleLayer", applied.layer as f64)?;
                }
                Ok(obj)
            })
            .collect::<Result<Vec<_>>>()
            .map(Some)
    }

    /// The definition of the native winner `name`, when its provider can
    /// hand out one loaded before without reading its file (see
    /// `NativeProvider::get_kept`): `{ definition }`, or `null` when
    /// [`Self::load_native`] must load it.
    #[napi(catch_unwind, ts_return_type = "{ definition?: object } | null")]
    pub fn load_native_kept<'e>(
        &self,
        env: &'e Env,
        name: String,
        cwd: Option<String>,
    ) -> Result<Option<Object<'e>>> {
        let ctx = LookupContext::new(cwd.map(PathBuf::from));
        let kept = guard(|| {
            let Some(entry) = self
                .catalog
                .position(&name)
                .and_then(|position| self.catalog.entries().get(position))
            else {
                return Ok(None);
            };
            let Winner::Native {
                candidate,
                provider,
                ..
            } = &entry.winner
            else {
                return Ok(None);
            };
            let Some(kept) = provider.get_kept(candidate, &ctx) else {
                return Ok(None);
            };
            Ok(Some(match entry.applied {
                // An override's invocation holds for the loaded skill too.
                Some(applied) => {
                    let mut definition = (*kept).clone();
                    definition.summary.invocation =
                        applied.effect.apply(definition.summary.invocation);
                    Arc::new(definition)
                }
                None => kept,
            }))
        })?;
        let Some(definition) = kept else {
            return Ok(None);
        };
        let mut obj = Object::new(env)?;
        obj.set("definition", definition_to_js(env, &definition)?)?;
        Ok(Some(obj))
    }

    /// Load the definition of a native winner off the JS thread.
    #[napi(catch_unwind)]
    pub fn load_native(&self, name: String, cwd: Option<String>) -> AsyncTask<LoadNativeTask> {
        AsyncTask::new(LoadNativeTask {
            catalog: self.catalog.clone(),
            name,
            ctx: LookupContext::new(cwd.map(PathBuf::from)),
        })
    }
}

impl NativeCatalog {
    /// The merged catalog (the catalog renderer reads it in place).
    pub(crate) fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// The merged catalog, shared (for work off the JS thread).
    pub(crate) fn shared(&self) -> Arc<Catalog> {
        Arc::clone(&self.catalog)
    }

    /// The registry's usage book.
    pub(crate) fn usage(&self) -> &UsageBook {
        &self.usage
    }
}

/// Loads a native winner's definition.
pub struct LoadNativeTask {
    catalog: Arc<Catalog>,
    name: String,
    ctx: LookupContext,
}

impl<'task> ScopedTask<'task> for LoadNativeTask {
    type Output = (Option<SkillDefinition>, Option<String>);
    type JsValue = Object<'task>;

    fn compute(&mut self) -> Result<Self::Output> {
        guard(|| {
            let Some(position) = self.catalog.position(&self.name) else {
                return Ok((None, None));
            };
            let Some(entry) = self.catalog.entries().get(position) else {
                return Ok((None, None));
            };
            match &entry.winner {
                Winner::Native {
                    candidate,
                    provider,
                    ..
                } => {
                    let (result, warning) = provider.get_explained(candidate, &self.ctx);
                    let mut definition = result.map_err(failure)?;
                    // An override's invocation holds for the loaded skill too.
                    if let (Some(d), Some(applied)) = (definition.as_mut(), entry.applied) {
                        d.summary.invocation = applied.effect.apply(d.summary.invocation);
                    }
                    Ok((definition, warning))
                }
                _ => Ok((None, None)),
            }
        })
    }

    /// `{ definition?, warning? }`.
    fn resolve(&mut self, env: &'task Env, output: Self::Output) -> Result<Object<'task>> {
        let (definition, warning) = output;
        let mut obj = Object::new(env)?;
        if let Some(d) = definition {
            obj.set("definition", definition_to_js(env, &d)?)?;
        }
        if let Some(w) = warning {
            obj.set("warning", w)?;
        }
        Ok(obj)
    }
}

/// Packed texts decoded into one text and a span per text.
fn decoded_spans(texts: &Texts<'_>) -> Result<(String, Vec<Span>)> {
    let decoded = texts.decode()?;
    let spans = decoded
        .spans
        .chunks_exact(2)
        .map(|s| Span {
            start: s[0],
            end: s[1],
        })
        .collect();
    Ok((decoded.text, spans))
}
