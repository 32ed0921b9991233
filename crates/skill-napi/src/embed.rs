//! Binding for the semantic half of search: the store of skill vectors
//! ([`skill_core::search::vectors`]), the package's local embedder
//! ([`skill_embed`]), and the catalog's vectors to compute. Everything that
//! hashes, reads the disk or runs the model does so on the libuv pool.

use crate::registry::NativeCatalog;
use crate::search::SearchCancel;
use crate::util::{failure, guard, invalid_arg};
use napi::bindgen_prelude::{AsyncTask, Float32Array, Uint8Array};
use napi::{Env, Task};
use napi_derive::napi;
use skill_core::cancel::CancelToken;
use skill_core::registry::Catalog;
use skill_core::search::vectors::{Key, VectorStore};
use skill_embed::Embedder;
use std::path::PathBuf;
use std::sync::Arc;

use crate::catalog::UNSUPPLIED;

/// The vectors of one embedding model, in memory and (with a folder) on disk.
#[napi]
pub struct NativeVectors {
    pub(crate) store: Arc<VectorStore>,
}

#[napi]
impl NativeVectors {
    /// The store of `model`'s vectors, kept in `dir` when given (read back
    /// at once: a restart with an unchanged catalog embeds nothing).
    #[napi(constructor, catch_unwind)]
    pub fn new(model: String, dir: Option<String>) -> Self {
        NativeVectors {
            store: Arc::new(VectorStore::open(
                &model,
                dir.as_deref().map(std::path::Path::new),
            )),
        }
    }

    /// How many vectors it holds.
    #[napi(getter, catch_unwind)]
    pub fn size(&self) -> u32 {
        u32::try_from(self.store.len()).unwrap_or(u32::MAX)
    }

    /// The file the vectors are kept in, if any.
    #[napi(getter, catch_unwind)]
    pub fn path(&self) -> Option<String> {
        self.store.path().map(|p| p.display().to_string())
    }

    /// The first failure to read or write the file, once.
    #[napi(catch_unwind)]
    pub fn disk_error(&self) -> Option<String> {
        self.store.disk_error()
    }

    /// Adds vectors: `keys` as [`NativeCatalog::missing_vectors`] gave
    /// them (16 bytes each), one vector per key.
    #[napi(catch_unwind)]
    pub fn add(&self, keys: Uint8Array, vectors: Vec<Float32Array>) -> napi::Result<()> {
        if keys.len() != vectors.len() * 16 {
            return Err(invalid_arg("one vector per key"));
        }
        self.store
            .insert(keys.chunks_exact(16).zip(&vectors).map(|(k, v)| {
                let mut key: Key = [0; 16];
                key.copy_from_slice(k);
                (key, v.to_vec())
            }));
        Ok(())
    }
}

/// Texts a store lacks: the texts, and their keys (16 bytes each).
#[napi(object, object_from_js = false)]
pub struct NapiMissing {
    /// The texts to embed.
    pub texts: Vec<String>,
    /// Their keys, back to back.
    pub keys: Uint8Array,
}

/// Which texts a catalog's store lacks, worked out on the pool.
pub struct MissingTask {
    catalog: Arc<Catalog>,
    store: Arc<VectorStore>,
}

impl Task for MissingTask {
    type Output = Vec<(Key, String)>;
    type JsValue = NapiMissing;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        guard(|| {
            self.catalog
                .missing_vectors(&self.store)
                .ok_or_else(|| invalid_arg(UNSUPPLIED))
        })
    }

    fn resolve(&mut self, _env: Env, missing: Self::Output) -> napi::Result<NapiMissing> {
        let mut keys = Vec::with_capacity(missing.len() * 16);
        let mut texts = Vec::with_capacity(missing.len());
        for (key, text) in missing {
            keys.extend_from_slice(&key);
            texts.push(text);
        }
        Ok(NapiMissing {
            texts,
            keys: Uint8Array::new(keys),
        })
    }
}

/// The package's own embedder: all-MiniLM-L6-v2 from a model folder.
#[napi]
pub struct LocalEmbedder {
    model: Arc<Embedder>,
}

/// Threads one embedding call may use: one CPU fewer than the process
/// may use (at least one, at most four), so that a first run's embedding
/// of a whole catalog leaves a CPU to the JS thread and its garbage
/// collector. Measured on two CPUs with the 1,500 synthetic skills of
/// `bench/search-scale.mjs`: searches answered during that embedding p95
/// 12.2-12.8 ms with two threads, 7.9-9.3 ms with one; embedding them took
/// 10 s on one thread instead of 5 on two (the 1,479 longer skills of the
/// quality corpus: ~21 s on one, ~10 s on two; docs/search.md).
fn threads() -> usize {
    std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .saturating_sub(1)
        .clamp(1, 4)
}

#[napi]
impl LocalEmbedder {
    /// The model's id (its name and the start of its weights' sha256).
    #[napi(getter, catch_unwind)]
    pub fn id(&self) -> String {
        self.model.id().to_string()
    }

    /// Length of its vectors.
    #[napi(getter, catch_unwind)]
    pub fn dimensions(&self) -> u32 {
        u32::try_from(self.model.dimensions()).unwrap_or(u32::MAX)
    }

    /// The token ids of `text` as the model sees it (for checks).
    #[napi(catch_unwind)]
    pub fn tokens(&self, text: String) -> Vec<u32> {
        self.model.tokens(&text)
    }

    /// The unit vectors of `texts`, computed on the pool (a few threads);
    /// `cancel` makes it give up.
    #[napi(catch_unwind, ts_return_type = "Promise<Array<Float32Array>>")]
    pub fn embed(&self, texts: Vec<String>, cancel: Option<&SearchCancel>) -> AsyncTask<EmbedTask> {
        AsyncTask::new(EmbedTask {
            model: Arc::clone(&self.model),
            texts,
            cancel: cancel.map(SearchCancel::token).unwrap_or_default(),
        })
    }
}

/// Embedding on the pool.
pub struct EmbedTask {
    model: Arc<Embedder>,
    texts: Vec<String>,
    cancel: CancelToken,
}

/// Runs the model over `texts`, giving up when `cancel` is cancelled.
fn run(model: &Embedder, texts: &[&str], cancel: &CancelToken) -> napi::Result<Vec<Vec<f32>>> {
    model
        .embed(texts, threads(), &|| cancel.is_cancelled())
        .ok_or_else(|| failure("embedding cancelled"))
}

impl Task for EmbedTask {
    type Output = Vec<Vec<f32>>;
    type JsValue = Vec<Float32Array>;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        guard(|| {
            let texts: Vec<&str> = self.texts.iter().map(String::as_str).collect();
            run(&self.model, &texts, &self.cancel)
        })
    }

    fn resolve(&mut self, _env: Env, vectors: Self::Output) -> napi::Result<Vec<Float32Array>> {
        Ok(vectors.into_iter().map(Float32Array::new).collect())
    }
}

/// Loading a model folder on the pool.
pub struct LoadTask {
    dir: PathBuf,
}

impl Task for LoadTask {
    type Output = Embedder;
    type JsValue = LocalEmbedder;

    fn compute(&mut self) -> napi::Result<Embedder> {
        guard(|| Embedder::load(&self.dir).map_err(failure))
    }

    fn resolve(&mut self, _env: Env, model: Embedder) -> napi::Result<LocalEmbedder> {
        Ok(LocalEmbedder {
            model: Arc::new(model),
        })
    }
}

/// Loads the local embedder from a model folder (`config.json`,
/// `vocab.txt`, `model.safetensors`; `scripts/embed-model.mjs` makes one),
/// on the pool.
#[napi(catch_unwind, ts_return_type = "Promise<LocalEmbedder>")]
pub fn load_local_embedder(dir: String) -> AsyncTask<LoadTask> {
    AsyncTask::new(LoadTask {
        dir: PathBuf::from(dir),
    })
}

#[napi]
impl NativeCatalog {
    /// The skill texts `vectors` lacks (each once), worked out on the pool.
    #[napi(catch_unwind, ts_return_type = "Promise<NapiMissing>")]
    pub fn missing_vectors(&self, vectors: &NativeVectors) -> napi::Result<AsyncTask<MissingTask>> {
        if !self.catalog().has_descriptions() {
            return Err(invalid_arg(UNSUPPLIED));
        }
        Ok(AsyncTask::new(MissingTask {
            catalog: self.shared(),
            store: Arc::clone(&vectors.store),
        }))
    }
}
