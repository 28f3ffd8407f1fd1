//! Who holds each pending node of a realization: only its readers in the graph, or also something outside it (a
//! tensor, an autograd record, another pending graph). Fusion computes a node inside its reader's program, and a
//! run hands a node's buffer on to a later kernel, only where nothing outside the graph can see the node's value.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::sync::Arc;

use crate::graph::node::{Node, Src};

/// The holders of one realization's nodes.
pub struct Holders {
    /// Each pending node's sources.
    pub srcs: HashMap<u64, Vec<Src>>,
    /// How many source edges of pending nodes read each node.
    pub uses: HashMap<u64, usize>,
    /// Pending nodes not asked for and held only by the schedule and their readers' source edges.
    pub internal: HashSet<u64>,
}

impl Holders {
    pub fn new(order: &[Arc<Node>], roots: &[Arc<Node>]) -> Holders {
        // Counted before anything here clones a node: `order` holds each once, each pending reader's edge once more.
        let counts: Vec<usize> = order.iter().map(Arc::strong_count).collect();
        let srcs: HashMap<u64, Vec<Src>> = order.iter().map(|n| (n.id, n.srcs())).collect();
        let mut uses: HashMap<u64, usize> = HashMap::default();
        for s in srcs.values().flatten() {
            *uses.entry(s.node.id).or_default() += 1;
        }
        let asked: HashSet<u64> = roots.iter().map(|n| n.id).collect();
        let internal = order
            .iter()
            .zip(counts)
            .filter(|(n, count)| !asked.contains(&n.id) && *count == 1 + uses.get(&n.id).copied().unwrap_or(0))
            .map(|(n, _)| n.id)
            .collect();
        Holders { srcs, uses, internal }
    }
}
