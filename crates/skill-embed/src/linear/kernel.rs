//! The inner loop of a dense layer: up to [`ROWS`] rows of `x` times one
//! panel of weights (for each input, the [`PANEL`] weights of 16
//! consecutive outputs, as halves), summed in `f32`. The sums stay in
//! registers for the whole loop; each input reads its 16 weights once for
//! all the rows.
//!
//! Two forms of the same loop: AVX2 with FMA and F16C (x86-64 CPUs since
//! about 2013, chosen at run time), and portable Rust for the rest.

use crate::half;

/// Outputs per panel.
pub(crate) const PANEL: usize = 16;
/// Rows of `x` per call: 6 rows × 2 vectors of 8 sums, plus the 2 vectors
/// of weights and a broadcast, fill the 16 AVX2 registers.
pub(crate) const ROWS: usize = 6;

/// The sums of one call: `tile[r][j]` for row `r`, output `j` of the panel.
pub(crate) type Tile = [[f32; PANEL]; ROWS];

/// `tile[r][j] = Σₖ x[r · inputs + k] · panel[k · PANEL + j]` for the
/// `rows` rows of `x` (1 to [`ROWS`]), with `inputs = panel.len() / PANEL`.
pub(crate) fn multiply(avx2: bool, panel: &[u16], x: &[f32], rows: usize, tile: &mut Tile) {
    let inputs = panel.len() / PANEL;
    assert!(inputs > 0 && (1..=ROWS).contains(&rows) && x.len() >= rows * inputs);
    macro_rules! by_rows {
        ($kernel:ident) => {
            match rows {
                1 => $kernel::<1>(panel, x, tile),
                2 => $kernel::<2>(panel, x, tile),
                3 => $kernel::<3>(panel, x, tile),
                4 => $kernel::<4>(panel, x, tile),
                5 => $kernel::<5>(panel, x, tile),
                _ => $kernel::<6>(panel, x, tile),
            }
        };
    }
    #[cfg(target_arch = "x86_64")]
    if avx2 {
        // SAFETY: `avx2` is only true when the CPU has AVX2, FMA and F16C
        // (`has_avx2`); the lengths were asserted above.
        return unsafe { by_rows!(avx2_panel) };
    }
    let _ = avx2;
    by_rows!(portable_panel)
}

/// Whether this CPU runs the AVX2 kernel.
pub(crate) fn has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("fma")
            && std::arch::is_x86_feature_detected!("f16c")
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// # Safety
/// The CPU has AVX2, FMA and F16C; `x` holds at least `R` rows of
/// `panel.len() / PANEL` values.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn avx2_panel<const R: usize>(panel: &[u16], x: &[f32], tile: &mut Tile) {
    use std::arch::x86_64::*;
    let inputs = panel.len() / PANEL;
    // SAFETY: row r < R starts within x (the caller's promise).
    let x: [*const f32; R] = std::array::from_fn(|r| unsafe { x.as_ptr().add(r * inputs) });
    let mut sums = [[_mm256_setzero_ps(); 2]; R];
    let mut w = panel.as_ptr();
    for k in 0..inputs {
        // SAFETY: k < inputs: the panel holds inputs × PANEL halves, each
        // row inputs values.
        unsafe {
            let low = _mm256_cvtph_ps(_mm_loadu_si128(w.cast()));
            let high = _mm256_cvtph_ps(_mm_loadu_si128(w.add(8).cast()));
            for r in 0..R {
                let v = _mm256_broadcast_ss(&*x[r].add(k));
                sums[r][0] = _mm256_fmadd_ps(v, low, sums[r][0]);
                sums[r][1] = _mm256_fmadd_ps(v, high, sums[r][1]);
            }
            w = w.add(PANEL);
        }
    }
    for r in 0..R {
        // SAFETY: each row of the tile holds PANEL = 16 floats.
        unsafe {
            _mm256_storeu_ps(tile[r].as_mut_ptr(), sums[r][0]);
            _mm256_storeu_ps(tile[r].as_mut_ptr().add(8), sums[r][1]);
        }
    }
}

fn portable_panel<const R: usize>(panel: &[u16], x: &[f32], tile: &mut Tile) {
    let inputs = panel.len() / PANEL;
    let rows: [&[f32]; R] = std::array::from_fn(|r| &x[r * inputs..(r + 1) * inputs]);
    let mut sums = [[0f32; PANEL]; R];
    for (k, halves) in panel.chunks_exact(PANEL).enumerate() {
        let w: [f32; PANEL] = std::array::from_fn(|j| half::to_f32(halves[j]));
        for r in 0..R {
            let v = rows[r][k];
            for j in 0..PANEL {
                sums[r][j] += v * w[j];
            }
        }
    }
    tile[..R].copy_from_slice(&sums);
}
