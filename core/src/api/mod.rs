//! Layer 6: the tensor API front ends wrap — creation, elementwise math, reductions, matmul, views, in-place
//! writes and realization. Composite ops are written here once, over the primitives of `graph::op`.

pub mod activation;
pub mod advanced;
pub mod arith;
pub mod arrange;
pub mod attention;
pub mod conv;
pub mod conv_transpose;
pub mod create;
pub mod division;
pub mod einsum;
pub mod elementwise;
pub mod fused;
pub mod gather;
pub mod grad;
pub mod index;
pub mod inplace;
pub mod interpolate;
pub mod io;
pub mod join;
pub mod linalg;
pub mod logical;
pub mod loss;
pub mod matmul;
pub mod moments;
pub mod movement;
pub mod nn;
pub mod norm;
pub mod pad;
pub mod pointwise;
pub mod promote;
pub mod random;
pub mod realize;
pub mod reduce;
pub mod rnn;
pub mod scan;
pub mod sort;
pub mod tensor;
pub mod torchfile;
pub mod triangle;
pub mod unary;
pub mod vector_norm;

pub use tensor::Tensor;
