//! Graph nodes: plain data (op, sources with their views, shape, dtype, device) that the planner can rewrite.
//! A node becomes a leaf once realized: it keeps its buffer and drops its sources, so history does not pile up.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use super::op::Op;
use crate::base::buffer::{Buffer, DeviceId};
use crate::base::dtype::DType;
use crate::base::view::View;
use crate::util::stats::{bump, Counter};

/// One input of a node: another node read through a view.
#[derive(Clone, Debug)]
pub struct Src {
    pub node: Arc<Node>,
    pub view: View,
}

#[derive(Debug)]
struct State {
    srcs: Vec<Src>,
    buffer: Option<Buffer>,
}

/// A value in the graph: computed by `op` from `srcs`, or realized into `buffer`.
#[derive(Debug)]
pub struct Node {
    pub id: u64,
    pub op: Op,
    pub shape: Vec<usize>,
    pub dtype: DType,
    pub device: DeviceId,
    state: Mutex<State>,
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

impl Node {
    /// A pending node.
    pub fn new(op: Op, srcs: Vec<Src>, shape: Vec<usize>, dtype: DType, device: DeviceId) -> Arc<Node> {
        bump(Counter::Nodes, 1);
        Arc::new(Node {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            op,
            shape,
            dtype,
            device,
            state: Mutex::new(State { srcs, buffer: None }),
        })
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock cannot leave State half-written (each write is one assignment).
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The sources (empty once realized).
    pub fn srcs(&self) -> Vec<Src> {
        self.state().srcs.clone()
    }

    /// The realized buffer, if any.
    pub fn buffer(&self) -> Option<Buffer> {
        self.state().buffer.clone()
    }

    pub fn is_realized(&self) -> bool {
        self.state().buffer.is_some()
    }

    /// Record the result and drop the sources.
    pub fn set_realized(&self, buffer: Buffer) {
        let mut s = self.state();
        s.buffer = Some(buffer);
        s.srcs.clear();
    }

    pub fn numel(&self) -> usize {
        self.shape.iter().product()
    }
}
