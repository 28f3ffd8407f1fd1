//! vkml-core: the engine every front end shares. Modules are layers, lowest first; a module imports only lower ones
//! (checked by `tools/check_layers.py`): util 0 · base 1 · graph 2 · backend 3 · dispatch 5 · plan 6 · tensor 7 ·
//! api 8 · io, nn and autograd 9 (siblings, which name none of each other). Layer 4 is the backend crates, which see
//! only layers 0–3; the op definitions they share with this crate are the crate vkml-ops, below them all.

pub mod api;
pub mod autograd;
pub mod backend;
pub mod base;
pub mod dispatch;
pub mod graph;
pub mod io;
pub mod nn;
pub mod plan;
pub mod tensor;
pub mod util;

pub use util::error::{Error, Result};
