//! The BERT encoder of all-MiniLM-L6-v2 (6 layers, 12 heads, 384 wide,
//! feed-forward 1,536, exact GELU, LayerNorm eps 1e-12) on the CPU, one
//! text at a time, with the matrix products of the `matrixmultiply` crate;
//! then the model's sentence pooling: the mean over the tokens, scaled to
//! unit length.

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

/// A dense layer: `y = x Wᵀ + b`; PyTorch stores `W` as `[out, in]`, kept
/// here transposed, `[in, out]`, so that one input's weights are contiguous.
struct Linear {
    weight: Vec<f32>,
    bias: Vec<f32>,
    inputs: usize,
    outputs: usize,
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
    words: Vec<f32>,
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
            let mut transposed = vec![0f32; weight.len()];
            for (o, row) in weight.chunks_exact(inputs).enumerate() {
                for (i, &w) in row.iter().enumerate() {
                    transposed[i * outputs + o] = w;
                }
            }
            Ok(Linear {
                weight: transposed,
                bias: tensors.f32(&format!("{name}.bias"), &[outputs])?,
                inputs,
                outputs,
            })
        };
        let norm = |name: &str| -> Result<Norm, EmbedError> {
            Ok(Norm {
                weight: tensors.f32(&format!("{name}.weight"), &[h])?,
                bias: tensors.f32(&format!("{name}.bias"), &[h])?,
            })
        };
        let words_shape = tensors.shape("embeddings.word_embeddings.weight")?;
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
            words: tensors.f32("embeddings.word_embeddings.weight", &[words_shape[0], h])?,
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
                row[j] = word[j] + position[j] + self.token_type[j];
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
        linear(&layer.query, x, n, &mut s.q);
        linear(&layer.key, x, n, &mut s.k);
        linear(&layer.value, x, n, &mut s.v);
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
                softmax(row);
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
        linear(&layer.attention_out, &s.ctx, n, &mut s.q);
        for (a, b) in x.iter_mut().zip(&s.q) {
            *a += b;
        }
        layer_norm(x, &layer.attention_norm, h, self.shape.eps);
        linear(&layer.intermediate, x, n, &mut s.inter);
        for v in &mut s.inter {
            *v = 0.5 * *v * (1.0 + libm::erff(*v * std::f32::consts::FRAC_1_SQRT_2));
        }
        linear(&layer.output, &s.inter, n, &mut s.q);
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

/// Rows below which a dense layer is computed as dot products (a query
/// of a few words) rather than by `sgemm`, whose packing of the weights
/// costs more than the arithmetic for so few rows.
const FEW_ROWS: usize = 24;

/// `out = x Wᵀ + b` for `n` rows of `x`.
fn linear(l: &Linear, x: &[f32], n: usize, out: &mut [f32]) {
    debug_assert!(x.len() >= n * l.inputs && out.len() >= n * l.outputs);
    if n <= FEW_ROWS {
        return linear_few(l, x, n, out);
    }
    for row in out.chunks_exact_mut(l.outputs).take(n) {
        row.copy_from_slice(&l.bias);
    }
    // SAFETY: x is n × inputs, W is outputs × inputs (read transposed),
    // out is n × outputs; the asserted lengths cover every access.
    unsafe {
        matrixmultiply::sgemm(
            n,
            l.inputs,
            l.outputs,
            1.0,
            x.as_ptr(),
            l.inputs as isize,
            1,
            l.weight.as_ptr(),
            l.outputs as isize,
            1,
            1.0,
            out.as_mut_ptr(),
            l.outputs as isize,
            1,
        );
    }
}

/// Outputs computed together by [`linear_rows`] (per row of `x`, kept in
/// L1 while every input's weights for them stream by).
const BLOCK: usize = 128;

/// [`linear`] for a few rows: for each block of outputs, each input's
/// weights (contiguous in the transposed layout) are read once and
/// multiplied into every row (vectorised, with FMA where the caller's
/// target has it).
#[inline(always)]
fn linear_rows(l: &Linear, x: &[f32], n: usize, out: &mut [f32]) {
    let (inputs, outputs) = (l.inputs, l.outputs);
    for start in (0..outputs).step_by(BLOCK) {
        let end = (start + BLOCK).min(outputs);
        for t in 0..n {
            out[t * outputs + start..t * outputs + end].copy_from_slice(&l.bias[start..end]);
        }
        for k in 0..inputs {
            let w = &l.weight[k * outputs + start..k * outputs + end];
            for t in 0..n {
                let xv = x[t * inputs + k];
                let o = &mut out[t * outputs + start..t * outputs + end];
                for (o, w) in o.iter_mut().zip(w) {
                    *o = xv.mul_add(*w, *o);
                }
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn linear_rows_avx2(l: &Linear, x: &[f32], n: usize, out: &mut [f32]) {
    linear_rows(l, x, n, out);
}

fn linear_few(l: &Linear, x: &[f32], n: usize, out: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU has both features (checked just above).
        return unsafe { linear_rows_avx2(l, x, n, out) };
    }
    linear_rows(l, x, n, out);
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

fn softmax(row: &mut [f32]) {
    let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0;
    for v in row.iter_mut() {
        *v = (*v - max).exp();
        sum += *v;
    }
    for v in row.iter_mut() {
        *v /= sum;
    }
}
