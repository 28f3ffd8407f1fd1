//! Indexing by tensors: gather, scatter, scatter_add, index_select, take_along_dim and embedding, over the Gather
//! and Scatter primitives. Index values are checked against the indexed extent, as torch's CPU kernels do: from
//! host data when the index was made from NumPy or a list, else by reading its [min, max] back (a realization
//! point). A browser cannot wait for that read: there the check is deferred (`Check::Defer`): the op runs with the
//! index clamped into range, and the next read of any value raises the fault (`take_deferred`), as a device-side
//! assert surfaces in torch on CUDA.

use std::cell::RefCell;

use crate::api::elementwise::{binary, common_device, t};
use crate::base::dtype::DType;
use crate::base::scalar::Scalar;
use crate::base::view::{wrap_dim, View};
use crate::graph::op::{BinaryOp, Op};
use crate::tensor::host::host_view_ints;
use crate::tensor::promote::Operand;
use crate::tensor::Tensor;
use crate::util::error::{Error, Result};

/// What is known of an index's values before a kernel may read them.
pub enum Bounds {
    /// [min, max] (None when the index is empty), read on the host.
    Known(Option<(i64, i64)>),
    /// A two-element int64 tensor [min, max] still on its device.
    Device(Tensor),
}

/// The index's [min, max], without a device round trip where its values are host data.
pub fn bounds(idx: &Tensor) -> Result<Bounds> {
    if idx.numel() == 0 {
        return Ok(Bounds::Known(None));
    }
    if let Some(v) = host_view_ints(idx) {
        let lo = v.iter().copied().min();
        let hi = v.iter().copied().max();
        return Ok(Bounds::Known(lo.zip(hi)));
    }
    let i = idx.to_dtype(DType::I64)?;
    let lo = i.amin(None, false)?.reshape(&[1])?;
    let hi = i.amax(None, false)?.reshape(&[1])?;
    Ok(Bounds::Device(crate::api::join::cat(&[lo, hi], 0)?))
}

/// `bounds`, reading a device range back (blocking; native front ends only).
pub fn read_bounds(idx: &Tensor) -> Result<Option<(i64, i64)>> {
    match bounds(idx)? {
        Bounds::Known(b) => Ok(b),
        Bounds::Device(r) => Ok(Some(range_from_bytes(&crate::tensor::realize::read_bytes(&r)?)?)),
    }
}

/// (min, max) from the bytes of a `Bounds::Device` tensor, as read back by any front end.
pub fn range_from_bytes(bytes: &[u8]) -> Result<(i64, i64)> {
    let word = |i: usize| bytes.get(8 * i..8 * i + 8).and_then(|w| w.try_into().ok()).map(i64::from_le_bytes);
    match (bytes.len(), word(0), word(1)) {
        (16, Some(lo), Some(hi)) => Ok((lo, hi)),
        _ => Err(Error::Runtime("could not read the index range back".into())),
    }
}

/// How an op words an index outside [0, extent).
#[derive(Clone, Copy)]
pub enum Wording {
    /// gather and scatter: "index 5 is out of bounds for dimension 0 with size 3" (torch's RuntimeError).
    Bounds { dim: usize },
    /// index_select and embedding: "index out of range in self" (torch's IndexError).
    Range,
    /// index_select along dim 1, or of an empty tensor, of two or more dims, which torch's CPU runs through a kernel
    /// of its own that raises a RuntimeError: "INDICES element is out of DATA bounds, id=5 axis_dim=3".
    Data,
    /// index_select along an empty dim of two or more dims: torch's RuntimeError "index_select(): self indexing axis
    /// dim should be positive".
    Axis,
    /// one_hot (a RuntimeError in torch): "Class values must be non-negative." / "... smaller than num_classes."
    Classes,
}

/// torch's error when `bounds` reach outside [0, extent).
pub fn check_index(bounds: Option<(i64, i64)>, extent: usize, wording: Wording) -> Result<()> {
    let Some((lo, hi)) = bounds else { return Ok(()) };
    let bad = if lo < 0 { lo } else { hi };
    if lo >= 0 && (hi as u64) < extent as u64 {
        return Ok(());
    }
    Err(match wording {
        Wording::Bounds { dim } => {
            Error::Bounds(format!("index {bad} is out of bounds for dimension {dim} with size {extent}"))
        }
        Wording::Range => Error::Index("index out of range in self".into()),
        Wording::Data => Error::Runtime(format!("INDICES element is out of DATA bounds, id={bad} axis_dim={extent}")),
        Wording::Axis => Error::Runtime("index_select(): self indexing axis dim should be positive".into()),
        Wording::Classes => {
            let what = if lo < 0 { "non-negative" } else { "smaller than num_classes" };
            Error::Runtime(format!("Class values must be {what}."))
        }
    })
}

fn index_dtype(idx: &Tensor, op: &str) -> Result<()> {
    match idx.dtype() {
        DType::I32 | DType::I64 => Ok(()),
        d => Err(Error::Runtime(format!("{op}(): Expected dtype int32/int64 for index, got {}", d.name()))),
    }
}

fn same_device(a: &Tensor, b: &Tensor) -> Result<()> {
    common_device(&[&t(a), &t(b)]).map(|_| ())
}

/// `x` narrowed to the first `shape[d]` elements in every dim but `skip` (all dims when `skip` is None).
fn narrowed(x: &Tensor, shape: &[usize], skip: Option<usize>) -> Result<Tensor> {
    let mut v = x.clone();
    for (d, &n) in shape.iter().enumerate() {
        if Some(d) != skip && n < v.shape()[d] {
            v = v.narrow(d as i64, 0, n as i64)?;
        }
    }
    Ok(v)
}

/// Run `f` on 1-d forms of 0-d operands (the kernels index along a dim; torch lets 0-d and 1-d operands meet) and
/// give the result the shape `out` when any was lifted.
fn lifted(ts: &[&Tensor], out: &[usize], f: impl Fn(&[Tensor]) -> Result<Tensor>) -> Result<Tensor> {
    if ts.iter().all(|x| x.ndim() > 0) {
        return f(&ts.iter().map(|x| (*x).clone()).collect::<Vec<_>>());
    }
    let lifted = ts.iter().map(|x| if x.ndim() == 0 { x.reshape(&[1]) } else { Ok((*x).clone()) });
    let r = f(&lifted.collect::<Result<Vec<_>>>()?)?;
    r.reshape(&out.iter().map(|&d| d as i64).collect::<Vec<_>>())
}

/// The Gather primitive on checked operands (`idx` no larger than `x` in every dim but `dim`, values in range).
pub fn gather_unchecked(x: &Tensor, dim: usize, idx: &Tensor) -> Result<Tensor> {
    lifted(&[x, idx], idx.shape(), |v| {
        let src = narrowed(&v[0], v[1].shape(), Some(dim))?;
        Tensor::make(Op::Gather { dim }, &[&src, &v[1]], v[1].shape().to_vec(), v[0].dtype(), v[0].device())
    })
}

/// The Scatter primitive on checked operands: only the part of `x` the index reaches in the other dims runs
/// through the kernel, and is written back into a copy of `x` when that part is not all of it.
pub fn scatter_unchecked(x: &Tensor, dim: usize, idx: &Tensor, src: &Tensor, add: bool) -> Result<Tensor> {
    lifted(&[x, idx, src], x.shape(), |v| {
        let (x, idx) = (&v[0], &v[1]);
        let region = narrowed(x, idx.shape(), Some(dim))?;
        let src = narrowed(&v[2], idx.shape(), None)?;
        let r = Tensor::make(
            Op::Scatter { dim, add },
            &[&region, idx, &src],
            region.shape().to_vec(),
            x.dtype(),
            x.device(),
        )?;
        if region.shape() == x.shape() {
            return Ok(r);
        }
        let mut view = View::contiguous(x.shape());
        for (d, &n) in region.shape().iter().enumerate() {
            view = view.slice(d, 0, n, 1);
        }
        x.assigned(view, &r)
    })
}

/// torch's shape rule for gather and scatter: same rank; the index no larger than `x` except along `dim`.
fn check_shapes(op: &str, x: &Tensor, dim: usize, idx: &Tensor, src: Option<&Tensor>) -> Result<()> {
    if idx.ndim() != x.ndim() && !(idx.ndim() <= 1 && x.ndim() <= 1) {
        return Err(Error::Runtime("Index tensor must have the same number of dimensions as input tensor".into()));
    }
    let small = |a: &[usize], b: &[usize], skip: Option<usize>| {
        a.iter().zip(b).enumerate().all(|(d, (p, q))| Some(d) == skip || p <= q)
    };
    let ok_x = small(idx.shape(), x.shape(), Some(dim));
    let ok_src = src.is_none_or(|s| s.ndim() == idx.ndim() && small(idx.shape(), s.shape(), None));
    if ok_x && ok_src {
        return Ok(());
    }
    Err(Error::Runtime(match src {
        None => format!(
            "Size does not match at dimension {} expected index {:?} to be no larger than self {:?} apart from \
             dimension {dim}",
            (0..idx.ndim()).find(|&d| d != dim && idx.shape()[d] > x.shape()[d]).unwrap_or(0),
            idx.shape(),
            x.shape()
        ),
        Some(s) => format!(
            "{op}(): Expected index {:?} to be smaller than self {:?} apart from dimension {dim} and to be smaller \
             size than src {:?}",
            idx.shape(),
            x.shape(),
            s.shape()
        ),
    }))
}

fn extent(x: &Tensor, dim: usize) -> usize {
    x.shape().get(dim).copied().unwrap_or(1)
}

/// How an op checks its index: against bounds already known (read here by native front ends, or from host data),
/// or deferred to the next read, with the index's [min, max] tensor still on its device (`bounds`).
pub enum Check {
    Known(Option<(i64, i64)>),
    Defer(Tensor),
}

impl From<Option<(i64, i64)>> for Check {
    fn from(b: Option<(i64, i64)>) -> Check {
        Check::Known(b)
    }
}

/// A deferred index check: the index's [min, max] on its device, the extent it must stay below, the wording.
pub struct Deferred {
    pub range: Tensor,
    extent: usize,
    wording: Wording,
}

impl Deferred {
    /// The check, once the range's bytes are read back.
    pub fn check(&self, range_bytes: &[u8]) -> Result<()> {
        check_index(Some(range_from_bytes(range_bytes)?), self.extent, self.wording)
    }
}

thread_local! {
    static DEFERRED: RefCell<Vec<Deferred>> = const { RefCell::new(Vec::new()) };
}

/// The checks deferred since the last call: a front end reads each range before it reads any value.
pub fn take_deferred() -> Vec<Deferred> {
    DEFERRED.with(|d| std::mem::take(&mut *d.borrow_mut()))
}

/// Apply `check` against `extent`: known bounds now, a deferred check recorded for the next read (its `range`,
/// an index's [min, max] on its device, must lie in [0, extent)). True when deferred.
pub fn check_or_defer(check: Check, extent: usize, wording: Wording) -> Result<bool> {
    match check {
        Check::Known(b) => check_index(b, extent, wording).map(|_| false),
        Check::Defer(range) => {
            DEFERRED.with(|d| d.borrow_mut().push(Deferred { range, extent, wording }));
            Ok(true)
        }
    }
}

/// The index an op runs with: checked now, or with its check deferred and its values clamped into [0, extent)
/// so that no kernel reads outside its operand before the fault is raised.
fn checked(idx: &Tensor, check: Check, extent: usize, wording: Wording) -> Result<Tensor> {
    if let (Check::Defer(_), 0) = (&check, extent) {
        // Nothing to clamp into: every value of a non-empty index is out of range.
        return check_index(Some((0, 0)), 0, wording).map(|_| idx.clone());
    }
    if !check_or_defer(check, extent, wording)? {
        return Ok(idx.clone());
    }
    let low = binary(&Operand::Tensor(idx.clone()), &Operand::Scalar(Scalar::Int(0)), BinaryOp::Maximum)?;
    binary(&Operand::Tensor(low), &Operand::Scalar(Scalar::Int(extent as i64 - 1)), BinaryOp::Minimum)
}

/// `torch.gather(x, dim, index)`.
pub fn gather(x: &Tensor, dim: i64, idx: &Tensor) -> Result<Tensor> {
    gather_with(x, dim, idx, read_bounds(idx)?.into())
}

pub fn gather_with(x: &Tensor, dim: i64, idx: &Tensor, check: Check) -> Result<Tensor> {
    index_dtype(idx, "gather")?;
    same_device(x, idx)?;
    let d = wrap_dim(dim, x.ndim().max(1))?;
    if idx.numel() == 0 {
        // torch checks nothing of an empty index, its rank included: no elements of x's, still on its graph.
        let none = x.reshape(&[-1])?.narrow(0, 0, 0)?;
        return none.reshape(&idx.shape().iter().map(|&n| n as i64).collect::<Vec<_>>());
    }
    check_shapes("gather", x, d, idx, None)?;
    let idx = checked(idx, check, extent(x, d), Wording::Bounds { dim: d })?;
    gather_unchecked(x, d, &idx)
}

/// `torch.scatter(x, dim, index, src)` and `scatter_add` (`add`); a scalar value is a `src` filled with it.
pub fn scatter(x: &Tensor, dim: i64, idx: &Tensor, src: &Tensor, add: bool) -> Result<Tensor> {
    scatter_with(x, dim, idx, src, add, read_bounds(idx)?.into())
}

pub fn scatter_with(x: &Tensor, dim: i64, idx: &Tensor, src: &Tensor, add: bool, check: Check) -> Result<Tensor> {
    let op = if add { "scatter_add" } else { "scatter" };
    index_dtype(idx, op)?;
    same_device(x, idx)?;
    same_device(x, src)?;
    if src.dtype() != x.dtype() {
        return Err(Error::Runtime(format!("{op}(): Expected self.dtype to be equal to src.dtype")));
    }
    let d = wrap_dim(dim, x.ndim().max(1))?;
    if idx.numel() > 0 {
        check_shapes(op, x, d, idx, Some(src))?;
    } else if idx.ndim() != x.ndim() {
        // torch checks nothing of an empty index, its rank included, and writes nothing.
        return x.copy();
    }
    let idx = checked(idx, check, extent(x, d), Wording::Bounds { dim: d })?;
    scatter_unchecked(x, d, &idx, src, add)
}

/// A tensor of `idx`'s shape filled with `value`, for `scatter(x, dim, idx, value)`.
pub fn scatter_value(x: &Tensor, idx: &Tensor, value: Scalar) -> Result<Tensor> {
    crate::base::scalar::check_fits(value, x.dtype())?;
    Tensor::full(idx.shape(), value, x.dtype(), x.device())
}

/// `torch.index_select(x, dim, index)`: a 1-d (or 0-d) index of int32/int64.
pub fn index_select(x: &Tensor, dim: i64, idx: &Tensor) -> Result<Tensor> {
    index_select_with(x, dim, idx, read_bounds(idx)?.into())
}

pub fn index_select_with(x: &Tensor, dim: i64, idx: &Tensor, check: Check) -> Result<Tensor> {
    if idx.ndim() > 1 {
        return Err(Error::Runtime("index_select(): Index is supposed to be a vector".into()));
    }
    if !matches!(idx.dtype(), DType::I32 | DType::I64) {
        return Err(Error::Runtime("index_select(): Expected dtype int32 or int64 for index".into()));
    }
    same_device(x, idx)?;
    let d = wrap_dim(dim, x.ndim().max(1))?;
    let idx = checked(idx, check, extent(x, d), select_wording(x, d))?;
    index_select_unchecked(x, d, &idx)
}

/// How torch's CPU words an index_select (and embedding) index outside dim `d` of `x`: by which of its kernels runs.
fn select_wording(x: &Tensor, d: usize) -> Wording {
    if x.ndim() < 2 {
        Wording::Range
    } else if x.shape()[d] == 0 {
        Wording::Axis
    } else if d == 1 || x.numel() == 0 {
        Wording::Data
    } else {
        Wording::Range
    }
}

/// index_select as a gather with the index expanded over the other dims (stride 0: no copy).
pub fn index_select_unchecked(x: &Tensor, dim: usize, idx: &Tensor) -> Result<Tensor> {
    if x.ndim() == 0 {
        return gather_unchecked(x, 0, &idx.reshape(&[])?);
    }
    let n = idx.numel();
    let mut lone = vec![1i64; x.ndim()];
    lone[dim] = n as i64;
    let mut shape = x.shape().to_vec();
    shape[dim] = n;
    gather_unchecked(x, dim, &idx.reshape(&lone)?.expand(&shape)?)
}

/// `torch.take_along_dim(x, indices, dim)`: x and indices broadcast against each other except along `dim`; with
/// no dim, both are flattened.
pub fn take_along_dim(x: &Tensor, idx: &Tensor, dim: Option<i64>) -> Result<Tensor> {
    take_along_dim_with(x, idx, dim, read_bounds(idx)?.into())
}

pub fn take_along_dim_with(x: &Tensor, idx: &Tensor, dim: Option<i64>, check: Check) -> Result<Tensor> {
    let Some(dim) = dim else {
        return gather_with(&x.reshape(&[-1])?, 0, &idx.reshape(&[-1])?, check);
    };
    if x.ndim() != idx.ndim() {
        return Err(Error::Runtime(format!(
            "torch.take_along_dim(): input and indices should have the same number of dimensions, but got {} \
             dimensions for input, and {} dimensions for indices",
            x.ndim(),
            idx.ndim()
        )));
    }
    index_dtype(idx, "take_along_dim")?;
    let d = wrap_dim(dim, x.ndim().max(1))?;
    let (mut xs, mut is) = (x.shape().to_vec(), idx.shape().to_vec());
    xs[d] = 1;
    is[d] = 1;
    let b = crate::base::view::broadcast_shapes(&xs, &is)?;
    let (mut xb, mut ib) = (b.clone(), b);
    if x.ndim() > 0 {
        xb[d] = x.shape()[d];
        ib[d] = idx.shape()[d];
    }
    gather_with(&x.expand(&xb)?, d as i64, &idx.expand(&ib)?, check)
}

/// `F.embedding(idx, weight, padding_idx)`: rows of the 2-d weight; the padding row gets no gradient.
pub fn embedding(idx: &Tensor, weight: &Tensor, padding_idx: Option<i64>) -> Result<Tensor> {
    embedding_with(idx, weight, padding_idx, read_bounds(idx)?.into())
}

pub fn embedding_with(idx: &Tensor, weight: &Tensor, padding_idx: Option<i64>, check: Check) -> Result<Tensor> {
    let pad = embedding_checks(idx, weight, padding_idx)?;
    let idx = checked(idx, check, weight.shape()[0], select_wording(weight, 0))?;
    embedding_unchecked(&idx, weight, pad)
}

/// embedding's checks; the padding row, wrapped.
fn embedding_checks(idx: &Tensor, weight: &Tensor, padding_idx: Option<i64>) -> Result<Option<i64>> {
    if weight.ndim() != 2 {
        return Err(Error::Runtime("'weight' must be 2-D".into()));
    }
    if !matches!(idx.dtype(), DType::I32 | DType::I64) {
        return Err(Error::Runtime(format!(
            "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but \
             got {} instead",
            idx.dtype().name()
        )));
    }
    same_device(idx, weight)?;
    let n = weight.shape()[0] as i64;
    match padding_idx {
        Some(p) if p >= n || p < -n => Err(Error::Value("Padding_idx must be within num_embeddings".into())),
        Some(p) => Ok(Some(if p < 0 { p + n } else { p })),
        None => Ok(None),
    }
}

fn embedding_unchecked(idx: &Tensor, weight: &Tensor, pad: Option<i64>) -> Result<Tensor> {
    let rows = index_select_unchecked(weight, 0, &idx.reshape(&[-1])?)?;
    let rows = match pad {
        // The padding row's value without its history: the same numbers, and no gradient flows to that row.
        Some(p) => {
            let hit = crate::api::elementwise::binary(
                &t(&idx.reshape(&[-1, 1])?),
                &crate::tensor::promote::Operand::Scalar(Scalar::Int(p)),
                crate::graph::op::BinaryOp::Eq,
            )?;
            crate::api::elementwise::where_(&hit, &t(&rows.detach()), &t(&rows))?
        }
        None => rows,
    };
    let mut shape: Vec<i64> = idx.shape().iter().map(|&d| d as i64).collect();
    shape.push(weight.shape()[1] as i64);
    rows.reshape(&shape)
}
