//! The element-wise functions of the encoder, branch-free so that their
//! loops run 8 values per instruction (with AVX2, picked at run time):
//!
//! - GELU, exact form `x Φ(x) = x (1 + erf(x / √2)) / 2`: `erf` by
//!   Abramowitz and Stegun's formula 7.1.26 (absolute error 1.5e-7; under
//!   1e-6 in `f32`); `libm::erff`, one value at a time, took a fifth of a
//!   skill text's forward pass;
//! - `e^x` for softmax and `erf`: a range reduction and a Taylor polynomial
//!   (relative error under 1e-7 in `f32`).

/// 1.5 × 2²³: added to a float below 2²², it rounds it to an integer kept in
/// the low bits of the mantissa.
const ROUND: f32 = 12_582_912.0;
const LOG2_E: f32 = std::f32::consts::LOG2_E;
/// ln 2 in two parts (Cody and Waite), the first exact in few bits.
const LN2_HI: f32 = 0.693_145_75;
const LN2_LO: f32 = 1.428_606_8e-6;

/// `e^x` for `x <= 0` (0 below -87, where `f32` runs out of normal
/// numbers).
#[inline(always)]
fn exp_negative(x: f32) -> f32 {
    let within = x.max(-87.0);
    let k = within * LOG2_E + ROUND;
    let n = k - ROUND;
    let r = within - n * LN2_HI - n * LN2_LO;
    // |r| <= ln 2 / 2: Taylor to the 7th power is within 6e-9.
    let p = 1.0
        + r * (1.0
            + r * (0.5
                + r * (1.0 / 6.0
                    + r * (1.0 / 24.0
                        + r * (1.0 / 120.0 + r * (1.0 / 720.0 + r * (1.0 / 5040.0)))))));
    // 2ⁿ: n + 127 moved into the exponent field (k's low bits hold n).
    let value = p * f32::from_bits(k.to_bits().wrapping_add(127) << 23);
    if x >= -87.0 {
        value
    } else {
        0.0
    }
}

/// `erf(z)` for `z >= 0`.
#[inline(always)]
fn erf_positive(z: f32) -> f32 {
    let z = z.min(4.0);
    let t = 1.0 / (1.0 + 0.327_591_1 * z);
    let poly = t
        * (0.254_829_6
            + t * (-0.284_496_74 + t * (1.421_413_7 + t * (-1.453_152_1 + t * 1.061_405_4))));
    1.0 - poly * exp_negative(-z * z)
}

#[inline(always)]
fn gelu_slice(values: &mut [f32]) {
    for v in values {
        let x = *v;
        let e = erf_positive(x.abs() * std::f32::consts::FRAC_1_SQRT_2);
        let e = if x < 0.0 { -e } else { e };
        *v = 0.5 * x * (1.0 + e);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn gelu_avx2(values: &mut [f32]) {
    gelu_slice(values);
}

/// The largest value and the sum of `values`, each over 8 lanes (an
/// in-order reduction would not vectorise).
#[inline(always)]
fn max_and_sum(values: &[f32]) -> (f32, f32) {
    let (mut max, mut sum) = ([f32::NEG_INFINITY; 8], [0f32; 8]);
    let chunks = values.chunks_exact(8);
    for (lane, &v) in chunks.remainder().iter().enumerate() {
        max[lane] = max[lane].max(v);
        sum[lane] += v;
    }
    for chunk in chunks {
        for lane in 0..8 {
            max[lane] = if chunk[lane] > max[lane] {
                chunk[lane]
            } else {
                max[lane]
            };
            sum[lane] += chunk[lane];
        }
    }
    (
        max.iter().copied().fold(f32::NEG_INFINITY, f32::max),
        sum.iter().sum(),
    )
}

#[inline(always)]
fn softmax_slice(row: &mut [f32]) {
    let (max, _) = max_and_sum(row);
    for v in row.iter_mut() {
        *v = exp_negative(*v - max);
    }
    let inverse = 1.0 / max_and_sum(row).1;
    for v in row.iter_mut() {
        *v *= inverse;
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn softmax_avx2(row: &mut [f32]) {
    softmax_slice(row);
}

/// The softmax of `row`, in place.
pub(crate) fn softmax(row: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU has both features (checked just above).
        return unsafe { softmax_avx2(row) };
    }
    softmax_slice(row);
}

/// Applies GELU to every value.
pub(crate) fn gelu(values: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU has both features (checked just above).
        return unsafe { gelu_avx2(values) };
    }
    gelu_slice(values);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erf_is_within_1e_6_of_libm() {
        let mut worst = 0f32;
        for i in 0..=600_000 {
            let z = i as f32 * 1e-5;
            worst = worst.max((erf_positive(z) - libm::erff(z)).abs());
        }
        assert!(worst < 1e-6, "{worst}");
    }

    #[test]
    fn exp_is_within_2e_7_relative() {
        for i in 0..=870_000 {
            let x = -(i as f32) * 1e-4;
            let (got, want) = (exp_negative(x), x.exp());
            assert!((got - want).abs() <= 2e-7 * want, "e^{x}: {got} vs {want}");
        }
        assert_eq!(exp_negative(-90.0), 0.0);
        assert_eq!(exp_negative(f32::NEG_INFINITY), 0.0);
        assert_eq!(exp_negative(0.0), 1.0);
    }

    #[test]
    fn softmax_sums_to_one() {
        let mut row = [1.0, 2.0, 3.0, -200.0, 3.0];
        softmax(&mut row);
        let e: Vec<f64> = [1.0f64, 2.0, 3.0, -200.0, 3.0]
            .iter()
            .map(|v| (v - 3.0).exp())
            .collect();
        let sum: f64 = e.iter().sum();
        for (got, want) in row.iter().zip(&e) {
            assert!((f64::from(*got) - want / sum).abs() < 1e-7, "{got}");
        }
    }

    #[test]
    fn gelu_matches_the_exact_form() {
        let mut values: Vec<f32> = (-2000..=2000).map(|i| i as f32 * 0.005).collect();
        values.extend([-50.0, -8.0, 8.0, 50.0, 0.0, -0.0]);
        let exact: Vec<f32> = values
            .iter()
            .map(|&x| 0.5 * x * (1.0 + libm::erff(x * std::f32::consts::FRAC_1_SQRT_2)))
            .collect();
        gelu(&mut values);
        for (got, want) in values.iter().zip(&exact) {
            assert!(
                (got - want).abs() <= 4e-7 * want.abs().max(1.0),
                "{got} vs {want}"
            );
        }
    }
}
