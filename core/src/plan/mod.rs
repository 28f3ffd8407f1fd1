//! Layer 6: execution. `schedule` turns the pending part of a graph into an ordered list of nodes, `fuse` groups
//! elementwise chains of it into fused programs, `twins` shares scalar constants, and `run` executes it.

pub mod fuse;
pub mod holders;
pub mod reuse;
pub mod run;
pub mod twins;

use rustc_hash::FxHashSet as HashSet;
use std::sync::Arc;

use crate::graph::node::Node;
use crate::graph::op::Op;

/// The unrealized nodes reachable from `roots`, each after all of its sources (depth-first post-order, iterative
/// so deep graphs cannot overflow the stack). Realized nodes are leaves and are not listed. The last root is
/// walked first: an optimizer step lists its parameters in forward order, and their gradients come out of backward
/// last layer first, so that order frees each layer's saved values before the next layer's gradients are written
/// (a CNN step's peak fell by a fifth: docs/performance.md).
pub fn schedule(roots: &[Arc<Node>]) -> Vec<Arc<Node>> {
    let mut order = Vec::new();
    let mut seen: HashSet<u64> = HashSet::default();
    // (node, sources pushed?) pairs; the stack pops the last root first.
    let mut stack: Vec<(Arc<Node>, bool)> = roots.iter().map(|n| (n.clone(), false)).collect();
    while let Some((node, expanded)) = stack.pop() {
        if expanded {
            order.push(node);
            continue;
        }
        if node.is_realized() || !seen.insert(node.id) {
            continue;
        }
        stack.push((node.clone(), true));
        if matches!(node.op, Op::Transfer) {
            // The source lives on another device; the caller realizes it there first.
            continue;
        }
        for src in node.srcs().into_iter().rev() {
            if !src.node.is_realized() && !seen.contains(&src.node.id) {
                stack.push((src.node, false));
            }
        }
    }
    order
}
