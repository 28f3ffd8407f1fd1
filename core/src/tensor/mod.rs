//! Layer 7: the tensor, a view over a versioned storage (views share the storage, so an in-place write, which
//! installs a new version, is seen through every view, as in torch), with its mechanics: the autograd record
//! (`grad`), promotion (`promote`), realization (`realize`), host reads (`host`) and shared dtype checks (`check`).

pub mod check;
pub mod grad;
pub mod host;
pub mod promote;
pub mod realize;

use std::sync::{Arc, Mutex};

use crate::base::buffer::DeviceId;
use crate::base::dtype::DType;
use crate::base::view::View;
use crate::dispatch;
use crate::graph::node::{Node, Src};
use crate::graph::op::Op;
use crate::plan::run;
use crate::tensor::grad::{is_grad_enabled, AgCell, GradKind};
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
