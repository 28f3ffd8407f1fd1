//! Layer 6: the tensor API front ends wrap — creation, elementwise math, reductions, matmul, views, in-place
//! writes and realization. Composite ops are written here once, over the primitives of `graph::op`.

pub mod advanced;
pub mod arith;
pub mod arrange;
pub mod create;
pub mod division;
pub mod einsum;
pub mod elementwise;
pub mod fused;
pub mod gather;
pub mod index;
pub mod inplace;
pub mod join;
pub mod linalg;
pub mod logical;
pub mod matmul;
pub mod moments;
pub mod movement;
pub mod pad;
pub mod pointwise;
pub mod precision;
pub mod random;
pub mod reduce;
pub mod scan;
pub mod sort;
pub mod triangle;
pub mod unary;
pub mod vector_norm;
pub mod window;

pub use crate::tensor::Tensor;
