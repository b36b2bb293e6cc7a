//! Latin-1, UCS2 and UCS4 to UTF-8 with AVX-512 BW/VL, for CPUs that have
//! it without VBMI2: the AVX2 transcoder ([`super::avx2_wide`]) with its
//! short tails moved by one masked load and one masked store each, with
//! no branch or call on their length (most strings are shorter than a
//! block, or end in a partial one).

use super::avx2_blocks::BlockUnit;
use super::avx2_wide::{transcode, Stage, Tail};
use super::Specials;
use crate::text::SurrogateError;
use core::arch::x86_64::*;

/// The AVX-512 BW way: masked byte moves.
struct Masked;

impl Tail for Masked {
    #[inline(always)]
    unsafe fn stage<T: BlockUnit>(p: *const T, k: usize, stage: &mut Stage) {
        let bytes = _bzhi_u64(u64::MAX, (k * core::mem::size_of::<T>()) as u32);
        // SAFETY: the masked load touches only the `k` units at `p`; the
        // stage is 64 bytes, aligned.
        let pad = _mm512_load_si512(stage.0.as_ptr() as *const __m512i);
        let units = _mm512_mask_loadu_epi8(pad, bytes, p as *const i8);
        _mm512_store_si512(stage.0.as_mut_ptr() as *mut __m512i, units);
    }
    #[inline(always)]
    unsafe fn copy_out(from: &Stage, len: usize, out: *mut u8) {
        // SAFETY: the masked store touches only `len` bytes at `out`.
        let utf8 = _mm512_load_si512(from.0.as_ptr() as *const __m512i);
        _mm512_mask_storeu_epi8(out as *mut i8, _bzhi_u64(u64::MAX, len as u32), utf8);
    }
}

/// [`transcode`] with masked tails.
///
/// # Safety
/// As [`transcode`]; the CPU has AVX2, POPCNT, AVX-512 F, BW and VL, and
/// BMI2 ([`crate::cpu::avx2_popcnt`], [`crate::cpu::avx512_bw_vl_bmi2`]).
#[target_feature(enable = "avx2,popcnt,avx512f,avx512bw,avx512vl,bmi2")]
pub(crate) unsafe fn avx512_bw<T: BlockUnit, S: Specials>(src: &[T], out: *mut u8) -> Result<*mut u8, SurrogateError> {
    transcode::<T, S, Masked>(src, out)
}
