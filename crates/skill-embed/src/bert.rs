//! The BERT encoder of all-MiniLM-L6-v2 (6 layers, 12 heads, 384 wide,
//! feed-forward 1,536, exact GELU, LayerNorm eps 1e-12) on the CPU, one
//! text at a time: the dense layers in [`crate::linear`], attention with
//! the matrix products of the `matrixmultiply` crate; then the model's
//! sentence pooling: the mean over the tokens, scaled to unit length.

use crate::half;
use crate::linear::Linear;
use crate::safetensors::Tensors;
use crate::EmbedError;

/// The shape of the model.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shape {
    pub(crate) hidden: usize,
    pub(crate) heads: usize,
    pub(crate) layers: usize,
    pub(crate) intermediate: usize,
    pub(crate) positions: usize,
    pub(crate) eps: f32,
}

struct Norm {
    weight: Vec<f32>,
    bias: Vec<f32>,
}

struct Layer {
    query: Linear,
    key: Linear,
    value: Linear,
    attention_out: Linear,
    attention_norm: Norm,
    intermediate: Linear,
    output: Linear,
    output_norm: Norm,
}

/// The model's weights.
pub(crate) struct Bert {
    shape: Shape,
    /// The word embeddings (vocabulary × hidden), as halves: a text reads
    /// only its tokens' rows, so they only cost memory (23 MB, not 47).
    words: Vec<u16>,
    positions: Vec<f32>,
    token_type: Vec<f32>,
    embedding_norm: Norm,
    layers: Vec<Layer>,
}

impl Bert {
    pub(crate) fn load(tensors: &Tensors, shape: Shape) -> Result<Self, EmbedError> {
        let h = shape.hidden;
        let linear = |name: &str, inputs: usize, outputs: usize| -> Result<Linear, EmbedError> {
            let weight = tensors.f32(&format!("{name}.weight"), &[outputs, inputs])?;
            let bias = tensors.f32(&format!("{name}.bias"), &[outputs])?;
            Linear::new(&weight, bias, inputs, outputs).ok_or_else(|| {
                EmbedError::Model(format!("{name}: a weight does not fit half precision"))
            })
        };
        let norm = |name: &str| -> Result<Norm, EmbedError> {
            Ok(Norm {
                weight: tensors.f32(&format!("{name}.weight"), &[h])?,
                bias: tensors.f32(&format!("{name}.bias"), &[h])?,
            })
        };
        // The rows of the word embeddings: the size of the vocabulary.
        let rows = tensors
            .shape("embeddings.word_embeddings.weight")?
            .first()
            .copied()
            .ok_or_else(|| {
                EmbedError::Model("tensor embeddings.word_embeddings.weight has no rows".into())
            })?;
        let mut layers = Vec::with_capacity(shape.layers);
        for i in 0..shape.layers {
            let p = format!("encoder.layer.{i}");
            layers.push(Layer {
                query: linear(&format!("{p}.attention.self.query"), h, h)?,
                key: linear(&format!("{p}.attention.self.key"), h, h)?,
                value: linear(&format!("{p}.attention.self.value"), h, h)?,
                attention_out: linear(&format!("{p}.attention.output.dense"), h, h)?,
                attention_norm: norm(&format!("{p}.attention.output.LayerNorm"))?,
                intermediate: linear(&format!("{p}.intermediate.dense"), h, shape.intermediate)?,
                output: linear(&format!("{p}.output.dense"), shape.intermediate, h)?,
                output_norm: norm(&format!("{p}.output.LayerNorm"))?,
            });
        }
        Ok(Bert {
            words: tensors
                .f32("embeddings.word_embeddings.weight", &[rows, h])?
                .into_iter()
                .map(half::from_f32)
                .collect::<Option<_>>()
                .ok_or_else(|| {
                    EmbedError::Model("a word embedding does not fit half precision".into())
                })?,
            positions: tensors.f32(
                "embeddings.position_embeddings.weight",
                &[shape.positions, h],
            )?,
            token_type: tensors.f32("embeddings.token_type_embeddings.weight", &[2, h])?,
            embedding_norm: norm("embeddings.LayerNorm")?,
            layers,
            shape,
        })
    }

    /// Length of the vectors.
    pub(crate) fn dimensions(&self) -> usize {
        self.shape.hidden
    }

    /// Number of word pieces the vocabulary of the weights has.
    pub(crate) fn vocabulary(&self) -> usize {
        self.words.len() / self.shape.hidden
    }

    /// The unit-length sentence embedding of a sequence of token ids (at
    /// most [`Shape::positions`] of them; every id below
    /// [`Bert::vocabulary`]).
    pub(crate) fn embed(&self, ids: &[u32]) -> Vec<f32> {
        let h = self.shape.hidden;
        let n = ids.len().min(self.shape.positions);
        if n == 0 {
            return vec![0.0; h];
        }
        let mut x = vec![0f32; n * h];
        for (t, &id) in ids.iter().take(n).enumerate() {
            let word = &self.words[id as usize * h..(id as usize + 1) * h];
            let position = &self.positions[t * h..(t + 1) * h];
            let row = &mut x[t * h..(t + 1) * h];
            for j in 0..h {
                row[j] = half::to_f32(word[j]) + position[j] + self.token_type[j];
            }
        }
        layer_norm(&mut x, &self.embedding_norm, h, self.shape.eps);
        let mut scratch = Scratch::new(n, h, self.shape.intermediate);
        for layer in &self.layers {
            self.layer(layer, &mut x, n, &mut scratch);
        }
        let mut pooled = vec![0f32; h];
        for row in x.chunks_exact(h) {
            for (p, v) in pooled.iter_mut().zip(row) {
                *p += v;
            }
        }
        let norm = pooled.iter().map(|v| v * v).sum::<f32>().sqrt().max(1e-12);
        // Mean, then unit length: the mean's 1/n cancels in the normalisation.
        for p in &mut pooled {
            *p /= norm;
        }
        pooled
    }

    fn layer(&self, layer: &Layer, x: &mut [f32], n: usize, s: &mut Scratch) {
        let h = self.shape.hidden;
        let heads = self.shape.heads;
        let d = h / heads;
        layer.query.apply(x, n, &mut s.q);
        layer.key.apply(x, n, &mut s.k);
        layer.value.apply(x, n, &mut s.v);
        let scale = 1.0 / (d as f32).sqrt();
        for head in 0..heads {
            let off = head * d;
            // scores = Q_h K_hᵀ · scale (n × n)
            // SAFETY: every pointer and stride stays inside its buffer:
            // q, k, v and ctx are n × h, scores n × n, and off + d <= h.
            unsafe {
                matrixmultiply::sgemm(
                    n,
                    d,
                    n,
                    scale,
                    s.q.as_ptr().add(off),
                    h as isize,
                    1,
                    s.k.as_ptr().add(off),
                    1,
                    h as isize,
                    0.0,
                    s.scores.as_mut_ptr(),
                    n as isize,
                    1,
                );
            }
            for row in s.scores.chunks_exact_mut(n) {
                crate::math::softmax(row);
            }
            // ctx_h = softmax(scores) V_h (n × d), into columns off.. of ctx.
            // SAFETY: as above.
            unsafe {
                matrixmultiply::sgemm(
                    n,
                    n,
                    d,
                    1.0,
                    s.scores.as_ptr(),
                    n as isize,
                    1,
                    s.v.as_ptr().add(off),
                    h as isize,
                    1,
                    0.0,
                    s.ctx.as_mut_ptr().add(off),
                    h as isize,
                    1,
                );
            }
        }
        layer.attention_out.apply(&s.ctx, n, &mut s.q);
        for (a, b) in x.iter_mut().zip(&s.q) {
            *a += b;
        }
        layer_norm(x, &layer.attention_norm, h, self.shape.eps);
        layer.intermediate.apply(x, n, &mut s.inter);
        crate::math::gelu(&mut s.inter);
        layer.output.apply(&s.inter, n, &mut s.q);
        for (a, b) in x.iter_mut().zip(&s.q) {
            *a += b;
        }
        layer_norm(x, &layer.output_norm, h, self.shape.eps);
    }
}

/// Buffers one forward pass reuses.
struct Scratch {
    q: Vec<f32>,
    k: Vec<f32>,
    v: Vec<f32>,
    ctx: Vec<f32>,
    scores: Vec<f32>,
    inter: Vec<f32>,
}

impl Scratch {
    fn new(n: usize, h: usize, intermediate: usize) -> Self {
        Scratch {
            q: vec![0.0; n * h],
            k: vec![0.0; n * h],
            v: vec![0.0; n * h],
            ctx: vec![0.0; n * h],
            scores: vec![0.0; n * n],
            inter: vec![0.0; n * intermediate],
        }
    }
}

fn layer_norm(x: &mut [f32], norm: &Norm, h: usize, eps: f32) {
    for row in x.chunks_exact_mut(h) {
        let mean = row.iter().sum::<f32>() / h as f32;
        let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / h as f32;
        let inv = 1.0 / (var + eps).sqrt();
        for ((v, w), b) in row.iter_mut().zip(&norm.weight).zip(&norm.bias) {
            *v = (*v - mean) * inv * w + b;
        }
    }
}
