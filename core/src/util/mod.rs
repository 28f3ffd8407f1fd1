//! Layer 0: errors, software float narrowing, the Philox generator, futures and counters; no vkml types.

pub mod error;
pub mod future;
pub mod narrow;
pub mod philox;
pub mod stats;
