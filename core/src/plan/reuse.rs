//! Buffers handed on inside one realization, so that its peak memory follows what is live rather than everything it
//! computes: once the last kernel reading an internal node (see `holders`) is recorded, the node's buffer becomes
//! the output of a later kernel of the same device, dtype and length. A device runs a realization's kernels in the
//! order they were recorded (GPUs with a barrier between a kernel's reads and a later kernel's write to the same
//! buffer), so the later write follows every read. Uploads never take such a buffer: a GPU writes an upload before
//! the submission's kernels run, which would be before the reads.

use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

use super::fuse::Fusion;
use super::holders::Holders;
use super::twins;
use crate::base::buffer::{Buffer, DeviceId};
use crate::base::dtype::DType;
use crate::graph::node::{Node, Src};

pub struct Reuse {
    /// Internal nodes that get a buffer -> the position in the schedule of the last kernel reading them.
    last: HashMap<u64, usize>,
    /// Buffers of dead nodes, by device, dtype and length.
    free: HashMap<(DeviceId, DType, usize), Vec<Buffer>>,
}

impl Reuse {
    pub fn new(order: &[Arc<Node>], holders: &Holders, fusion: &Fusion) -> Reuse {
        let mut last = HashMap::default();
        for (at, node) in order.iter().enumerate() {
            if fusion.inlined.contains(&node.id) {
                continue;
            }
            // A scalar constant's buffer may be a twin's too (`twins`): never handed on.
            for s in fusion
                .reads(node.id, holders)
                .iter()
                .filter(|s| holders.internal.contains(&s.node.id) && twins::constant(&s.node).is_none())
            {
                last.insert(s.node.id, at);
            }
        }
        Reuse { last, free: HashMap::default() }
    }

    /// A dead node's buffer for a kernel output of `len` elements of `dtype` on `device`.
    pub fn take(&mut self, device: DeviceId, dtype: DType, len: usize) -> Option<Buffer> {
        self.free.get_mut(&(device, dtype, len))?.pop()
    }

    /// The kernel at schedule position `at`, reading `srcs`, is recorded: the buffers of the nodes it read last are
    /// free for later outputs (`buffer_of` finds a buffer this realization made).
    pub fn read(&mut self, at: usize, srcs: &[Src], buffer_of: impl Fn(u64) -> Option<Buffer>) {
        for s in srcs {
            if self.last.get(&s.node.id) == Some(&at) {
                self.last.remove(&s.node.id);
                if let Some(b) = buffer_of(s.node.id) {
                    self.free.entry((b.device, b.dtype, b.len)).or_default().push(b);
                }
            }
        }
    }
}
