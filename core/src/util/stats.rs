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
    /// Bind groups a GPU backend made (binding.rs keeps each for as long as its buffers keep coming back).
    BindGroups,
    /// Compute pipelines a GPU backend compiled (once per family and constants, and per generated kernel).
    PipelinesCompiled,
    /// Host nanoseconds a GPU backend spent compiling them (the driver's compile, part of `HostLaunchNs`).
    HostCompileNs,
    /// Host nanoseconds spent ordering the nodes of realizations (the schedule).
    HostScheduleNs,
    /// Host nanoseconds spent planning fusion.
    HostFuseNs,
    /// Host nanoseconds spent allocating outputs and building kernels from nodes.
    HostPrepareNs,
    /// Host nanoseconds a GPU backend spent turning kernels into launches: uniforms and pipelines (compiling one
    /// the first time it is used).
    HostLaunchNs,
    /// Host nanoseconds a GPU backend spent making bind groups.
    HostBindNs,
    /// Host nanoseconds a GPU backend spent recording compute passes.
    HostRecordNs,
    /// Host nanoseconds a GPU backend spent in error scopes around its batches.
    HostScopeNs,
    /// Host nanoseconds spent submitting command buffers.
    HostSubmitNs,
}

/// Every counter with its public name, in a fixed order.
pub const COUNTERS: [(Counter, &str); 20] = [
    (Counter::Nodes, "nodes"),
    (Counter::Realizations, "realizations"),
    (Counter::Submissions, "submissions"),
    (Counter::Dispatches, "dispatches"),
    (Counter::BytesUploaded, "bytes_uploaded"),
    (Counter::BytesDownloaded, "bytes_downloaded"),
    (Counter::PoolHits, "pool_hits"),
    (Counter::NodesFused, "nodes_fused"),
    (Counter::KernelsGenerated, "kernels_generated"),
    (Counter::BindGroups, "bind_groups"),
    (Counter::PipelinesCompiled, "pipelines_compiled"),
    (Counter::HostCompileNs, "host_ns_compile"),
    (Counter::HostScheduleNs, "host_ns_schedule"),
    (Counter::HostFuseNs, "host_ns_fuse"),
    (Counter::HostPrepareNs, "host_ns_prepare"),
    (Counter::HostLaunchNs, "host_ns_launch"),
    (Counter::HostBindNs, "host_ns_bind"),
    (Counter::HostRecordNs, "host_ns_record"),
    (Counter::HostScopeNs, "host_ns_scope"),
    (Counter::HostSubmitNs, "host_ns_submit"),
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
        Counter::BindGroups => 9,
        Counter::PipelinesCompiled => 10,
        Counter::HostCompileNs => 11,
        Counter::HostScheduleNs => 12,
        Counter::HostFuseNs => 13,
        Counter::HostPrepareNs => 14,
        Counter::HostLaunchNs => 15,
        Counter::HostBindNs => 16,
        Counter::HostRecordNs => 17,
        Counter::HostScopeNs => 18,
        Counter::HostSubmitNs => 19,
    };
    &VALUES[i]
}

/// Add `n` to a counter.
pub fn bump(c: Counter, n: u64) {
    slot(c).fetch_add(n, Ordering::Relaxed);
}

/// A span of host time, added to its counter in nanoseconds when it ends. Natively only: Rust's std has no clock in
/// WebAssembly, where these counters stay 0.
pub struct Span {
    counter: Counter,
    #[cfg(not(target_arch = "wasm32"))]
    start: std::time::Instant,
}

/// Start timing host work for `c`.
pub fn span(c: Counter) -> Span {
    Span {
        counter: c,
        #[cfg(not(target_arch = "wasm32"))]
        start: std::time::Instant::now(),
    }
}

impl Span {
    /// Stop timing and add the elapsed nanoseconds.
    pub fn end(self) {
        #[cfg(not(target_arch = "wasm32"))]
        bump(self.counter, self.start.elapsed().as_nanos() as u64);
        #[cfg(target_arch = "wasm32")]
        let _ = self.counter;
    }
}

/// Read a counter.
pub fn get(c: Counter) -> u64 {
    slot(c).load(Ordering::Relaxed)
}
