//! Reductions: sum, amax and argmax are primitives over the trailing dims of a permuted view; mean and max(dim)
//! are composites. 16-bit floats accumulate in f32 and are rounded once at the end, as torch does.

use crate::api::elementwise::binary;
use crate::base::dtype::{opmath, DType};
use crate::base::scalar::Scalar;
use crate::base::view::wrap_dim;
use crate::graph::op::{BinaryOp, Op, ReduceOp, ReduceRule};
use crate::tensor::promote::Operand;
use crate::tensor::Tensor;
use crate::util::error::{Error, Result};

/// The dtype a reduction node writes: 16-bit floats go through f32 (a packed 16-bit output would need two
/// workgroups to share a word).
fn node_dtype(op: ReduceOp, input: DType) -> DType {
    match op.rule() {
        ReduceRule::Index => DType::I64,
        ReduceRule::Accumulate => match input {
            DType::F16 | DType::BF16 => DType::F32,
            d => d.sum_dtype(),
        },
        ReduceRule::Same => opmath(input),
    }
}

/// A reduction of at least this many elements per row is split into chunks of `CHUNK`, when there are fewer than
/// `SPLIT_ROWS` rows: each level is a row reduction that fills the device, in an order fixed by the shape alone.
/// A chunk of 16,384 gives each invocation of a GPU workgroup 128 elements, so the workgroup's fixed tree costs
/// little beside its loads.
const SPLIT_MIN: usize = 1 << 15;
const SPLIT_ROWS: usize = 1 << 10;
const CHUNK: usize = 1 << 14;
/// The fewest trailing elements per output that `trailing_stage` reduces on their own.
const TRAILING_MIN: usize = 8;

/// Reduce each row of the 2-d `x` (rows, n) in chunks of `CHUNK`: the whole chunks as (rows, n / CHUNK, CHUNK), the
/// rest as one more partial, then the partials (again split while they are long).
fn split_reduce(op: ReduceOp, x: &Tensor) -> Result<Tensor> {
    let (rows, n) = (x.shape()[0], x.shape()[1]);
    let (whole, rest) = (n / CHUNK, n % CHUNK);
    let level = |t: &Tensor, shape: Vec<usize>| {
        Tensor::make(Op::Reduce { op, axes: 1 }, &[t], shape, node_dtype(op, t.dtype()), t.device())
    };
    let body = x.narrow(1, 0, (whole * CHUNK) as i64)?.reshape(&[rows as i64, whole as i64, CHUNK as i64])?;
    let mut partials = level(&body, vec![rows, whole])?;
    if rest > 0 {
        let tail = level(&x.narrow(1, (whole * CHUNK) as i64, rest as i64)?, vec![rows])?;
        partials = crate::api::join::cat(&[partials, tail.unsqueeze(1)?], 1)?;
    }
    if partials.shape()[1] >= SPLIT_MIN {
        split_reduce(op, &partials)
    } else {
        level(&partials, vec![rows])
    }
}

impl Tensor {
    /// The sorted, de-duplicated dims to reduce (`None` or empty = all).
    pub(crate) fn reduce_dims(&self, dims: Option<&[i64]>) -> Result<Vec<usize>> {
        let n = self.ndim();
        let mut out = match dims {
            None | Some([]) => (0..n).collect::<Vec<_>>(),
            Some(ds) => ds.iter().map(|&d| wrap_dim(d, n)).collect::<Result<Vec<_>>>()?,
        };
        let before = out.len();
        out.sort_unstable();
        out.dedup();
        if out.len() != before {
            return Err(Error::Runtime("dim appears multiple times in the list of dims".into()));
        }
        // A 0-d tensor accepts dim 0 (or -1) but has no dim to reduce: nothing is, and no caller may index its shape.
        if n == 0 {
            out.clear();
        }
        Ok(out)
    }

    /// Reduce `dims` with a primitive; the result has the node dtype of `node_dtype` and `keepdim` applied.
    fn reduce_raw(&self, op: ReduceOp, dims: &[usize], keepdim: bool) -> Result<Tensor> {
        let r = match self.trailing_stage(op, dims) {
            // The reduced dims that end the shape first, then the rest (dims before them keep their positions).
            Some(first) => {
                self.reduce_raw(op, first, false)?.reduce_raw(op, &dims[..dims.len() - first.len()], false)?
            }
            None => self.reduce_pass(op, dims)?,
        };
        if keepdim {
            let shape: Vec<i64> =
                (0..self.ndim()).map(|d| if dims.contains(&d) { 1 } else { self.shape()[d] as i64 }).collect();
            return r.reshape(&shape);
        }
        Ok(r)
    }

    /// `dims` reduced in one pass over a permuted view (the kept dims first), split into chunks where long.
    fn reduce_pass(&self, op: ReduceOp, dims: &[usize]) -> Result<Tensor> {
        let n = self.ndim();
        let kept: Vec<usize> = (0..n).filter(|d| !dims.contains(d)).collect();
        let perm: Vec<i64> = kept.iter().chain(dims.iter()).map(|&d| d as i64).collect();
        let x = if n == 0 { self.clone() } else { self.permute(&perm)? };
        let out_shape: Vec<usize> = kept.iter().map(|&d| self.shape()[d]).collect();
        let reduced: usize = dims.iter().map(|&d| self.shape()[d]).product();
        let rows: usize = out_shape.iter().product();
        if self.splits(op, rows, reduced) {
            let flat = x.reshape(&[rows as i64, reduced as i64])?;
            return split_reduce(op, &flat)?.reshape(&out_shape.iter().map(|&d| d as i64).collect::<Vec<_>>());
        }
        Tensor::make(Op::Reduce { op, axes: dims.len() }, &[&x], out_shape, node_dtype(op, self.dtype()), self.device())
    }

    /// Whether a reduction of `rows` rows of `reduced` elements is split into chunks: a long reduction over few rows
    /// would otherwise run in few workgroups. amax/amin split only without history, as their gradient divides among
    /// ties and a split would divide it per chunk.
    fn splits(&self, op: ReduceOp, rows: usize, reduced: usize) -> bool {
        reduced >= SPLIT_MIN && rows < SPLIT_ROWS && self.in_stages(op)
    }

    /// Whether `op` may reduce in stages, each a reduction of the last one's results: sums, and extrema without
    /// history (their gradient divides among ties, and stages would divide it per stage). A float product rounds
    /// once at its end, which stages would not.
    fn in_stages(&self, op: ReduceOp) -> bool {
        match op {
            ReduceOp::Sum => true,
            ReduceOp::Max | ReduceOp::Min => !(self.requires_grad() && crate::tensor::is_grad_enabled()),
            ReduceOp::Prod | ReduceOp::ArgMax | ReduceOp::ArgMin => false,
        }
    }

    /// The reduced dims to reduce first, on their own: those that end the shape of a contiguous tensor, where other
    /// reduced dims lie before a kept one (a conv's bias gradient, over N, H and W) and they hold at least
    /// `TRAILING_MIN` elements. Each output's trailing elements are then one contiguous row, and what is left is a
    /// reduction of at most an eighth of the elements; one pass would read every element through a permuted view
    /// (on a GPU, each workgroup a strided walk), or split a contiguous copy of it. The order stays fixed by the shape.
    fn trailing_stage<'d>(&self, op: ReduceOp, dims: &'d [usize]) -> Option<&'d [usize]> {
        let n = self.ndim();
        let count = (0..n).rev().take_while(|d| dims.contains(d)).count();
        let first = &dims[dims.len() - count..];
        let elements: usize = first.iter().map(|&d| self.shape()[d]).product();
        let worth = count > 0 && count < dims.len() && elements >= TRAILING_MIN;
        (worth && self.view.is_contiguous() && self.in_stages(op)).then_some(first)
    }

    fn require_nonempty(&self, name: &str, dims: &[usize]) -> Result<()> {
        for &d in dims {
            if self.shape()[d] == 0 {
                return Err(Error::Index(format!("{name}(): Expected reduction dim {d} to have non-zero size.")));
            }
        }
        Ok(())
    }

    pub fn sum(&self, dims: Option<&[i64]>, keepdim: bool) -> Result<Tensor> {
        let dims = self.reduce_dims(dims)?;
        let s = self.reduce_raw(ReduceOp::Sum, &dims, keepdim)?;
        s.to_dtype(self.dtype().sum_dtype())
    }

    /// `torch.prod(x)` over everything, or over one dim (`keepdim`); integers and bool multiply in int64.
    pub fn prod(&self, dim: Option<i64>, keepdim: bool, dtype: Option<DType>) -> Result<Tensor> {
        let x = match dtype {
            Some(d) => self.to_dtype(d)?,
            None => self.clone(),
        };
        let dims = x.reduce_dims(dim.as_ref().map(std::slice::from_ref))?;
        let p = x.reduce_raw(ReduceOp::Prod, &dims, keepdim && dim.is_some())?;
        p.to_dtype(dtype.unwrap_or(x.dtype().sum_dtype()))
    }

    /// mean = sum / n in the accumulation dtype, rounded once to the input dtype.
    pub fn mean(&self, dims: Option<&[i64]>, keepdim: bool) -> Result<Tensor> {
        if !self.dtype().is_float() {
            return Err(Error::Runtime(format!(
                "mean(): could not infer output dtype. Input dtype must be either a floating point or complex \
                 dtype. Got: {}",
                self.dtype().name()
            )));
        }
        let dims = self.reduce_dims(dims)?;
        let count: usize = dims.iter().map(|&d| self.shape()[d]).product();
        let s = self.reduce_raw(ReduceOp::Sum, &dims, keepdim)?;
        let m = binary(&Operand::Tensor(s), &Operand::Scalar(Scalar::Float(count as f64)), BinaryOp::Div)?;
        m.to_dtype(self.dtype())
    }

    pub fn amax(&self, dims: Option<&[i64]>, keepdim: bool) -> Result<Tensor> {
        self.extremum(ReduceOp::Max, dims, keepdim)
    }

    pub fn amin(&self, dims: Option<&[i64]>, keepdim: bool) -> Result<Tensor> {
        self.extremum(ReduceOp::Min, dims, keepdim)
    }

    /// amax/amin: NaN propagates; empty reductions are errors, as in torch.
    fn extremum(&self, op: ReduceOp, dims: Option<&[i64]>, keepdim: bool) -> Result<Tensor> {
        let name = Op::Reduce { op, axes: 0 }.name();
        let all_dims = dims.is_none_or(|d| d.is_empty());
        let dims = self.reduce_dims(dims)?;
        if all_dims && self.numel() == 0 {
            return Err(Error::Runtime(format!(
                "{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim \
                 with the 'dim' argument."
            )));
        }
        let all: Vec<usize> = if dims.is_empty() { (0..self.ndim()).collect() } else { dims.clone() };
        self.require_nonempty(name, &all)?;
        self.reduce_raw(op, &dims, keepdim)?.to_dtype(self.dtype())
    }

    /// Index of the first maximum (NaN counts as the maximum, as in torch); over all elements when `dim` is None.
    pub fn argmax(&self, dim: Option<i64>, keepdim: bool) -> Result<Tensor> {
        self.arg_public(ReduceOp::ArgMax, dim, keepdim)
    }

    /// Index of the first minimum (NaN counts as the minimum, as in torch).
    pub fn argmin(&self, dim: Option<i64>, keepdim: bool) -> Result<Tensor> {
        self.arg_public(ReduceOp::ArgMin, dim, keepdim)
    }

    fn arg_public(&self, op: ReduceOp, dim: Option<i64>, keepdim: bool) -> Result<Tensor> {
        if self.dtype() == DType::Bool {
            let name = Op::Reduce { op, axes: 0 }.name();
            return Err(Error::Runtime(format!("{name}(): does not support bool input")));
        }
        self.arg_extremum(op, dim, keepdim)
    }

    /// argmax/argmin for every dtype (max(dim) on bool needs it even though torch's argmax refuses bool).
    fn arg_extremum(&self, op: ReduceOp, dim: Option<i64>, keepdim: bool) -> Result<Tensor> {
        let name = Op::Reduce { op, axes: 0 }.name();
        match dim {
            None => {
                if self.numel() == 0 {
                    return Err(Error::Index(format!(
                        "{name}(): Expected reduction dim to be specified for input.numel() == 0."
                    )));
                }
                let flat = self.reshape(&[-1])?;
                let r = flat.reduce_raw(op, &[0], false)?;
                if keepdim {
                    let shape = vec![1i64; self.ndim()];
                    return r.reshape(&shape);
                }
                Ok(r)
            }
            Some(d) => {
                let d = wrap_dim(d, self.ndim())?;
                if self.ndim() > 0 {
                    self.require_nonempty(name, &[d])?;
                }
                let dims = if self.ndim() == 0 { vec![] } else { vec![d] };
                self.reduce_raw(op, &dims, keepdim)
            }
        }
    }

    /// `max(dim)`: values and indices.
    pub fn max_dim(&self, dim: i64, keepdim: bool) -> Result<(Tensor, Tensor)> {
        self.extremum_dim(ReduceOp::Max, dim, keepdim)
    }

    /// `min(dim)`: values and indices.
    pub fn min_dim(&self, dim: i64, keepdim: bool) -> Result<(Tensor, Tensor)> {
        self.extremum_dim(ReduceOp::Min, dim, keepdim)
    }

    fn extremum_dim(&self, op: ReduceOp, dim: i64, keepdim: bool) -> Result<(Tensor, Tensor)> {
        let (name, arg) = match op {
            ReduceOp::Min => ("min", ReduceOp::ArgMin),
            _ => ("max", ReduceOp::ArgMax),
        };
        let d = wrap_dim(dim, self.ndim())?;
        if self.ndim() > 0 && self.shape()[d] == 0 {
            return Err(Error::Index(format!("{name}(): Expected reduction dim {d} to have non-zero size.")));
        }
        Ok((self.extremum(op, Some(&[dim]), keepdim)?, self.arg_extremum(arg, Some(dim), keepdim)?))
    }

    /// `max()`: the largest element.
    pub fn max_all(&self) -> Result<Tensor> {
        self.extremum_all(ReduceOp::Max)
    }

    /// `min()`: the smallest element.
    pub fn min_all(&self) -> Result<Tensor> {
        self.extremum_all(ReduceOp::Min)
    }

    fn extremum_all(&self, op: ReduceOp) -> Result<Tensor> {
        if self.numel() == 0 {
            let name = if op == ReduceOp::Min { "min" } else { "max" };
            return Err(Error::Runtime(format!(
                "{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim \
                 with the 'dim' argument."
            )));
        }
        self.extremum(op, None, false)
    }

    /// `all`: every element nonzero (bool result), composite: amin of `x != 0`; empty → True.
    pub fn all(&self, dims: Option<&[i64]>, keepdim: bool) -> Result<Tensor> {
        self.truth(ReduceOp::Min, dims, keepdim)
    }

    /// `any`: some element nonzero (bool result), composite: amax of `x != 0`; empty → False.
    pub fn any(&self, dims: Option<&[i64]>, keepdim: bool) -> Result<Tensor> {
        self.truth(ReduceOp::Max, dims, keepdim)
    }

    fn truth(&self, op: ReduceOp, dims: Option<&[i64]>, keepdim: bool) -> Result<Tensor> {
        let nz = binary(&Operand::Tensor(self.clone()), &Operand::Scalar(Scalar::Int(0)), BinaryOp::Ne)?;
        let dims = nz.reduce_dims(dims)?;
        let empty: bool = dims.iter().any(|&d| nz.shape()[d] == 0);
        if empty {
            // The reduction of nothing is the identity: all() is True, any() is False.
            let shape: Vec<usize> = (0..nz.ndim())
                .filter_map(|d| if dims.contains(&d) { keepdim.then_some(1) } else { Some(nz.shape()[d]) })
                .collect();
            return Tensor::full(&shape, Scalar::Bool(op == ReduceOp::Min), DType::Bool, self.device());
        }
        nz.reduce_raw(op, &dims, keepdim)
    }
}
