//! The autograd record, as plain data: each tensor has a cell saying whether it requires grad, holding its `.grad`
//! and, for a computed tensor, the `GradFn` that made it (the primitive op or view, its inputs and the versions
//! they had). Recording happens here, where ops are built; the backward rules that read it are layer 7.

use std::cell::Cell;
use std::sync::{Arc, Mutex, MutexGuard};

use crate::base::view::View;
use crate::graph::node::Node;
use crate::graph::op::Op;
use crate::tensor::{Storage, Tensor};
use crate::util::error::{Error, Result};

thread_local! {
    static GRAD_ENABLED: Cell<bool> = const { Cell::new(true) };
}

/// Whether ops record their history (torch's grad mode; per thread, as in torch).
pub fn is_grad_enabled() -> bool {
    GRAD_ENABLED.with(|g| g.get())
}

/// Set grad mode and return the previous one (`no_grad`, `enable_grad`, `set_grad_enabled`).
pub fn set_grad_enabled(on: bool) -> bool {
    GRAD_ENABLED.with(|g| g.replace(on))
}

/// Run `f` with grad mode off, restoring the previous mode afterwards.
pub fn no_grad<T>(f: impl FnOnce() -> T) -> T {
    let prev = set_grad_enabled(false);
    let out = f();
    set_grad_enabled(prev);
    out
}

/// What produced a tensor.
#[derive(Clone, Debug)]
pub enum GradKind {
    /// A primitive op over the inputs (each read through its own view, as the node saw it).
    Op(Op),
    /// A view of the single input: `rel` maps the output's indices into the input's contiguous index space.
    View(View),
}

/// One step of recorded history. The output is kept as its node (not its tensor, which owns this record) and as
/// its storage, so an in-place write to the output after recording is noticed.
#[derive(Debug)]
pub struct GradFn {
    pub kind: GradKind,
    pub inputs: Vec<Tensor>,
    versions: Vec<u64>,
    out_node: Arc<Node>,
    out_storage: Arc<Storage>,
    freed: Mutex<bool>,
}

impl GradFn {
    /// The value input `i` had when the op was recorded; torch's error when it was since written in place.
    pub fn saved_input(&self, i: usize) -> Result<Tensor> {
        let t = &self.inputs[i];
        if t.storage().node().id != self.versions[i] {
            return Err(modified(t, self.name()));
        }
        Ok(t.detach())
    }

    /// The output value as recorded; an error when it was since written in place.
    pub fn saved_output(&self) -> Result<Tensor> {
        if self.out_storage.node().id != self.out_node.id {
            let t = Tensor::from_node(self.out_node.clone());
            return Err(modified(&t, self.name()));
        }
        Ok(Tensor::from_node(self.out_node.clone()))
    }

    /// torch-style name of the backward step, e.g. `MulBackward0`.
    pub fn name(&self) -> String {
        let base = match &self.kind {
            GradKind::Op(op) => op.name(),
            GradKind::View(_) => "view",
        };
        let mut s: String = base.split('_').map(capitalize).collect();
        s.push_str("Backward0");
        s
    }

    /// Mark the saved values as released (after a backward without `retain_graph`); a second pass then fails.
    pub fn release(&self) {
        *self.freed.lock().unwrap_or_else(|e| e.into_inner()) = true;
    }

    pub fn check_not_released(&self) -> Result<()> {
        if *self.freed.lock().unwrap_or_else(|e| e.into_inner()) {
            return Err(Error::Runtime(
                "Trying to backward through the graph a second time (or directly access saved tensors after they \
                 have already been freed). Saved intermediate values of the graph are freed when you call \
                 .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the \
                 graph a second time or if you need to access saved tensors after calling backward."
                    .into(),
            ));
        }
        Ok(())
    }
}

fn capitalize(w: &str) -> String {
    let mut c = w.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

fn modified(t: &Tensor, by: String) -> Error {
    Error::Runtime(format!(
        "one of the variables needed for gradient computation has been modified by an inplace operation: \
         [{} {:?}] is needed by {by}. Hint: the value was written in place after it was used; clone() it before \
         the in-place write, or do the write under no_grad before using the value.",
        t.dtype().name(),
        t.shape()
    ))
}

/// A tensor's autograd state. Clones of one `Tensor` share it; every new tensor (including views) gets its own.
#[derive(Debug, Default)]
pub struct AgCell {
    state: Mutex<AgState>,
}

#[derive(Debug, Default)]
struct AgState {
    requires_grad: bool,
    grad: Option<Tensor>,
    grad_fn: Option<Arc<GradFn>>,
}

impl AgCell {
    fn lock(&self) -> MutexGuard<'_, AgState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

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

    /// Attach history to a freshly built tensor when grad mode is on and an input requires grad.
    pub(crate) fn record(self, kind: GradKind, inputs: &[&Tensor]) -> Tensor {
        if !is_grad_enabled() || !self.dtype().is_float() || !inputs.iter().any(|t| t.requires_grad()) {
            return self;
        }
        let f = GradFn {
            kind,
            inputs: inputs.iter().map(|t| (*t).clone()).collect(),
            versions: inputs.iter().map(|t| t.storage().node().id).collect(),
            out_node: self.storage().node(),
            out_storage: self.storage().clone(),
            freed: Mutex::new(false),
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
