//! Layer 9: network math written once over the tensor ops, so gradients come from the primitives' rules: the
//! arguments torch takes as ints or tuples, the functional core (linear, softmax family, classification losses, dropout), activations, losses, normalisation,
//! convolution, unfold/fold and pooling, attention and the MultiheadAttention layout, recurrent layers, interpolation, and the optimizers' update rules.

pub mod activation;
pub mod affine;
pub mod args;
pub mod attention;
pub mod conv;
pub mod conv_transpose;
pub mod described;
pub mod fold;
pub mod functional;
pub mod interpolate;
pub mod loss;
pub mod mha;
pub mod norm;
pub mod optim;
pub mod optimizer;
pub mod rnn;
pub mod schedule;
pub mod weighted;
