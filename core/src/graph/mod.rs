//! Layer 2: the op table (one row per public op, with its tolerance contract) and the lazy graph of nodes.

pub mod contract;
pub mod grad_contract;
pub mod node;
pub mod op;
pub mod table;
