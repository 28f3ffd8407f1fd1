//! The layout of the normalisation layers (BatchNorm, LayerNorm, GroupNorm): an affine weight of ones and bias of
//! zeros over `shape` where asked, and BatchNorm's running statistics (buffers running_mean, running_var and
//! num_batches_tracked), named, shaped and started as torch does. Both front ends hold what this names.

use crate::base::dtype::DType;
use crate::base::scalar::Scalar;
use crate::tensor::grad::no_grad;
use crate::tensor::Tensor;
use crate::util::error::{Error, Result};

/// The parameters and buffers of a normalisation layer over `shape`.
#[derive(Clone, Debug)]
pub struct Affine {
    pub shape: Vec<usize>,
    pub weight: bool,
    pub bias: bool,
    pub running_stats: bool,
}

/// Fill `tensors` with `values` in order, after checking there are as many as the layout names.
fn fill(tensors: &[Tensor], values: &[f64], what: &str) -> Result<()> {
    if tensors.len() != values.len() {
        return Err(Error::Value(format!("expected {} {what}, got {}", values.len(), tensors.len())));
    }
    no_grad(|| tensors.iter().zip(values).try_for_each(|(t, v)| t.fill(Scalar::Float(*v))))
}

impl Affine {
    /// `[("weight", shape), ("bias", shape)]`, each only where asked.
    pub fn parameters(&self) -> Vec<(String, Vec<usize>)> {
        let named = [("weight", self.weight), ("bias", self.bias)];
        named.iter().filter(|(_, on)| *on).map(|(n, _)| (n.to_string(), self.shape.clone())).collect()
    }

    /// `[(name, shape, dtype)]` of the running statistics (none without them); `None` as the dtype is the layer's.
    pub fn buffers(&self) -> Vec<(String, Vec<usize>, Option<DType>)> {
        if !self.running_stats {
            return vec![];
        }
        vec![
            ("running_mean".into(), self.shape.clone(), None),
            ("running_var".into(), self.shape.clone(), None),
            ("num_batches_tracked".into(), vec![], Some(DType::I64)),
        ]
    }

    /// torch's `reset_parameters`: the weight ones, the bias zeros (in [`Affine::parameters`]' order).
    pub fn reset(&self, params: &[Tensor]) -> Result<()> {
        let values: Vec<f64> = self.parameters().iter().map(|(n, _)| if n == "weight" { 1.0 } else { 0.0 }).collect();
        fill(params, &values, "parameters")
    }

    /// torch's `reset_running_stats`: the mean zeros, the variance ones, the batch count zero.
    pub fn reset_running_stats(&self, buffers: &[Tensor]) -> Result<()> {
        let values: &[f64] = if self.running_stats { &[0.0, 1.0, 0.0] } else { &[] };
        fill(buffers, values, "buffers")
    }
}
