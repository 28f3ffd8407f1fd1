//! Advanced indexing, as torch: integer tensors (broadcast together) and bool masks (their nonzero positions) pick
//! elements along the dims they index; ints, slices, None and Ellipsis apply first as views. The indexed dims are
//! merged into one, read by a gather (`index_select`) and written by a scatter, so gradients come from those ops.
//! Where the indexed dims are adjacent their result dims stay in place, else they go first (NumPy's rule).

use crate::api::elementwise::{binary, t, where_};
use crate::api::gather::{index_select_unchecked, read_bounds, scatter_unchecked};
use crate::base::dtype::DType;
use crate::base::scalar::Scalar;
use crate::base::view::broadcast_shapes;
use crate::graph::op::BinaryOp;
use crate::tensor::promote::Operand;
use crate::tensor::realize::read_bytes;
use crate::tensor::Tensor;
use crate::util::error::{Error, Result};

/// One item of an index expression.
#[derive(Clone, Debug)]
pub enum IndexItem {
    Int(i64),
    Slice {
        start: Option<i64>,
        stop: Option<i64>,
        step: Option<i64>,
    },
    NewAxis,
    Ellipsis,
    /// An integer tensor (positions along one dim) or a bool mask (over as many dims as it has).
    Tensor(Tensor),
}

/// The parts of an advanced index: the basic items (index tensors replaced by full slices) and, for each index
/// tensor, the dim of the basic view it indexes.
struct Parts {
    basic: Vec<IndexItem>,
    picks: Vec<(usize, Tensor)>,
}

const FULL: IndexItem = IndexItem::Slice { start: None, stop: None, step: None };

/// The positions of a bool mask's true elements, one int64 tensor per mask dim (on `device`). This reads the mask
/// back, as torch does: the result's size depends on it.
fn nonzero(mask: &Tensor, device: crate::base::buffer::DeviceId) -> Result<Vec<Tensor>> {
    let bytes = read_bytes(mask)?;
    let shape = mask.shape();
    let mut cols: Vec<Vec<i64>> = vec![Vec::new(); shape.len()];
    for (e, _) in bytes.iter().enumerate().filter(|(_, b)| **b != 0) {
        let mut rem = e;
        for d in (0..shape.len()).rev() {
            cols[d].push((rem % shape[d]) as i64);
            rem /= shape[d];
        }
    }
    cols.into_iter()
        .map(|c| {
            let n = c.len();
            let bytes = c.into_iter().flat_map(i64::to_le_bytes).collect();
            Tensor::from_bytes(bytes, &[n], DType::I64, device)
        })
        .collect()
}

fn parts(x: &Tensor, items: &[IndexItem]) -> Result<Parts> {
    // How many dims of x the items consume: ints, slices, and index tensors by their own rank (bool) or 1.
    let consumed = |it: &IndexItem| match it {
        IndexItem::Int(_) | IndexItem::Slice { .. } => 1,
        IndexItem::Tensor(m) if m.dtype() == DType::Bool => m.ndim(),
        IndexItem::Tensor(_) => 1,
        IndexItem::NewAxis | IndexItem::Ellipsis => 0,
    };
    let used: usize = items.iter().map(consumed).sum();
    if used > x.ndim() {
        return Err(Error::Index(format!("too many indices for tensor of dimension {} (got {used})", x.ndim())));
    }
    let (mut basic, mut picks) = (Vec::new(), Vec::new());
    // `d`: the next dim of x; `out`: the next dim of the basic view.
    let (mut d, mut out) = (0usize, 0usize);
    for it in items {
        match it {
            IndexItem::Int(_) => d += 1,
            IndexItem::Slice { .. } => {
                d += 1;
                out += 1;
            }
            IndexItem::NewAxis => out += 1,
            IndexItem::Ellipsis => {
                d += x.ndim() - used;
                out += x.ndim() - used;
            }
            IndexItem::Tensor(m) if m.dtype() == DType::Bool => {
                if m.ndim() == 0 {
                    // x[True] adds a dim of size 1 and keeps it; x[False] adds it empty.
                    basic.push(IndexItem::NewAxis);
                    let keep = read_bytes(m)?.first().copied().unwrap_or(0) != 0;
                    let pos = if keep { vec![0u8; 8] } else { Vec::new() };
                    let n = pos.len() / 8;
                    picks.push((out, Tensor::from_bytes(pos, &[n], DType::I64, x.device())?));
                    out += 1;
                    continue;
                }
                for k in 0..m.ndim() {
                    if m.shape()[k] != x.shape()[d + k] {
                        return Err(Error::Index(format!(
                            "The shape of the mask {:?} at index {k} does not match the shape of the indexed tensor \
                             {:?} at index {}",
                            m.shape(),
                            x.shape(),
                            d + k
                        )));
                    }
                }
                for (k, col) in nonzero(m, x.device())?.into_iter().enumerate() {
                    basic.push(FULL);
                    picks.push((out + k, col));
                }
                d += m.ndim();
                out += m.ndim();
                continue;
            }
            IndexItem::Tensor(i) => {
                if !matches!(i.dtype(), DType::I32 | DType::I64) {
                    return Err(Error::Index("tensors used as indices must be long, int, byte or bool tensors".into()));
                }
                basic.push(FULL);
                picks.push((out, i.clone()));
                d += 1;
                out += 1;
                continue;
            }
        }
        basic.push(it.clone());
    }
    Ok(Parts { basic, picks })
}

/// The picked dims moved first and merged into one, with the merged position of every picked element (int64,
/// broadcast shape), checked against each dim's extent and with negative positions wrapped.
struct Merged {
    /// The basic view permuted so the picked dims come first, then merged: [Π picked sizes, rest…].
    flat: Tensor,
    /// The shape before merging.
    permuted: Vec<usize>,
    perm: Vec<usize>,
    /// Merged positions, of the broadcast shape of the index tensors.
    at: Tensor,
    /// Where the result's index dims go: the first picked dim when the picked dims are adjacent, else 0.
    place: usize,
}

fn merge(v: &Tensor, picks: &[(usize, Tensor)]) -> Result<Merged> {
    let dims: Vec<usize> = picks.iter().map(|(d, _)| *d).collect();
    let adjacent = dims.windows(2).all(|w| w[1] == w[0] + 1);
    let place = if adjacent { dims[0] } else { 0 };
    let mut perm = dims.clone();
    perm.extend((0..v.ndim()).filter(|d| !dims.contains(d)));
    let shape = picks.iter().try_fold(Vec::new(), |acc, (_, i)| broadcast_shapes(&acc, i.shape())).map_err(|_| {
        let shapes: Vec<String> = picks.iter().map(|(_, i)| format!("{:?}", i.shape())).collect();
        Error::Index(format!(
            "shape mismatch: indexing tensors could not be broadcast together with shapes {}",
            shapes.join(", ")
        ))
    })?;
    // torch checks each position as its kernel reads it, so where the result (or the target) has no elements no
    // position is checked, unless the picked dim itself is empty.
    let rest_empty = (0..v.ndim()).any(|d| !dims.contains(&d) && v.shape()[d] == 0);
    let check = !rest_empty && shape.iter().all(|&n| n > 0);
    let mut at: Option<Tensor> = None;
    for (d, i) in picks {
        let n = v.shape()[*d];
        let i = i.to_device(v.device())?.to_dtype(DType::I64)?;
        let n64 = n as i64;
        if let Some((lo, hi)) = if check || n == 0 { read_bounds(&i)? } else { None } {
            if lo < -n64 || hi >= n64 {
                let bad = if lo < -n64 { lo } else { hi };
                return Err(Error::Index(format!("index {bad} is out of bounds for dimension {d} with size {n}")));
            }
        }
        let int = |c: i64| Operand::Scalar(Scalar::Int(c));
        let neg = binary(&t(&i), &int(0), BinaryOp::Lt)?;
        let i = where_(&neg, &t(&binary(&t(&i), &int(n64), BinaryOp::Add)?), &t(&i))?.expand(&shape)?;
        at = Some(match at {
            None => i,
            Some(a) => binary(&t(&binary(&t(&a), &int(n64), BinaryOp::Mul)?), &t(&i), BinaryOp::Add)?,
        });
    }
    let at = at.ok_or_else(|| Error::Index("advanced indexing without an index tensor".into()))?;
    let p = v.permute(&perm.iter().map(|&d| d as i64).collect::<Vec<_>>())?;
    let permuted = p.shape().to_vec();
    let picked: usize = permuted[..dims.len()].iter().product();
    let mut flat_shape = vec![picked as i64];
    flat_shape.extend(permuted[dims.len()..].iter().map(|&d| d as i64));
    Ok(Merged { flat: p.reshape(&flat_shape)?, permuted, perm, at, place })
}

/// The result's dim order: the index dims (`k` of them) at `place`, the rest around them.
fn placed(k: usize, rest: usize, place: usize) -> Vec<i64> {
    let mut p: Vec<i64> = (k..k + place).map(|d| d as i64).collect();
    p.extend((0..k).map(|d| d as i64));
    p.extend((k + place..k + rest).map(|d| d as i64));
    p
}

/// `x[items]` with at least one index tensor.
pub fn index(x: &Tensor, items: &[IndexItem]) -> Result<Tensor> {
    let Parts { basic, picks } = parts(x, items)?;
    let v = x.index(&basic)?;
    let m = merge(&v, &picks)?;
    let k = m.at.ndim();
    let rest = &m.permuted[picks.len()..];
    let got = index_select_unchecked(&m.flat, 0, &m.at.reshape(&[-1])?)?;
    let mut shape: Vec<i64> = m.at.shape().iter().map(|&d| d as i64).collect();
    shape.extend(rest.iter().map(|&d| d as i64));
    got.reshape(&shape)?.permute(&placed(k, rest.len(), m.place))
}

/// `x[items] = value` with at least one index tensor: the picked elements of the basic view are replaced (where an
/// element is picked twice, the later value wins on every device).
pub fn assign(x: &Tensor, items: &[IndexItem], value: &Tensor) -> Result<()> {
    let Parts { basic, picks } = parts(x, items)?;
    let v = x.index(&basic)?;
    let m = merge(&v, &picks)?;
    let k = m.at.ndim();
    let rest = m.permuted[picks.len()..].to_vec();
    // The value in the result's layout, then in the merged one: [picked…, rest…] with the picked dims flattened.
    let mut shape: Vec<usize> = m.at.shape().to_vec();
    shape.extend(&rest);
    let order = placed(k, rest.len(), m.place);
    let user: Vec<usize> = order.iter().map(|&d| shape[d as usize]).collect();
    let mut value = value.to_device(x.device())?.to_dtype(x.dtype())?;
    while value.ndim() > user.len() && value.shape()[0] == 1 {
        value = value.squeeze(Some(&[0]))?;
    }
    if broadcast_shapes(value.shape(), &user).ok().as_deref() != Some(user.as_slice()) {
        return Err(Error::Runtime(format!(
            "shape mismatch: value tensor of shape {:?} cannot be broadcast to indexing result of shape {:?}",
            value.shape(),
            user
        )));
    }
    let value = value.expand(&user)?;
    if user.contains(&0) {
        // Nothing is picked (and a -1 below could not be inferred from zero elements).
        return Ok(());
    }
    let mut inverse = vec![0i64; order.len()];
    for (i, &d) in order.iter().enumerate() {
        inverse[d as usize] = i as i64;
    }
    let mut flat_shape = vec![-1i64];
    flat_shape.extend(rest.iter().map(|&d| d as i64));
    let src = value.permute(&inverse)?.reshape(&flat_shape)?;
    let mut lone = vec![1i64; src.ndim()];
    lone[0] = -1;
    let at = m.at.reshape(&lone)?.expand(src.shape())?;
    let written = scatter_unchecked(&m.flat, 0, &at, &src, false)?;
    let unmerged = written.reshape(&m.permuted.iter().map(|&d| d as i64).collect::<Vec<_>>())?;
    let mut back = vec![0i64; m.perm.len()];
    for (i, &d) in m.perm.iter().enumerate() {
        back[d] = i as i64;
    }
    v.assign(&unmerged.permute(&back)?)
}
