//! vkml-ops: one definition per primitive op. Each kernel family's rows live in one `macro_rules!` list that calls
//! back a macro of the caller's with every row, so the engine's enum, names, dtype rules and contracts, the WGSL op
//! constants (written by the Vulkan backend's build script) and the front ends' methods all expand the same rows.
//! The crate has no dependencies and defines no types: a row's contract expressions are tokens, resolved where
//! the engine expands them (`vkml_core::graph`), and ignored by callers that need only names.

mod binary;
mod reduce;
mod scan;
mod unary;
