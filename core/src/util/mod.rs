//! Layer 0: errors, software float narrowing, the Philox generator, futures, counters and fallible host memory; no
//! vkml types.

pub mod error;
pub mod future;
pub mod host;
pub mod narrow;
pub mod philox;
pub mod stats;
