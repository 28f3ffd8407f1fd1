//! Process-wide counters that make laziness and batching observable (`vkml.stats()`).

use std::sync::atomic::{AtomicU64, Ordering};

/// One counter per observable event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Counter {
    /// Graph nodes built.
    Nodes,
    /// Realizations (a graph evaluated on a device).
    Realizations,
    /// Command submissions to a GPU queue.
    Submissions,
    /// Kernel dispatches.
    Dispatches,
    /// Bytes copied from the host to a device.
    BytesUploaded,
    /// Bytes copied from a device to the host.
    BytesDownloaded,
    /// Buffer allocations served from a pool.
    PoolHits,
    /// Nodes computed inside another node's fused program (plan/fuse.rs) instead of by a kernel of their own.
    NodesFused,
    /// Straight-line kernels a GPU backend generated for fused programs that keep coming back.
    KernelsGenerated,
}

/// Every counter with its public name, in a fixed order.
pub const COUNTERS: [(Counter, &str); 9] = [
    (Counter::Nodes, "nodes"),
    (Counter::Realizations, "realizations"),
    (Counter::Submissions, "submissions"),
    (Counter::Dispatches, "dispatches"),
    (Counter::BytesUploaded, "bytes_uploaded"),
    (Counter::BytesDownloaded, "bytes_downloaded"),
    (Counter::PoolHits, "pool_hits"),
    (Counter::NodesFused, "nodes_fused"),
    (Counter::KernelsGenerated, "kernels_generated"),
];

static VALUES: [AtomicU64; COUNTERS.len()] = [const { AtomicU64::new(0) }; COUNTERS.len()];

fn slot(c: Counter) -> &'static AtomicU64 {
    let i = match c {
        Counter::Nodes => 0,
        Counter::Realizations => 1,
        Counter::Submissions => 2,
        Counter::Dispatches => 3,
        Counter::BytesUploaded => 4,
        Counter::BytesDownloaded => 5,
        Counter::PoolHits => 6,
        Counter::NodesFused => 7,
        Counter::KernelsGenerated => 8,
    };
    &VALUES[i]
}

/// Add `n` to a counter.
pub fn bump(c: Counter, n: u64) {
    slot(c).fetch_add(n, Ordering::Relaxed);
}

/// Read a counter.
pub fn get(c: Counter) -> u64 {
    slot(c).load(Ordering::Relaxed)
}
