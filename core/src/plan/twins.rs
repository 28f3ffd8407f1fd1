//! Pending scalar constants (0-d `Op::Full` nodes that a kernel reads rather than a fused program: the zero of a
//! `where`, the integer a comparison takes) of one value, dtype and device are computed once per realization: a
//! later one takes the first one's buffer instead of a kernel of its own. `reuse` never hands such a buffer on, since
//! the twins' readers are not counted together.

use rustc_hash::FxHashMap as HashMap;

use crate::base::buffer::DeviceId;
use crate::base::dtype::DType;
use crate::base::scalar::Scalar;
use crate::graph::node::Node;
use crate::graph::op::Op;

/// The value of a scalar constant node, or None for any other node.
pub fn constant(node: &Node) -> Option<Scalar> {
    match node.op {
        Op::Full(s) if node.shape.is_empty() => Some(s),
        _ => None,
    }
}

#[derive(Default)]
pub struct Twins {
    /// (device, dtype, the scalar's kind and bits) -> the first node of this realization that holds it.
    first: HashMap<(DeviceId, DType, u8, u64), u64>,
}

impl Twins {
    /// The earlier pending node holding `node`'s value, if `node` is a scalar constant and one does; else `node`
    /// becomes the holder of its value.
    pub fn earlier(&mut self, node: &Node) -> Option<u64> {
        let value = match constant(node)? {
            // A float tensor holds an integer of magnitude at most 2^53 as the float of that value: `x > 0` and
            // `where(.., 0.0)` read the same zero.
            Scalar::Int(i) if node.dtype.is_float() && i.unsigned_abs() <= 1 << 53 => Scalar::Float(i as f64),
            s => s,
        };
        let (kind, bits) = match value {
            Scalar::Bool(b) => (0, u64::from(b)),
            Scalar::Int(i) => (1, i as u64),
            Scalar::Float(f) => (2, f.to_bits()),
        };
        let first = *self.first.entry((node.device, node.dtype, kind, bits)).or_insert(node.id);
        (first != node.id).then_some(first)
    }
}
