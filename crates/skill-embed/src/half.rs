//! IEEE half precision (`binary16`) as the weights are stored: conversion
//! from `f32` (round to nearest, ties to even) when the model is loaded,
//! and back to `f32` for the word embeddings and in the portable kernel
//! (the x86 kernel converts with the CPU's F16C instructions). Only finite
//! values are ever stored.

/// `v` in half precision, rounded to nearest (ties to even); `None` when
/// it is beyond the largest finite half (65,504 after rounding) or not a
/// number.
pub(crate) fn from_f32(v: f32) -> Option<u16> {
    let bits = v.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let abs = bits & 0x7fff_ffff;
    let half = if abs < 0x3880_0000 {
        // Below 2⁻¹⁴, the smallest normal half: a subnormal or zero. Adding
        // 0.5 (2⁻¹) puts the value's multiples of 2⁻²⁴ in the low mantissa
        // bits, rounded by the float addition itself (to nearest, even).
        let shifted = f32::from_bits(abs) + 0.5;
        (shifted.to_bits() - 0.5f32.to_bits()) as u16
    } else if abs < 0x4780_0000 {
        // Normal: rebias the exponent (127 → 15), then round away the 13
        // low mantissa bits, to nearest, ties to even (a carry may lift the
        // exponent, up to infinity just below 2¹⁶).
        let odd = (abs >> 13) & 1;
        let rounded = abs.wrapping_sub((127 - 15) << 23) + 0xfff + odd;
        (rounded >> 13) as u16
    } else {
        return None;
    };
    (half < 0x7c00).then_some(sign | half)
}

/// The `f32` of a finite half: its exponent and mantissa moved to the
/// `f32` positions and scaled by 2¹¹² (127 − 15), exact for normals and
/// subnormals alike.
#[inline(always)]
pub(crate) fn to_f32(h: u16) -> f32 {
    let h = u32::from(h);
    let magnitude = f32::from_bits((h & 0x7fff) << 13) * f32::from_bits(0x7780_0000);
    f32::from_bits(magnitude.to_bits() | ((h & 0x8000) << 16))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        assert_eq!(from_f32(0.0), Some(0));
        assert_eq!(from_f32(-0.0), Some(0x8000));
        assert_eq!(from_f32(1.0), Some(0x3c00));
        assert_eq!(from_f32(-2.0), Some(0xc000));
        assert_eq!(from_f32(65504.0), Some(0x7bff));
        assert_eq!(from_f32(65519.0), Some(0x7bff));
        assert_eq!(from_f32(65520.0), None);
        assert_eq!(from_f32(f32::INFINITY), None);
        assert_eq!(from_f32(f32::NAN), None);
        // The smallest subnormal, and half of it (a tie: to even, zero).
        assert_eq!(from_f32(2f32.powi(-24)), Some(1));
        assert_eq!(from_f32(2f32.powi(-25)), Some(0));
        assert_eq!(from_f32(1.5 * 2f32.powi(-24)), Some(2));
        // 1 + 2⁻¹¹ is a tie between 1 and 1 + 2⁻¹⁰: to even, 1.
        assert_eq!(from_f32(1.0 + 2f32.powi(-11)), Some(0x3c00));
        assert_eq!(from_f32(1.0 + 3.0 * 2f32.powi(-11)), Some(0x3c02));
        for h in [0u16, 1, 0x3ff, 0x400, 0x3c00, 0x7bff, 0x8001, 0xfbff] {
            assert_eq!(from_f32(to_f32(h)), Some(h), "{h:#x}");
        }
    }

    /// Against the CPU's own conversions (F16C), where it has them.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn agrees_with_f16c() {
        use std::arch::x86_64::*;
        if !std::arch::is_x86_feature_detected!("f16c") {
            eprintln!("no F16C: skipped");
            return;
        }
        #[target_feature(enable = "f16c")]
        fn cpu_from(v: f32) -> u16 {
            _mm_extract_epi16::<0>(_mm_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(_mm_set1_ps(v))) as u16
        }
        #[target_feature(enable = "f16c")]
        fn cpu_to(h: u16) -> f32 {
            _mm_cvtss_f32(_mm_cvtph_ps(_mm_set1_epi16(h as i16)))
        }
        for h in 0..=u16::MAX {
            if h & 0x7c00 == 0x7c00 {
                continue; // infinities and NaNs are never stored
            }
            // SAFETY: the CPU has F16C (checked above).
            assert_eq!(
                to_f32(h).to_bits(),
                unsafe { cpu_to(h) }.to_bits(),
                "{h:#x}"
            );
        }
        // Every exponent, mantissas spread by a prime step.
        for bits in (0..=u32::MAX).step_by(997) {
            let v = f32::from_bits(bits);
            // SAFETY: as above.
            let cpu = unsafe { cpu_from(v) };
            let expected = (cpu & 0x7c00 != 0x7c00).then_some(cpu);
            assert_eq!(from_f32(v), expected, "{bits:#x}");
        }
    }
}
