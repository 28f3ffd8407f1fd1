//! Elementwise ops: promotion, broadcasting, the primitive unary/binary/where/cast nodes and the composites built
//! on them (sub, relu). Inputs are cast to the compute dtype first, so kernels see one dtype per op.

use crate::base::buffer::DeviceId;
use crate::base::dtype::{to_float, DType};
use crate::base::scalar::Scalar;
use crate::base::view::broadcast_shapes;
use crate::graph::op::{BinaryOp, BinaryRule, Op};
use crate::tensor::promote::{result_type, Operand};
use crate::tensor::{device_mismatch, Tensor};
use crate::util::error::{Error, Result};

impl From<Tensor> for Operand {
    fn from(t: Tensor) -> Operand {
        Operand::Tensor(t)
    }
}

impl From<Scalar> for Operand {
    fn from(s: Scalar) -> Operand {
        Operand::Scalar(s)
    }
}

/// Shorthands for composites written over `binary` (network math, norms, backward rules, optimizers): a tensor
/// operand, a float-scalar operand, and the tensor-by-tensor and tensor-by-scalar forms used there.
pub(crate) fn t(x: &Tensor) -> Operand {
    Operand::Tensor(x.clone())
}

pub(crate) fn s(v: f64) -> Operand {
    Operand::Scalar(Scalar::Float(v))
}

pub(crate) fn mul(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    binary(&t(a), &t(b), BinaryOp::Mul)
}

pub(crate) fn div(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    binary(&t(a), &t(b), BinaryOp::Div)
}

/// a · c for a float scalar c.
pub(crate) fn scale(a: &Tensor, c: f64) -> Result<Tensor> {
    binary(&t(a), &s(c), BinaryOp::Mul)
}

/// a + c for a float scalar c.
pub(crate) fn plus(a: &Tensor, c: f64) -> Result<Tensor> {
    binary(&t(a), &s(c), BinaryOp::Add)
}

/// A 0-d tensor holding `s` as `dtype` on `device`.
pub fn scalar_tensor(s: Scalar, dtype: DType, device: DeviceId) -> Result<Tensor> {
    Tensor::make(Op::Full(s), &[], vec![], dtype, device)
}

/// The device all tensor operands share, or a torch-style error naming the two devices.
pub(crate) fn common_device(ops: &[&Operand]) -> Result<Option<DeviceId>> {
    let mut dev: Option<DeviceId> = None;
    for op in ops {
        if let Operand::Tensor(t) = op {
            match dev {
                None => dev = Some(t.device()),
                Some(d) if d != t.device() => return Err(device_mismatch(d, t.device())),
                Some(_) => {}
            }
        }
    }
    Ok(dev)
}

/// Turn operands into tensors of `dtype` on one device, broadcast to a common shape.
fn prepare(ops: &[&Operand], dtype: DType, extra: Option<&Tensor>) -> Result<(Vec<Tensor>, Vec<usize>, DeviceId)> {
    let mut all: Vec<&Operand> = ops.to_vec();
    let extra_op = extra.map(|t| Operand::Tensor(t.clone()));
    if let Some(e) = &extra_op {
        all.push(e);
    }
    let device = match common_device(&all)? {
        Some(d) => d,
        None => return Err(Error::Value("an elementwise op needs at least one tensor operand".into())),
    };
    let mut shape: Vec<usize> = vec![];
    if let Some(e) = extra {
        shape = e.shape().to_vec();
    }
    for op in ops {
        if let Operand::Tensor(t) = op {
            shape = broadcast_shapes(&shape, t.shape())?;
        }
    }
    let mut out = Vec::new();
    for op in ops {
        let t = match op {
            Operand::Tensor(t) => t.to_dtype(dtype)?,
            Operand::Scalar(s) => scalar_tensor(*s, dtype, device)?,
        };
        out.push(t.expand(&shape)?);
    }
    Ok((out, shape, device))
}

impl Tensor {
    /// `.to(dtype)`: the same tensor when the dtype already matches, as torch does.
    pub fn to_dtype(&self, dtype: DType) -> Result<Tensor> {
        if self.dtype() == dtype {
            return Ok(self.clone());
        }
        Tensor::make(Op::Cast, &[self], self.shape().to_vec(), dtype, self.device())
    }

    /// A contiguous copy of this view (or this tensor when already contiguous and whole, as torch returns self).
    pub fn contiguous(&self) -> Result<Tensor> {
        if self.view.is_contiguous() && self.view.offset == 0 && self.numel() == self.node().numel() {
            return Ok(self.clone());
        }
        self.copy()
    }

    /// Always a new contiguous buffer (`clone()`).
    pub fn copy(&self) -> Result<Tensor> {
        Tensor::make(Op::Copy, &[self], self.shape().to_vec(), self.dtype(), self.device())
    }

    /// relu(x) = maximum(x, 0), composite. When history is recorded, the value is taken from a detached x and
    /// the gradient through `where(x > 0, x, ·)`, so it is torch's (0 at x = 0, where maximum would split it).
    pub fn relu(&self) -> Result<Tensor> {
        if self.dtype() == DType::Bool {
            return Err(Error::Unsupported("\"relu\" not implemented for 'Bool'".into()));
        }
        let zero = Operand::Scalar(Scalar::Int(0));
        let m = binary(&Operand::Tensor(self.detach()), &zero, BinaryOp::Maximum)?;
        if !self.requires_grad() || !crate::tensor::grad::is_grad_enabled() {
            return Ok(m);
        }
        // Where x is not ≤ 0 (NaN included, as torch's threshold_backward) the gradient passes.
        let stop = binary(&Operand::Tensor(self.clone()), &zero, BinaryOp::Le)?;
        where_(&stop, &Operand::Tensor(m), &Operand::Tensor(self.clone()))
    }
}

/// A primitive binary op on tensors or scalars, with torch's promotion and broadcasting.
pub fn binary(a: &Operand, b: &Operand, op: BinaryOp) -> Result<Tensor> {
    let promoted = result_type(&[a, b]);
    // torch's refusal; it names bool as its C++ type, the floats as their dtype names.
    let refuse = |dtype: &str| Error::Unsupported(format!("\"{}_cpu\" not implemented for '{dtype}'", op.name()));
    let (compute, out) = match op.rule() {
        BinaryRule::Promote => (promoted, promoted),
        BinaryRule::NoBool if promoted == DType::Bool => return Err(refuse("Bool")),
        BinaryRule::NoBool => (promoted, promoted),
        BinaryRule::Float => (to_float(promoted), to_float(promoted)),
        BinaryRule::Bits if promoted.is_float() => return Err(refuse(promoted.name())),
        BinaryRule::Bits => (promoted, promoted),
        BinaryRule::Compare => (promoted, DType::Bool),
    };
    let scaled = matches!(op, BinaryOp::Mul | BinaryOp::Div);
    let has_scalar = matches!(a, Operand::Scalar(_)) || matches!(b, Operand::Scalar(_));
    if scaled && has_scalar && matches!(compute, DType::F16 | DType::BF16) {
        // torch's CPU and CUDA mul/div kernels keep a Python scalar at f32 precision for 16-bit tensors and round
        // once at the end (add and sub convert the scalar to the tensor's dtype first, as every other op does).
        let (ts, shape, device) = prepare(&[a, b], DType::F32, None)?;
        let r = Tensor::make(Op::Binary(op), &[&ts[0], &ts[1]], shape, DType::F32, device)?;
        return r.to_dtype(out);
    }
    let (ts, shape, device) = prepare(&[a, b], compute, None)?;
    Tensor::make(Op::Binary(op), &[&ts[0], &ts[1]], shape, out, device)
}

/// a / b truncated toward zero for integer operands: the Div primitive in the operands' integer dtype (`binary`'s
/// Div is true division, in float). The division family (api/division.rs) checks the divisor first.
pub(crate) fn int_quotient(a: &Operand, b: &Operand) -> Result<Tensor> {
    let dtype = result_type(&[a, b]);
    let (ts, shape, device) = prepare(&[a, b], dtype, None)?;
    Tensor::make(Op::Binary(BinaryOp::Div), &[&ts[0], &ts[1]], shape, dtype, device)
}

/// a − b = a + (−b): exact for floats (negation is exact) and for wrapping integers.
pub fn sub(a: &Operand, b: &Operand) -> Result<Tensor> {
    let promoted = result_type(&[a, b]);
    let is_bool = |o: &Operand| match o {
        Operand::Tensor(t) => t.dtype() == DType::Bool,
        Operand::Scalar(s) => matches!(s, Scalar::Bool(_)),
    };
    if is_bool(a) || is_bool(b) {
        return Err(Error::Runtime(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a \
             mask, use the `~` or `logical_not()` operator instead."
                .into(),
        ));
    }
    let nb = match b {
        Operand::Tensor(t) => Operand::Tensor(t.to_dtype(promoted)?.neg()?),
        Operand::Scalar(s) => Operand::Scalar(match *s {
            Scalar::Bool(v) => Scalar::Int(-(v as i64)),
            // Negate in the dtype the op computes in: -(−2^63) wraps only for integers.
            Scalar::Int(v) if promoted.is_float() => Scalar::Float(-(v as f64)),
            Scalar::Int(v) => Scalar::Int(v.wrapping_neg()),
            Scalar::Float(v) => Scalar::Float(-v),
        }),
    };
    let a = match a {
        Operand::Tensor(t) => Operand::Tensor(t.to_dtype(promoted)?),
        s => s.clone(),
    };
    binary(&a, &nb, BinaryOp::Add)
}

/// `where(cond, a, b)`: cond must be bool; a and b promote.
pub fn where_(cond: &Tensor, a: &Operand, b: &Operand) -> Result<Tensor> {
    if cond.dtype() != DType::Bool {
        return Err(Error::Runtime(format!(
            "where expected condition to be a boolean tensor, but got a tensor with dtype {}",
            cond.dtype().name()
        )));
    }
    let dtype = result_type(&[a, b]);
    for op in [a, b] {
        if let Operand::Scalar(s) = op {
            crate::base::scalar::check_fits(*s, dtype)?;
        }
    }
    let (ts, shape, device) = prepare(&[a, b], dtype, Some(cond))?;
    let cond = cond.expand(&shape)?;
    Tensor::make(Op::Where, &[&cond, &ts[0], &ts[1]], shape, dtype, device)
}

/// `masked_fill(x, mask, value)`: `value` (a number, or a 0-d tensor) where the bool `mask` (broadcast to x) is
/// set; x's dtype and shape are kept, as torch.
pub fn masked_fill(x: &Tensor, mask: &Tensor, value: &Operand) -> Result<Tensor> {
    if mask.dtype() != DType::Bool {
        return Err(Error::Runtime(format!(
            "masked_fill_ only supports boolean masks, but got mask with dtype {}",
            mask.dtype().name()
        )));
    }
    if let Operand::Tensor(v) = value {
        if v.ndim() != 0 {
            return Err(Error::Runtime(format!(
                "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with {} dimension(s).",
                v.ndim()
            )));
        }
    }
    let shape = broadcast_shapes(x.shape(), mask.shape())?;
    if shape != x.shape() {
        return Err(Error::Runtime(format!(
            "The expanded size of the mask ({:?}) must match the existing size ({:?}) of the tensor",
            mask.shape(),
            x.shape()
        )));
    }
    let v = match value {
        // A 0-d value may live on another device (torch accepts a CPU scalar tensor with a GPU x).
        Operand::Tensor(v) => Operand::Tensor(v.to_device(x.device())?.to_dtype(x.dtype())?),
        Operand::Scalar(s) => {
            if !x.dtype().is_float() && matches!(s, Scalar::Float(_)) {
                // torch casts a float value into an integer tensor's dtype (truncating).
                Operand::Scalar(Scalar::Int(s.as_f64() as i64))
            } else {
                Operand::Scalar(*s)
            }
        }
    };
    let v = match v {
        Operand::Scalar(s) => Operand::Tensor(scalar_tensor(s, x.dtype(), x.device())?),
        other => other,
    };
    where_(&mask.expand(&shape)?, &v, &Operand::Tensor(x.clone()))
}
