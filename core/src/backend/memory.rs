//! A device's memory as torch's caching allocator reports it: bytes held by tensors' buffers (allocated), bytes the
//! pool keeps for reuse on top (reserved), and the peak of allocated. Backends count into a [`Tracker`].

use std::sync::atomic::{AtomicU64, Ordering};

/// A device's memory in bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Memory {
    /// Held by tensors' buffers now (torch's `memory_allocated`).
    pub allocated: u64,
    /// Held from the device: allocated plus freed buffers kept for reuse (torch's `memory_reserved`).
    pub reserved: u64,
    /// The most `allocated` has been since start or the last reset (torch's `max_memory_allocated`).
    pub peak: u64,
}

/// The counters a backend keeps as buffers come and go.
#[derive(Debug, Default)]
pub struct Tracker {
    allocated: AtomicU64,
    cached: AtomicU64,
    peak: AtomicU64,
}

impl Tracker {
    /// A buffer of `bytes` now holds a tensor's data (new, or taken from the pool: `from_cache`).
    pub fn hold(&self, bytes: u64, from_cache: bool) {
        if from_cache {
            self.cached.fetch_sub(bytes, Ordering::Relaxed);
        }
        let now = self.allocated.fetch_add(bytes, Ordering::Relaxed) + bytes;
        self.peak.fetch_max(now, Ordering::Relaxed);
    }

    /// A buffer of `bytes` was freed; `to_cache` when the pool keeps it.
    pub fn release(&self, bytes: u64, to_cache: bool) {
        self.allocated.fetch_sub(bytes, Ordering::Relaxed);
        if to_cache {
            self.cached.fetch_add(bytes, Ordering::Relaxed);
        }
    }

    /// The pool returned `bytes` of cached buffers to the device.
    pub fn uncache(&self, bytes: u64) {
        self.cached.fetch_sub(bytes, Ordering::Relaxed);
    }

    pub fn memory(&self) -> Memory {
        let allocated = self.allocated.load(Ordering::Relaxed);
        Memory {
            allocated,
            reserved: allocated + self.cached.load(Ordering::Relaxed),
            peak: self.peak.load(Ordering::Relaxed),
        }
    }

    /// Start the peak again from what is allocated now.
    pub fn reset_peak(&self) {
        self.peak.store(self.allocated.load(Ordering::Relaxed), Ordering::Relaxed);
    }
}
