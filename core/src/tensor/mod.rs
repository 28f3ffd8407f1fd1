//! Layer 7: the tensor, a view over a versioned storage (views share the storage, so an in-place write, which
//! installs a new version, is seen through every view, as in torch), with its mechanics: the autograd record
//! (`grad`), promotion (`promote`), realization (`realize`), host reads (`host`) and shared dtype checks (`check`).

pub mod check;
pub mod grad;
pub mod host;
pub mod promote;
pub mod realize;

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::base::buffer::DeviceId;
use crate::base::dtype::DType;
use crate::base::view::View;
use crate::dispatch;
use crate::graph::node::{Node, Src};
use crate::graph::op::Op;
use crate::plan::run;
use crate::util::error::{Error, Result};

/// The current version of a tensor's data; in-place ops replace the node.
#[derive(Debug)]
pub struct Storage {
    node: Mutex<Arc<Node>>,
}

impl Storage {
    pub fn node(&self) -> Arc<Node> {
        self.node.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    pub fn set_node(&self, node: Arc<Node>) {
        *self.node.lock().unwrap_or_else(|e| e.into_inner()) = node;
    }
}

/// A multi-dimensional array on one device. Clones are the same tensor (they share the autograd cell).
#[derive(Clone, Debug)]
pub struct Tensor {
    pub(crate) storage: Arc<Storage>,
    pub(crate) view: View,
    pub(crate) ag: Arc<AgCell>,
}

/// torch's error for an op over tensors on two devices, naming both.
pub fn device_mismatch(a: DeviceId, b: DeviceId) -> Error {
    Error::Device(format!(
        "Expected all tensors to be on the same device, but found at least two devices, {} and {}!",
        dispatch::label(a),
        dispatch::label(b)
    ))
}

impl Tensor {
    /// A tensor that is the whole (contiguous) output of `node`.
    pub fn from_node(node: Arc<Node>) -> Tensor {
        let view = View::contiguous(&node.shape);
        Tensor { storage: Arc::new(Storage { node: Mutex::new(node) }), view, ag: Arc::default() }
    }

    /// Build a node from sources (tensors, read through their views) and wrap it; honours eager mode and the
    /// pending-graph threshold.
    pub fn make(op: Op, srcs: &[&Tensor], shape: Vec<usize>, dtype: DType, device: DeviceId) -> Result<Tensor> {
        crate::base::view::checked_numel(&shape)?;
        dispatch::backend(device)?.check(&op, dtype)?;
        let record = is_grad_enabled() && dtype.is_float() && srcs.iter().any(|t| t.requires_grad());
        let kind = record.then(|| GradKind::Op(op.clone()));
        let nodes = srcs.iter().map(|t| t.src()).collect();
        let mut t = Tensor::from_node(Node::new(op, nodes, shape, dtype, device));
        if let Some(kind) = kind {
            t = t.record(kind, srcs);
        }
        // Eager mode, or a pending graph past its threshold: run it now.
        if run::note_built() {
            run::realize_nodes(vec![t.node()])?;
            dispatch::backend(device)?.flush();
        }
        Ok(t)
    }

    /// This tensor as a node source.
    pub fn src(&self) -> Src {
        Src { node: self.storage.node(), view: self.view.clone() }
    }

    /// A tensor sharing this one's storage with another view, without history: for writes into a tensor this code
    /// just made. Views users see go through `derive`.
    pub(crate) fn with_view(&self, view: View) -> Tensor {
        Tensor { storage: self.storage.clone(), view, ag: Arc::default() }
    }

    /// A view of this tensor: `f` turns a view into the new one. It is applied to this tensor's view and, when
    /// history is recorded, to the contiguous view of this shape, which tells backward where each element came from.
    pub(crate) fn derive(&self, f: impl Fn(&View) -> Result<View>) -> Result<Tensor> {
        let t = self.with_view(f(&self.view)?);
        if !is_grad_enabled() || !self.requires_grad() {
            return Ok(t);
        }
        let rel = f(&View::contiguous(self.shape()))?;
        Ok(t.record(GradKind::View(rel), &[self]))
    }

    pub fn node(&self) -> Arc<Node> {
        self.storage.node()
    }

    pub fn view(&self) -> &View {
        &self.view
    }

    pub fn shape(&self) -> &[usize] {
        &self.view.shape
    }

    pub fn strides(&self) -> &[isize] {
        &self.view.strides
    }

    pub fn ndim(&self) -> usize {
        self.view.ndim()
    }

    pub fn numel(&self) -> usize {
        self.view.numel()
    }

    pub fn dtype(&self) -> DType {
        self.storage.node().dtype
    }

    pub fn device(&self) -> DeviceId {
        self.storage.node().device
    }

    pub fn is_contiguous(&self) -> bool {
        self.view.is_contiguous()
    }

    pub(crate) fn storage(&self) -> &Arc<Storage> {
        &self.storage
    }
}

// The autograd record, as plain data: each tensor has a cell saying whether it requires grad, holding its `.grad`
// and, for a computed tensor, the `GradFn` that made it (the primitive op or view, its inputs and the versions
// they had). It lives with the tensor because each holds the other; `grad.rs` records and reads it.

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

/// One step of recorded history. The inputs are kept as edges (their autograd cells, shapes, dtypes and devices),
/// with their values only where the op's backward rule reads them (`tensor::grad::saves`); the output is kept
/// only where the rule reads it, as its node (not its tensor, which owns this record) and as its storage, so an
/// in-place write to the output after recording is noticed. Releasing the record drops the values, as torch frees
/// saved tensors. Kept longer, every record of a view of a
/// parameter held on to that parameter's old value after each optimizer step, and a training step's activations
/// lived on after its backward for as long as anything held a tensor of the old graph.
#[derive(Debug)]
pub struct GradFn {
    pub kind: GradKind,
    inputs: Mutex<Vec<Tensor>>,
    versions: Vec<u64>,
    /// Which inputs' values the rule reads (the others are edges from the start).
    saved: Vec<bool>,
    /// The output's node as recorded and its storage (whose node changes when the output is written in place);
    /// None where the rule does not read it, and once released.
    out: Mutex<Option<(Arc<Node>, Arc<Storage>)>>,
    released: AtomicBool,
}

impl GradFn {
    /// The value input `i` had when the op was recorded; torch's error when it was since written in place.
    pub fn saved_input(&self, i: usize) -> Result<Tensor> {
        self.check_not_released()?;
        if !self.saved.get(i).copied().unwrap_or(false) {
            return Err(unsaved(self, &format!("input {i}")));
        }
        let t = self.input(i);
        if t.storage().node().id != self.versions[i] {
            return Err(modified(&t, self.name()));
        }
        Ok(t.detach())
    }

    /// The output value as recorded; an error when it was since written in place, or released.
    pub fn saved_output(&self) -> Result<Tensor> {
        self.check_not_released()?;
        let out = self.out.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let (node, storage) = out.ok_or_else(|| unsaved(self, "output"))?;
        let t = Tensor::from_node(node);
        if storage.node().id != t.node().id {
            return Err(modified(&t, self.name()));
        }
        Ok(t)
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

    /// The inputs, as edges to follow (their values only until the record is released).
    pub fn inputs(&self) -> Vec<Tensor> {
        self.inputs.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Input `i` (as an edge: see `inputs`).
    pub fn input(&self, i: usize) -> Tensor {
        self.inputs.lock().unwrap_or_else(|e| e.into_inner())[i].clone()
    }

    /// Drop the saved values (after a backward without `retain_graph`); a second pass then fails.
    pub fn release(&self) {
        self.released.store(true, Ordering::Relaxed);
        *self.out.lock().unwrap_or_else(|e| e.into_inner()) = None;
        for t in self.inputs.lock().unwrap_or_else(|e| e.into_inner()).iter_mut() {
            *t = t.hollow();
        }
    }

    pub fn check_not_released(&self) -> Result<()> {
        if self.released.load(Ordering::Relaxed) {
            return Err(released());
        }
        Ok(())
    }
}

/// A backward rule read a value its record does not keep: `tensor::grad::saves` must list it.
fn unsaved(f: &GradFn, what: &str) -> Error {
    Error::Backend(format!("{}: the backward rule reads its {what}, which tensor::grad::saves does not keep", f.name()))
}

/// torch's error for a second backward through a released graph.
fn released() -> Error {
    Error::Runtime(
        "Trying to backward through the graph a second time (or directly access saved tensors after they have \
         already been freed). Saved intermediate values of the graph are freed when you call .backward() or \
         autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if \
         you need to access saved tensors after calling backward."
            .into(),
    )
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
