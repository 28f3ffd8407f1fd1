//! Work split over rayon's threads natively and run in order on wasm32 (no threads there): each chunk of the output
//! is filled by one call, so how chunks meet threads changes no byte.

#[cfg(not(target_arch = "wasm32"))]
use rayon::prelude::*;

/// `f(i, chunk)` for each `size`-element chunk of `out` (the last may be shorter), on threads where there are any.
pub fn each_chunk<T: Send>(out: &mut [T], size: usize, f: impl Fn(usize, &mut [T]) + Sync + Send) {
    #[cfg(not(target_arch = "wasm32"))]
    out.par_chunks_mut(size.max(1)).enumerate().for_each(|(i, c)| f(i, c));
    #[cfg(target_arch = "wasm32")]
    out.chunks_mut(size.max(1)).enumerate().for_each(|(i, c)| f(i, c));
}
