//! In-place writes: each installs a new version of the storage (an `Assign` node over the old one), so every
//! view of the storage sees it, and values saved earlier keep the old version.

use crate::api::elementwise::{binary, scalar_tensor, sub};
use crate::base::dtype::Category;
use crate::base::scalar::Scalar;
use crate::base::view::View;
use crate::graph::op::{BinaryOp, Op};
use crate::tensor::promote::{result_type, Operand};
use crate::tensor::Tensor;
use crate::util::error::{Error, Result};

impl Tensor {
    /// Write `value` (broadcast to this view, cast to this dtype) into the elements under this view.
    pub fn assign(&self, value: &Tensor) -> Result<()> {
        self.assign_checked(value, true)
    }

    /// `overlap_check`: torch refuses writes through a view whose elements alias (an expanded view) unless the
    /// value is a single scalar (`fill_`, `zero_`), where every alias receives the same value.
    fn assign_checked(&self, value: &Tensor, overlap_check: bool) -> Result<()> {
        self.check_inplace(Some(value))?;
        for (s, st) in self.shape().iter().zip(self.strides()) {
            if overlap_check && *s > 1 && *st == 0 {
                return Err(Error::Runtime(
                    "unsupported operation: more than one element of the written-to tensor refers to a single \
                     memory location. Please clone() the tensor before performing the operation."
                        .into(),
                ));
            }
        }
        // torch drops a value's extra leading size-1 dims (x[:] = ones(1, 3) for x of shape (3,)).
        let mut value = value.clone();
        while value.ndim() > self.ndim() && value.shape()[0] == 1 {
            value = value.squeeze(Some(&[0]))?;
        }
        if crate::base::view::broadcast_shapes(value.shape(), self.shape()).ok().as_deref() != Some(self.shape()) {
            return Err(Error::Shape(format!(
                "output with shape {:?} doesn't match the broadcast shape {:?}",
                self.shape(),
                value.shape()
            )));
        }
        let value = value.to_device(self.device())?.to_dtype(self.dtype())?.expand(self.shape())?;
        let base_node = self.storage().node();
        if self.view.is_contiguous_of(&base_node.shape) {
            // The whole storage is rewritten: its new version is the value itself (nodes are immutable, so two
            // storages may share one), with no copy of the old version.
            let v = value.contiguous()?;
            let v = if v.node().shape == base_node.shape { v } else { value.copy()? };
            self.storage().set_node(v.node());
            return Ok(());
        }
        let base = Tensor::from_node(base_node.clone());
        let op = Op::Assign { view: self.view.clone() };
        let new = Tensor::make(op, &[&base, &value], base_node.shape.clone(), base_node.dtype, base_node.device)?;
        self.storage().set_node(new.node());
        Ok(())
    }

    /// A new tensor with history: this whole (contiguous) tensor with the elements under `view` replaced by
    /// `value` (cast and broadcast to them). Code that builds a result piece by piece (`cat`) writes this way.
    pub(crate) fn assigned(&self, view: View, value: &Tensor) -> Result<Tensor> {
        let base = self.contiguous()?;
        let value = value.to_device(self.device())?.to_dtype(self.dtype())?.expand(&view.shape)?;
        Tensor::make(Op::Assign { view }, &[&base, &value], base.shape().to_vec(), base.dtype(), base.device())
    }

    /// Fill with a scalar (`fill_`, `zero_`).
    pub fn fill(&self, value: Scalar) -> Result<()> {
        crate::base::scalar::check_fits(value, self.dtype())?;
        let v = scalar_tensor(value, self.dtype(), self.device())?;
        self.assign_checked(&v, false)
    }

    /// `self op= other`, with torch's rule that the result must be castable to self's dtype.
    pub fn update(&self, other: &Operand, op: &str) -> Result<()> {
        let me = Operand::Tensor(self.clone());
        let rt = result_type(&[&me, other]);
        let rt = if op == "div" { crate::base::dtype::to_float(rt) } else { rt };
        if rt.category() > self.dtype().category() || (rt.category() == Category::Float && !self.dtype().is_float()) {
            return Err(Error::Runtime(format!(
                "result type {} can't be cast to the desired output type {}",
                rt.name(),
                self.dtype().name()
            )));
        }
        let r = match op {
            "add" => binary(&me, other, BinaryOp::Add)?,
            "sub" => sub(&me, other)?,
            "mul" => binary(&me, other, BinaryOp::Mul)?,
            "div" => binary(&me, other, BinaryOp::Div)?,
            "pow" => crate::api::pointwise::pow(&me, other)?,
            _ => return Err(Error::Value(format!("unknown in-place op '{op}'"))),
        };
        if r.shape() != self.shape() {
            return Err(Error::Shape(format!(
                "output with shape {:?} doesn't match the broadcast shape {:?}",
                self.shape(),
                r.shape()
            )));
        }
        self.assign(&r)
    }
}
