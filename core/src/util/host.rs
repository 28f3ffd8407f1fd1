//! Host memory that may be refused: a tensor's bytes reserved before they are filled, so that a size past what the
//! machine can give is an error naming it (as torch's allocator raises) instead of an abort.

use crate::util::error::{Error, Result};

/// An empty buffer with room for `len` items of `itemsize` bytes.
pub fn reserve(len: usize, itemsize: usize) -> Result<Vec<u8>> {
    let bytes = len
        .checked_mul(itemsize)
        .ok_or_else(|| Error::Runtime(format!("a tensor of {len} elements of {itemsize} bytes is too large")))?;
    let mut v = Vec::new();
    v.try_reserve_exact(bytes).map_err(|_| {
        Error::Runtime(format!("DefaultCPUAllocator: can't allocate memory: you tried to allocate {bytes} bytes"))
    })?;
    Ok(v)
}
