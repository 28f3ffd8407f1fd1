//! GPU buffers as u32 words (f16/bf16 packed two per word, int64 as two words, bool one word), a pool that reuses
//! freed buffers by size, and the NumPy-layout conversion on upload and readback.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use vkml_core::backend::memory::Tracker;
use vkml_core::base::dtype::DType;
use vkml_core::util::stats::{bump, Counter};

/// Words of storage for `len` elements.
pub fn words(dtype: DType, len: usize) -> usize {
    match dtype {
        DType::F16 | DType::BF16 => len.div_ceil(2),
        DType::I64 | DType::F64 => 2 * len,
        DType::F32 | DType::I32 | DType::Bool => len,
    }
}

/// Bytes a buffer of `len` elements occupies (never zero: wgpu cannot bind an empty buffer).
pub fn size_bytes(dtype: DType, len: usize) -> u64 {
    ((words(dtype, len) * 4).max(16) as u64).next_multiple_of(16)
}

/// Freed buffers by byte size, and the device's memory counters.
#[derive(Default)]
pub struct Pool {
    free: Mutex<HashMap<u64, Vec<wgpu::Buffer>>>,
    pub memory: Tracker,
}

impl Pool {
    pub fn take(&self, bytes: u64) -> Option<wgpu::Buffer> {
        let b = self.free.lock().unwrap_or_else(|e| e.into_inner()).get_mut(&bytes)?.pop();
        if b.is_some() {
            bump(Counter::PoolHits, 1);
            self.memory.hold(bytes, true);
        }
        b
    }

    fn put(&self, bytes: u64, b: wgpu::Buffer) {
        self.free.lock().unwrap_or_else(|e| e.into_inner()).entry(bytes).or_default().push(b);
        self.memory.release(bytes, true);
    }

    /// Give every pooled buffer back to the device (`empty_cache`; tests also vary pool state with it).
    pub fn clear(&self) {
        let freed = std::mem::take(&mut *self.free.lock().unwrap_or_else(|e| e.into_inner()));
        self.memory.uncache(freed.iter().map(|(bytes, list)| bytes * list.len() as u64).sum());
    }
}

/// A storage buffer owned by one vkml `Buffer`; returns to the pool when the last handle drops.
pub struct GpuBuffer {
    pub buffer: wgpu::Buffer,
    pub bytes: u64,
    pub pool: Arc<Pool>,
}

impl Drop for GpuBuffer {
    fn drop(&mut self) {
        self.pool.put(self.bytes, self.buffer.clone());
    }
}

/// NumPy-layout bytes to GPU words (bool bytes widen to words; everything is padded to 4 bytes). Bytes that are
/// already words are written as they are: an input batch is not copied once more on its way to the queue.
pub fn to_words(dtype: DType, bytes: &[u8]) -> Cow<'_, [u8]> {
    if dtype != DType::Bool && bytes.len().is_multiple_of(4) {
        return Cow::Borrowed(bytes);
    }
    let mut out: Vec<u8> = match dtype {
        DType::Bool => bytes.iter().flat_map(|&b| [(b != 0) as u8, 0, 0, 0]).collect(),
        _ => bytes.to_vec(),
    };
    while !out.len().is_multiple_of(4) {
        out.push(0);
    }
    Cow::Owned(out)
}

/// GPU words back to NumPy-layout bytes for `len` elements.
pub fn from_words(dtype: DType, len: usize, words: &[u8]) -> Vec<u8> {
    match dtype {
        DType::Bool => words.chunks_exact(4).take(len).map(|w| (w[0] != 0) as u8).collect(),
        _ => words[..len * dtype.itemsize()].to_vec(),
    }
}
