//! The tensor: a view over a versioned storage. Views share the storage, so an in-place write (which installs a
//! new version) is seen through every view, as in torch.

use std::sync::{Arc, Mutex};

use crate::base::buffer::DeviceId;
use crate::base::dtype::DType;
use crate::base::view::View;
use crate::dispatch;
use crate::graph::node::{Node, Src};
use crate::graph::op::Op;
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

/// A multi-dimensional array on one device.
#[derive(Clone, Debug)]
pub struct Tensor {
    pub(crate) storage: Arc<Storage>,
    pub(crate) view: View,
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
        Tensor { storage: Arc::new(Storage { node: Mutex::new(node) }), view }
    }

    /// Build a node from sources (tensors, read through their views) and wrap it; honours eager mode and the
    /// pending-graph threshold.
    pub fn make(op: Op, srcs: &[&Tensor], shape: Vec<usize>, dtype: DType, device: DeviceId) -> Result<Tensor> {
        crate::base::view::checked_numel(&shape)?;
        dispatch::backend(device)?.check(&op, dtype)?;
        let srcs = srcs.iter().map(|t| t.src()).collect();
        let t = Tensor::from_node(Node::new(op, srcs, shape, dtype, device));
        super::realize::after_build(&t)?;
        Ok(t)
    }

    /// This tensor as a node source.
    pub fn src(&self) -> Src {
        Src { node: self.storage.node(), view: self.view.clone() }
    }

    /// A tensor sharing this one's storage with another view.
    pub fn with_view(&self, view: View) -> Tensor {
        Tensor { storage: self.storage.clone(), view }
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
