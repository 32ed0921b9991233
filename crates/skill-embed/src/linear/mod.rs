//! The dense layers of the encoder, `y = x Wᵀ + b`.
//!
//! A query of a few words is a handful of rows. A general matrix product
//! packs the weights on every call, which costs more than the arithmetic
//! for so few rows, and the plain loop it had here reached a quarter of
//! the CPU's speed. So the weights are packed once, when the model is
//! loaded, in the order the kernel reads them (panels of 16 outputs: for
//! each input, the weights of those 16 outputs side by side), and stored
//! in half precision (21 MB instead of 42: half of what a query reads),
//! multiplied and summed in `f32` with the sums in registers. A query then
//! runs at about 60 GFLOP/s on the development machine (14.5 → 3.9 ms for
//! 11 tokens), bound by the arithmetic. Halves keep 11 significant bits:
//! the sentence vectors agree with those of the `f32` weights to a cosine
//! of 0.9999997, and with a double-precision NumPy forward pass to
//! 0.9999995 (`scripts/embed-model.mjs --check`).

mod kernel;

use crate::half;
use kernel::{Tile, PANEL, ROWS};

/// A dense layer, packed.
pub(crate) struct Linear {
    /// Panel `p`, input `k`, output `j` of the panel at
    /// `(p · inputs + k) · PANEL + j` (zero past the last output).
    packed: Vec<u16>,
    bias: Vec<f32>,
    inputs: usize,
    outputs: usize,
    avx2: bool,
}

impl Linear {
    /// The layer of `weight` (`[outputs, inputs]`, row-major, as PyTorch
    /// stores it) and `bias`; `None` when a weight does not fit a half
    /// (beyond ±65,504, or not a number).
    pub(crate) fn new(
        weight: &[f32],
        bias: Vec<f32>,
        inputs: usize,
        outputs: usize,
    ) -> Option<Self> {
        if weight.len() != inputs * outputs || bias.len() != outputs || inputs == 0 {
            return None;
        }
        let panels = outputs.div_ceil(PANEL);
        let mut packed = vec![0u16; panels * inputs * PANEL];
        for (o, row) in weight.chunks_exact(inputs).enumerate() {
            let (p, j) = (o / PANEL, o % PANEL);
            for (k, &w) in row.iter().enumerate() {
                packed[(p * inputs + k) * PANEL + j] = half::from_f32(w)?;
            }
        }
        Some(Linear {
            packed,
            bias,
            inputs,
            outputs,
            avx2: kernel::has_avx2(),
        })
    }

    /// `out = x Wᵀ + b` for the `n` rows of `x` (`n × inputs`) into `out`
    /// (`n × outputs`).
    pub(crate) fn apply(&self, x: &[f32], n: usize, out: &mut [f32]) {
        let (inputs, outputs) = (self.inputs, self.outputs);
        assert!(x.len() >= n * inputs && out.len() >= n * outputs);
        let mut tile: Tile = [[0.0; PANEL]; ROWS];
        // Panel by panel (its weights stay in cache while every group of
        // rows goes by), then group by group of rows.
        for (p, panel) in self.packed.chunks_exact(inputs * PANEL).enumerate() {
            let first = p * PANEL;
            let width = (outputs - first).min(PANEL);
            let bias = &self.bias[first..first + width];
            for start in (0..n).step_by(ROWS) {
                let rows = (n - start).min(ROWS);
                kernel::multiply(self.avx2, panel, &x[start * inputs..], rows, &mut tile);
                for (r, sums) in tile.iter().take(rows).enumerate() {
                    let at = (start + r) * outputs + first;
                    for ((o, s), b) in out[at..at + width].iter_mut().zip(sums).zip(bias) {
                        *o = s + b;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Small deterministic numbers in [-1, 1).
    fn numbers(seed: u64, len: usize) -> Vec<f32> {
        let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        (0..len)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                (s >> 40) as f32 / (1u64 << 23) as f32 - 1.0
            })
            .collect()
    }

    /// Both kernels against the plain sum over the halves' values, for
    /// every number of rows around the group size and outputs that do
    /// not fill the last panel.
    #[test]
    fn matches_a_plain_product() {
        for (inputs, outputs) in [(7, 5), (32, 16), (40, 37), (384, 48)] {
            let weight = numbers(inputs as u64, inputs * outputs);
            let bias = numbers(outputs as u64 + 1, outputs);
            let mut layer =
                Linear::new(&weight, bias.clone(), inputs, outputs).expect("fits halves");
            for n in [1, 2, 5, 6, 7, 12, 13, 40] {
                let x = numbers(n as u64 + 7, n * inputs);
                let mut want = vec![0f32; n * outputs];
                for t in 0..n {
                    for o in 0..outputs {
                        let w = |k: usize| {
                            half::to_f32(half::from_f32(weight[o * inputs + k]).unwrap())
                        };
                        let sum: f64 = (0..inputs)
                            .map(|k| f64::from(x[t * inputs + k]) * f64::from(w(k)))
                            .sum();
                        want[t * outputs + o] = (sum + f64::from(bias[o])) as f32;
                    }
                }
                for avx2 in [false, kernel::has_avx2()] {
                    layer.avx2 = avx2;
                    let mut out = vec![f32::NAN; n * outputs + 3];
                    layer.apply(&x, n, &mut out);
                    for (i, (got, want)) in out.iter().zip(&want).enumerate() {
                        assert!(
                            (got - want).abs() < 1e-4,
                            "{inputs}×{outputs}, n {n}, avx2 {avx2}, at {i}: {got} vs {want}"
                        );
                    }
                    assert!(
                        out[n * outputs..].iter().all(|v| v.is_nan()),
                        "nothing written past the rows"
                    );
                }
            }
        }
    }

    #[test]
    fn weights_beyond_halves_are_refused() {
        assert!(Linear::new(&[1.0, 70_000.0], vec![0.0], 2, 1).is_none());
        assert!(Linear::new(&[1.0, f32::NAN], vec![0.0], 2, 1).is_none());
        assert!(Linear::new(&[1.0, 2.0], vec![0.0], 3, 1).is_none());
    }
}
