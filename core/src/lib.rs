//! vkml-core: the engine every front end shares. Modules are layers, lowest first; a module imports only lower ones
//! (checked by `tools/check_layers.py`): util 0 · base 1 · graph 2 · backend 3 · dispatch 5 · plan 5 · api 6 · autograd 7 · optim 7.
//! Layer 4 is the backend crates, which see only layers 0–3.

pub mod api;
pub mod autograd;
pub mod backend;
pub mod base;
pub mod dispatch;
pub mod graph;
pub mod optim;
pub mod plan;
pub mod util;

pub use util::error::{Error, Result};
