//! Autograd on a tensor: requires_grad, .grad, detach, recording the step that made a tensor (where ops are
//! built) and refusing in-place writes autograd cannot follow. The record itself, plain data, is the tensor's
//! (`AgCell`, `GradFn`, `GradKind` and grad mode, in `tensor/mod.rs`); the backward rules are layer 9.

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, OnceLock};

use crate::base::buffer::DeviceId;
use crate::base::dtype::DType;
use crate::base::scalar::Scalar;
use crate::graph::node::Node;
use crate::graph::op::{BinaryOp, Op, ReduceOp, ScanOp, UnaryOp};
pub use crate::tensor::{is_grad_enabled, no_grad, set_grad_enabled, GradFn, GradKind};
use crate::tensor::{Storage, Tensor};
use crate::util::error::{Error, Result};

impl Tensor {
    pub fn requires_grad(&self) -> bool {
        self.ag.lock().requires_grad
    }

    /// `requires_grad_()`: only leaves may change the flag, and only floating-point tensors may require grad.
    pub fn set_requires_grad(&self, on: bool) -> Result<()> {
        let mut s = self.ag.lock();
        if s.grad_fn.is_some() {
            if on {
                return Ok(());
            }
            return Err(Error::Runtime(
                "you can only change requires_grad flags of leaf variables. If you want to use a computed variable \
                 in a subgraph that doesn't require differentiation use var_no_grad = var.detach()."
                    .into(),
            ));
        }
        if on && !self.dtype().is_float() {
            return Err(Error::Runtime(format!(
                "only Tensors of floating point dtype can require gradients (got {})",
                self.dtype().name()
            )));
        }
        s.requires_grad = on;
        Ok(())
    }

    /// A leaf: no recorded history (every tensor that does not require grad is a leaf, as in torch).
    pub fn is_leaf(&self) -> bool {
        self.ag.lock().grad_fn.is_none()
    }

    pub fn grad_fn(&self) -> Option<Arc<GradFn>> {
        self.ag.lock().grad_fn.clone()
    }

    pub fn grad(&self) -> Option<Tensor> {
        self.ag.lock().grad.clone()
    }

    /// Set `.grad` (None clears it); a new gradient must match this tensor's shape, dtype and device.
    pub fn set_grad(&self, g: Option<Tensor>) -> Result<()> {
        if let Some(g) = &g {
            if g.shape() != self.shape() || g.dtype() != self.dtype() || g.device() != self.device() {
                return Err(Error::Runtime(format!(
                    "assigned grad has data of a different shape, dtype or device ({:?} {} vs {:?} {})",
                    g.shape(),
                    g.dtype().name(),
                    self.shape(),
                    self.dtype().name()
                )));
            }
        }
        self.ag.lock().grad = g;
        Ok(())
    }

    /// Identity of this tensor's autograd cell (clones share it).
    pub fn grad_key(&self) -> usize {
        Arc::as_ptr(&self.ag) as usize
    }

    /// The same values with no history and no grad requirement (shares the storage, as torch's `detach`).
    pub fn detach(&self) -> Tensor {
        Tensor { storage: self.storage.clone(), view: self.view.clone(), ag: Arc::default() }
    }

    /// The same tensor as an edge of released history: its autograd cell, view, dtype and device, and no value (its
    /// storage is an empty placeholder shared by every such tensor of the dtype and device, never read: a released
    /// record refuses to run).
    pub(crate) fn hollow(&self) -> Tensor {
        type Hollow = HashMap<(DType, DeviceId), Arc<Storage>>;
        static HOLLOW: OnceLock<Mutex<Hollow>> = OnceLock::new();
        let key = (self.dtype(), self.device());
        let mut all = HOLLOW.get_or_init(Mutex::default).lock().unwrap_or_else(|e| e.into_inner());
        let storage = all.entry(key).or_insert_with(|| {
            let node = Node::new(Op::Full(Scalar::Int(0)), Vec::new(), vec![0], key.0, key.1);
            Arc::new(Storage { node: Mutex::new(node) })
        });
        Tensor { storage: storage.clone(), view: self.view.clone(), ag: self.ag.clone() }
    }

    /// Attach history to a freshly built tensor when grad mode is on and an input requires grad.
    pub(crate) fn record(self, kind: GradKind, inputs: &[&Tensor]) -> Tensor {
        if !is_grad_enabled() || !self.dtype().is_float() || !inputs.iter().any(|t| t.requires_grad()) {
            return self;
        }
        let (saved, output) = saves(&kind, inputs.len());
        let f = GradFn {
            inputs: Mutex::new(
                inputs.iter().zip(&saved).map(|(t, &keep)| if keep { (*t).clone() } else { t.hollow() }).collect(),
            ),
            versions: inputs.iter().map(|t| t.storage().node().id).collect(),
            out: Mutex::new(output.then(|| (self.storage().node(), self.storage().clone()))),
            released: AtomicBool::new(false),
            saved,
            kind,
        };
        {
            let mut s = self.ag.lock();
            s.requires_grad = true;
            s.grad_fn = Some(Arc::new(f));
        }
        self
    }

    /// Refuse an in-place write that autograd cannot follow: into a leaf that requires grad, or (for now) into or
    /// from any tensor that is part of recorded history while grad mode is on.
    pub(crate) fn check_inplace(&self, value: Option<&Tensor>) -> Result<()> {
        if !is_grad_enabled() {
            return Ok(());
        }
        if self.requires_grad() && self.is_leaf() {
            return Err(Error::Runtime(
                "a leaf Variable that requires grad is being used in an in-place operation.".into(),
            ));
        }
        if self.requires_grad() || value.is_some_and(|v| v.requires_grad()) {
            return Err(Error::Unsupported(
                "in-place operations on tensors that require grad are not supported while grad mode is on; use \
                 the out-of-place op, or wrap the write in vkml.no_grad()"
                    .into(),
            ));
        }
        Ok(())
    }
}

/// The values the rule of `kind` reads besides the gradient: which of its `n` inputs (`saved_input`), and whether its
/// output (`saved_output`). A record keeps only these, as torch saves only what a backward reads: a value no rule
/// reads is not held by the record, so the planner may compute it inside its reader's kernel, and its buffer goes as
/// soon as nothing else needs it. (`autograd::rules` holds the rules; one reading a value not listed here fails with an error naming its op.)
pub fn saves(kind: &GradKind, n: usize) -> (Vec<bool>, bool) {
    let inputs = |read: &[usize]| (0..n).map(|i| read.contains(&i)).collect::<Vec<bool>>();
    let (read, output): (&[usize], bool) = match kind {
        GradKind::View(_) => (&[], false),
        GradKind::Op(op) => match op {
            Op::Data(_) | Op::Full(_) | Op::Rand { .. } | Op::Randn { .. } => (&[], false),
            Op::Transfer | Op::Cast | Op::Copy | Op::Fused(_) | Op::Assign { .. } => (&[], false),
            Op::Unary(u) => unary_saves(*u),
            Op::Binary(b) => match b {
                BinaryOp::Add => (&[], false),
                BinaryOp::Mul
                | BinaryOp::Div
                | BinaryOp::Maximum
                | BinaryOp::Minimum
                | BinaryOp::Fmod
                | BinaryOp::Atan2 => (&[0, 1], false),
                BinaryOp::CopySign => (&[0], true),
                BinaryOp::Pow => (&[0, 1], true),
                BinaryOp::BitAnd
                | BinaryOp::BitOr
                | BinaryOp::BitXor
                | BinaryOp::Eq
                | BinaryOp::Ne
                | BinaryOp::Lt
                | BinaryOp::Le
                | BinaryOp::Gt
                | BinaryOp::Ge => (&[], false),
            },
            Op::Where => (&[0], false),
            Op::Reduce { op, .. } => match op {
                ReduceOp::Sum | ReduceOp::ArgMax | ReduceOp::ArgMin => (&[], false),
                ReduceOp::Max | ReduceOp::Min => (&[0], true),
                ReduceOp::Prod => (&[0], false),
            },
            Op::Matmul => (&[0, 1], false),
            Op::Gather { .. } | Op::Scatter { .. } => (&[1], false),
            Op::Scan(ScanOp::Sum) => (&[], false),
            Op::Scan(ScanOp::Prod) => (&[0], false),
            Op::ArgSort { .. } => (&[], false),
            Op::Softmax { .. } => (&[], true),
            Op::Unfold(_) | Op::Fold(_) | Op::MaxPoolGrad(_) => (&[], false),
            Op::MaxPool(_) => (&[0], false),
        },
    };
    (inputs(read), output)
}

/// What `unary_grad` reads for `u`: its input, its output, or neither.
fn unary_saves(u: UnaryOp) -> (&'static [usize], bool) {
    match u {
        UnaryOp::Neg | UnaryOp::Sign | UnaryOp::Floor | UnaryOp::Ceil | UnaryOp::Trunc | UnaryOp::Round => (&[], false),
        UnaryOp::Exp | UnaryOp::Sqrt | UnaryOp::Exp2 | UnaryOp::Rsqrt | UnaryOp::Tan => (&[], true),
        UnaryOp::Log
        | UnaryOp::Abs
        | UnaryOp::Log2
        | UnaryOp::Sin
        | UnaryOp::Cos
        | UnaryOp::Asin
        | UnaryOp::Acos
        | UnaryOp::Atan
        | UnaryOp::Sinh
        | UnaryOp::Cosh
        | UnaryOp::Tanh
        | UnaryOp::Asinh
        | UnaryOp::Acosh
        | UnaryOp::Atanh
        | UnaryOp::Erf
        | UnaryOp::Erfc
        | UnaryOp::Expm1
        | UnaryOp::Log1p
        | UnaryOp::Sinc => (&[0], false),
    }
}
