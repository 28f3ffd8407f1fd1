//! Reductions over the trailing `axes` dims of a view, each output accumulated sequentially in index order; float32
//! sums accumulate in f64 and round once, so the oracle's sum stays within a rounding of exact at any length, and
//! float products keep their power of two apart (`scaled_prod`), so no partial product leaves the range on the way.
//! The fast device reduces rows in parallel and sums each in eight f64 lanes (`lane_sum`): an order fixed by the
//! length alone, which the compiler vectorises.

use vkml_core::base::dtype::DType;
use vkml_core::base::view::View;
use vkml_core::graph::op::ReduceOp;

use crate::threads::each_chunk;
use crate::values::{class, encode, for_lines, for_runs, gather, words, Class, Values};

#[cfg(not(target_arch = "wasm32"))]
use rayon::prelude::*;

/// The reduction of `view`'s trailing `axes` dims in the `out` dtype; `fast` on the fast device.
pub fn reduce(
    op: ReduceOp,
    axes: usize,
    (bytes, dtype, view): (&[u8], DType, &View),
    out: DType,
    fast: bool,
) -> Vec<u8> {
    let inner: usize = view.shape[view.ndim() - axes..].iter().product();
    let outer: usize = view.shape[..view.ndim() - axes].iter().product();
    // Integer sums accumulate in i64; every other reduction in the input's own class.
    let c = if matches!(op, ReduceOp::Sum | ReduceOp::Prod) && class(dtype) == Class::I64 {
        Class::I64
    } else {
        class(dtype)
    };
    if fast && op == ReduceOp::Sum {
        let sums = match dtype {
            DType::F32 => words(bytes).and_then(|xs| sums_in_place::<f32>(xs, view, axes)),
            DType::F64 => words(bytes).and_then(|xs| sums_in_place::<f64>(xs, view, axes)),
            _ => None,
        };
        if let Some(v) = sums {
            return encode(&v, out);
        }
    }
    let vals = gather(bytes, dtype, view, c);
    let v = match vals {
        Values::F32(x) => float_reduce(op, &x, (outer, inner), f32::NEG_INFINITY, f32::INFINITY, fast),
        Values::F64(x) => float_reduce(op, &x, (outer, inner), f64::NEG_INFINITY, f64::INFINITY, fast),
        Values::I64(x) => Values::I64(
            (0..outer)
                .map(|o| {
                    let row = &x[o * inner..(o + 1) * inner];
                    match op {
                        ReduceOp::Sum => row.iter().fold(0i64, |s, &v| s.wrapping_add(v)),
                        ReduceOp::Prod => row.iter().fold(1i64, |s, &v| s.wrapping_mul(v)),
                        ReduceOp::Max => row.iter().copied().max().unwrap_or(i64::MIN),
                        ReduceOp::Min => row.iter().copied().min().unwrap_or(i64::MAX),
                        ReduceOp::ArgMax | ReduceOp::ArgMin => {
                            let min = op == ReduceOp::ArgMin;
                            let mut best = 0;
                            for (i, &v) in row.iter().enumerate() {
                                if (!min && v > row[best]) || (min && v < row[best]) {
                                    best = i;
                                }
                            }
                            best as i64
                        }
                    }
                })
                .collect(),
        ),
    };
    encode(&v, out)
}

pub(crate) trait Float: Copy + PartialOrd + Into<f64> + Send + Sync {
    fn nan(self) -> bool;
    /// An f64 rounded to this type.
    fn round(v: f64) -> Self;
    fn wrap(v: Vec<Self>) -> Values;
    /// A row's sum, accumulated in f64 from +0.0 (an empty sum is +0.0, as torch's) and rounded once.
    fn sum(row: &[Self]) -> Self {
        Self::round(row.iter().fold(0.0f64, |s, &v| s + v.into()))
    }
    /// A row's product, rounded once from [`scaled_prod`].
    fn prod(row: &[Self]) -> Self;
}

/// The product of `factors` as an f64 mantissa in [0.5, 1) and a power of two, multiplied in index order: each step
/// rounds in f64 and the exponents add apart, so 1e30 · 1e30 · 1e-30 · 1e-30 is 1 in any order (0, inf and NaN stay
/// in the mantissa).
fn scaled_prod(factors: impl Iterator<Item = f64>) -> (f64, i64) {
    let mut m = 1.0f64;
    let mut e = 0i64;
    for v in factors {
        m *= v;
        let bits = m.to_bits();
        let biased = ((bits >> 52) & 0x7ff) as i64;
        if m.is_finite() && m != 0.0 && biased != 0 {
            // m's own exponent moves into e; 1022 is 0.5's. (m stays normal: |m| ≥ 0.5 · 2⁻¹⁴⁹ after any factor.)
            e = e.saturating_add(biased - 1022);
            m = f64::from_bits((bits & !(0x7ff << 52)) | (1022 << 52));
        }
    }
    (m, e)
}

/// m · 2^e, where it lies within `[-low, high]` powers of two (beyond: ±inf or ±0), computed in two exact steps.
fn scaled_value((m, e): (f64, i64), low: i64, high: i64) -> f64 {
    if !m.is_finite() || m == 0.0 {
        return m;
    }
    if e > high {
        return m * f64::INFINITY;
    }
    if e < -low {
        return m * 0.0;
    }
    let half = (e / 2) as i32;
    m * 2f64.powi(half) * 2f64.powi(e as i32 - half)
}

impl Float for f32 {
    fn nan(self) -> bool {
        self.is_nan()
    }
    fn round(v: f64) -> f32 {
        v as f32
    }
    fn wrap(v: Vec<f32>) -> Values {
        Values::F32(v)
    }
    fn prod(row: &[f32]) -> f32 {
        // Past 2^129 any f32 is inf; below 2^-160 it is 0: the f64 value in between rounds once to f32.
        scaled_value(scaled_prod(row.iter().map(|&v| f64::from(v))), 160, 129) as f32
    }
}

impl Float for f64 {
    fn nan(self) -> bool {
        self.is_nan()
    }
    fn round(v: f64) -> f64 {
        v
    }
    fn wrap(v: Vec<f64>) -> Values {
        Values::F64(v)
    }
    fn prod(row: &[f64]) -> f64 {
        scaled_value(scaled_prod(row.iter().copied()), 1080, 1025)
    }
}

/// The max of `row` from `lowest`: the first NaN if any, else the first of the largest (amax's, and softmax's shift).
pub(crate) fn row_max<T: Float>(row: &[T], lowest: T) -> T {
    row.iter().fold(lowest, |m, &v| if m.nan() || (!v.nan() && m >= v) { m } else { v })
}

/// The fast device's sum: eight f64 partial sums over the positions mod 8, added in lane order at the end (from +0.0,
/// as the reference), then rounded once.
fn lane_sum<T: Float>(row: &[T]) -> T {
    let mut acc = [0f64; 8];
    let chunks = row.chunks_exact(8);
    let rest = chunks.remainder();
    for c in chunks {
        for (a, &v) in acc.iter_mut().zip(c) {
            *a += v.into();
        }
    }
    for (a, &v) in acc.iter_mut().zip(rest) {
        *a += v.into();
    }
    T::round(acc.iter().fold(0.0, |s, &a| s + a))
}

/// The fast device's sum read in place where the view's layout allows (`column_sums`, then `run_sums`).
fn sums_in_place<T: Float>(xs: &[T], view: &View, axes: usize) -> Option<Values> {
    column_sums(xs, view, axes).or_else(|| run_sums(xs, view, axes))
}

/// The buffer index of each element under `view`, in row-major order.
fn positions(view: &View) -> Vec<usize> {
    let mut at = Vec::with_capacity(view.numel());
    for_lines(view, |s, len, st| at.extend((0..len as isize).map(|j| (s as isize + j * st) as usize)));
    at
}

/// Columns per task of `column_sums`: eight f64 lanes of them stay in the core's cache.
const COLUMNS: usize = 1024;

/// The fast device's sum where the kept dims are one contiguous run of columns and each reduced position starts a
/// whole run (a weight gradient summed over its batch): every row is added into eight f64 accumulators per column,
/// row i into lane i mod 8 and the lanes then added in order — `lane_sum`'s order — reading rows, not gathering the
/// transposed view first (1.3 GB/s that way).
fn column_sums<T: Float>(xs: &[T], view: &View, axes: usize) -> Option<Values> {
    let k = view.ndim() - axes;
    let kept = View { shape: view.shape[..k].to_vec(), strides: view.strides[..k].to_vec(), offset: 0 };
    let reduced = View { shape: view.shape[k..].to_vec(), strides: view.strides[k..].to_vec(), offset: view.offset };
    let (cols, rows) = (kept.numel(), reduced.numel());
    if cols < 2 || rows < 2 || !kept.is_contiguous() {
        return None;
    }
    let starts = positions(&reduced);
    if starts.iter().any(|&s| s.checked_add(cols).is_none_or(|end| end > xs.len())) {
        return None;
    }
    let mut out = vec![T::round(0.0); cols];
    each_chunk(&mut out, COLUMNS, |c, dst| {
        let c0 = c * COLUMNS;
        let mut lanes = vec![vec![0f64; dst.len()]; 8];
        for (i, &s) in starts.iter().enumerate() {
            let row = &xs[s + c0..s + c0 + dst.len()];
            for (a, &v) in lanes[i % 8].iter_mut().zip(row) {
                *a += v.into();
            }
        }
        for (j, d) in dst.iter_mut().enumerate() {
            *d = T::round(lanes.iter().fold(0.0, |s, l| s + l[j]));
        }
    });
    Some(T::wrap(out))
}

/// The fast device's sum of rows whose reduced dims end in a contiguous run of 8 or more (a bias gradient: each
/// channel's row is N runs of H·W; a plain row is one run): each run is added in place into the eight lanes, position
/// mod 8 carried from run to run — the order `lane_sum` gives the gathered row — an output per task.
fn run_sums<T: Float>(xs: &[T], view: &View, axes: usize) -> Option<Values> {
    let (nd, k) = (view.ndim(), view.ndim() - axes);
    if axes == 0 || view.strides[nd - 1] != 1 || view.shape[nd - 1] < 8 {
        return None;
    }
    let kept = View { shape: view.shape[..k].to_vec(), strides: view.strides[..k].to_vec(), offset: view.offset };
    let reduced = View { shape: view.shape[k..].to_vec(), strides: view.strides[k..].to_vec(), offset: 0 };
    let bases = positions(&kept);
    let mut runs = Vec::new();
    for_runs(&reduced, |i, len| runs.push((i, len)));
    let end = runs.iter().map(|&(i, len)| i + len).max().unwrap_or(0);
    if bases.iter().any(|&b| b.checked_add(end).is_none_or(|e| e > xs.len())) {
        return None;
    }
    let mut out = vec![T::round(0.0); bases.len()];
    each_chunk(&mut out, 1, |o, d| {
        let mut lanes = [0f64; 8];
        let mut pos = 0;
        for &(i, len) in &runs {
            let run = &xs[bases[o] + i..bases[o] + i + len];
            // Up to the next multiple of 8 one at a time, then whole groups of 8 (which vectorise), then the tail.
            let head = ((8 - pos % 8) % 8).min(len);
            for (j, &v) in run[..head].iter().enumerate() {
                lanes[(pos + j) % 8] += v.into();
            }
            let groups = run[head..].chunks_exact(8);
            let tail = groups.remainder();
            for g in groups {
                for (a, &v) in lanes.iter_mut().zip(g) {
                    *a += v.into();
                }
            }
            for (a, &v) in lanes.iter_mut().zip(tail) {
                *a += v.into();
            }
            pos += len;
        }
        d[0] = T::round(lanes.iter().fold(0.0, |s, &a| s + a));
    });
    Some(T::wrap(out))
}

/// Sum, product, NaN-propagating max/min, and argmax/argmin where the first NaN (else the first extreme) wins, as torch;
/// `fast`: rows in parallel, sums in lanes.
fn float_reduce<T: Float>(
    op: ReduceOp,
    x: &[T],
    (outer, inner): (usize, usize),
    lowest: T,
    highest: T,
    fast: bool,
) -> Values {
    let row = |o: usize| -> (T, i64) {
        let r = &x[o * inner..(o + 1) * inner];
        match op {
            ReduceOp::Sum if fast => (lane_sum(r), 0),
            ReduceOp::Sum => (T::sum(r), 0),
            ReduceOp::Prod => (T::prod(r), 0),
            ReduceOp::Max => (row_max(r, lowest), 0),
            ReduceOp::Min => (r.iter().fold(highest, |m, &v| if m.nan() || (!v.nan() && m <= v) { m } else { v }), 0),
            ReduceOp::ArgMax | ReduceOp::ArgMin => {
                let min = op == ReduceOp::ArgMin;
                let (mut best, mut b) = (0usize, r.first().copied().unwrap_or(lowest));
                for (i, &v) in r.iter().enumerate() {
                    // Selects by index, not by branch: a branch mispredicts on unordered data.
                    let take = !b.nan() && (v.nan() || (!min && v > b) || (min && v < b));
                    (best, b) = ([best, i][take as usize], [b, v][take as usize]);
                }
                (lowest, best as i64)
            }
        }
    };
    #[cfg(not(target_arch = "wasm32"))]
    // Short rows (a pool's window) go to threads in batches: a task per row of four costs more than the row.
    let rows: Vec<(T, i64)> = if fast {
        (0..outer).into_par_iter().with_min_len(4096usize.div_ceil(inner.max(1))).map(row).collect()
    } else {
        (0..outer).map(row).collect()
    };
    #[cfg(target_arch = "wasm32")]
    let rows: Vec<(T, i64)> = (0..outer).map(row).collect();
    if matches!(op, ReduceOp::ArgMax | ReduceOp::ArgMin) {
        Values::I64(rows.into_iter().map(|(_, i)| i).collect())
    } else {
        T::wrap(rows.into_iter().map(|(v, _)| v).collect())
    }
}
