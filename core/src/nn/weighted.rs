//! The layout of the layers that hold a weight and an optional bias (Linear, Conv1d, Conv2d, ConvTranspose2d,
//! Embedding): their names and shapes, and torch's initialisation: for Linear and the convolutions
//! kaiming_uniform_(a = √5) on the weight and U(±1/√fan_in) on the bias, which are both U(±1/√fan_in); for
//! Embedding N(0, 1) with the padding row zero. Both front ends hold what this names.

use crate::base::scalar::Scalar;
use crate::nn::functional::{normal_, uniform_};
use crate::tensor::Tensor;
use crate::util::error::{Error, Result};

/// How torch starts the parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Init {
    /// Linear and the convolutions: U(±1/√fan_in) on every parameter.
    FanIn,
    /// Embedding: N(0, 1), then `zero_row` (the padding index) set to zero.
    Normal { zero_row: Option<usize> },
}

/// A weight of `weight`'s shape and, where `bias` is given, a bias of that length.
#[derive(Clone, Debug)]
pub struct Weighted {
    pub weight: Vec<usize>,
    pub bias: Option<usize>,
    pub init: Init,
}

impl Weighted {
    /// Linear's and the convolutions' layout.
    pub fn fan_in(weight: Vec<usize>, bias: Option<usize>) -> Weighted {
        Weighted { weight, bias, init: Init::FanIn }
    }

    /// Embedding's layout: `rows` × `dim`, no bias; a padding index must be a row (after torch's wrap of a negative
    /// one, which the front ends do as they keep it).
    pub fn embedding(rows: usize, dim: usize, padding_idx: Option<usize>) -> Result<Weighted> {
        if padding_idx.is_some_and(|p| p >= rows) {
            return Err(Error::Value("Padding_idx must be within num_embeddings".into()));
        }
        Ok(Weighted { weight: vec![rows, dim], bias: None, init: Init::Normal { zero_row: padding_idx } })
    }

    /// `[("weight", shape), ("bias", [n])]`, the bias only where there is one.
    pub fn parameters(&self) -> Vec<(String, Vec<usize>)> {
        let mut out = vec![("weight".to_string(), self.weight.clone())];
        out.extend(self.bias.map(|n| ("bias".to_string(), vec![n])));
        out
    }

    /// torch's `reset_parameters`, in place over `params` in [`Weighted::parameters`]' order. fan_in is the
    /// weight's second dim times its kernel (torch's `_calculate_fan_in_and_fan_out`); 0 leaves zeros.
    pub fn reset(&self, params: &[Tensor]) -> Result<()> {
        if params.len() != self.parameters().len() {
            return Err(Error::Value(format!("expected {} parameters, got {}", self.parameters().len(), params.len())));
        }
        match self.init {
            Init::FanIn => {
                let fan_in: usize = self.weight.iter().skip(1).product();
                let bound = if fan_in > 0 { 1.0 / (fan_in as f64).sqrt() } else { 0.0 };
                params.iter().try_for_each(|p| uniform_(p, -bound, bound))
            }
            Init::Normal { zero_row } => {
                params.iter().try_for_each(|p| normal_(p, 0.0, 1.0))?;
                let Some(row) = zero_row else { return Ok(()) };
                let row = i64::try_from(row).map_err(|_| Error::Value("padding_idx out of range".into()))?;
                crate::tensor::grad::no_grad(|| params[0].narrow(0, row, 1)?.fill(Scalar::Float(0.0)))
            }
        }
    }
}
