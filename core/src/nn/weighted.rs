//! The layout of the layers that hold a weight and an optional bias (Linear, Conv1d, Conv2d, ConvTranspose2d): their
//! names and shapes, and torch's initialisation, kaiming_uniform_(a = √5) on the weight and U(±1/√fan_in) on the
//! bias, which are both U(±1/√fan_in). Both front ends hold what this names.

use crate::nn::functional::uniform_;
use crate::tensor::Tensor;
use crate::util::error::{Error, Result};

/// A weight of `weight`'s shape and, where `bias` is given, a bias of that length.
#[derive(Clone, Debug)]
pub struct Weighted {
    pub weight: Vec<usize>,
    pub bias: Option<usize>,
}

impl Weighted {
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
        let fan_in: usize = self.weight.iter().skip(1).product();
        let bound = if fan_in > 0 { 1.0 / (fan_in as f64).sqrt() } else { 0.0 };
        params.iter().try_for_each(|p| uniform_(p, -bound, bound))
    }
}
