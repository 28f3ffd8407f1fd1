//! Integer values of a tensor on the host: read from the host data it was made from where it has some (so index
//! bounds need no device round trip, which a browser could not wait for), else read back.

use crate::base::dtype::DType;
use crate::graph::node::Node;
use crate::graph::op::Op;
use crate::tensor::realize::read_bytes;
use crate::tensor::Tensor;
use crate::util::error::Result;

/// The values of an int64 tensor on the host: read from its host data when it was made from NumPy or a list
/// (directly, or moved to a device and not yet run), else read back from its device.
pub fn host_i64(x: &Tensor) -> Result<Vec<i64>> {
    match host_view_ints(x) {
        Some(v) => Ok(v),
        None => Ok(i64_words(&read_bytes(x)?)),
    }
}

/// The values of an integer tensor read from its host data, when it has some (see `host_ints`).
pub fn host_view_ints(x: &Tensor) -> Option<Vec<i64>> {
    host_ints(&x.node()).map(|all| x.view().indices().iter().filter_map(|&i| all.get(i).copied()).collect())
}

pub fn i64_words(b: &[u8]) -> Vec<i64> {
    b.chunks_exact(8).map(|c| i64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]])).collect()
}

/// The values of an integer node that is host data, possibly behind whole-buffer transfers and casts to int64
/// (targets made from NumPy or JavaScript arrays, then moved to a GPU): read without a device round trip, which a
/// browser could not wait for.
fn host_ints(node: &Node) -> Option<Vec<i64>> {
    match &node.op {
        Op::Data(h) if h.dtype == DType::I64 => Some(i64_words(&h.bytes)),
        Op::Data(h) if h.dtype == DType::I32 => {
            Some(h.bytes.chunks_exact(4).map(|c| i64::from(i32::from_le_bytes([c[0], c[1], c[2], c[3]]))).collect())
        }
        Op::Transfer | Op::Cast => {
            let src = node.srcs().into_iter().next()?;
            // A cast keeps integer values only when it widens to int64 (a float source has no host integers).
            let exact = matches!(node.op, Op::Transfer) || node.dtype == DType::I64;
            (exact && src.view.is_contiguous_of(&src.node.shape)).then(|| host_ints(&src.node)).flatten()
        }
        _ => None,
    }
}
