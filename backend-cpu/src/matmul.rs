//! Batched matmul. The reference device accumulates each output's K products in order (f32 for 16-bit and f32
//! inputs, wrapping i64 for integers); the fast device hands float products to `matrixmultiply`'s cache-blocked,
//! vectorised kernels (`fast`). Rows run in parallel with rayon on both, which changes no output's order.

use vkml_core::base::dtype::DType;
use vkml_core::base::view::View;

use crate::gemm::{self, Gemm, Mat};
use crate::values::{encode, load, Values};

#[cfg(not(target_arch = "wasm32"))]
use rayon::prelude::*;

type In<'a> = (&'a [u8], DType, &'a View);

/// The product of `a` and `b` in the `out` dtype; `fast` on the fast device.
pub fn matmul(a: In, b: In, out: DType, fast: bool) -> Vec<u8> {
    let nd = a.2.ndim();
    let (m, k, n) = (a.2.shape[nd - 2], a.2.shape[nd - 1], b.2.shape[nd - 1]);
    let batch: usize = a.2.shape[..nd - 2].iter().product();
    if fast {
        if let Some(v) = in_place(a, b, (batch, m, k, n)) {
            return encode(&v, out);
        }
    }
    let v = match (load(a.0, a.1, a.2), load(b.0, b.1, b.2)) {
        (Values::F32(x), Values::F32(y)) if fast => Values::F32(gemm::dense(&x, &y, batch, m, k, n)),
        (Values::F64(x), Values::F64(y)) if fast => Values::F64(gemm::dense(&x, &y, batch, m, k, n)),
        (Values::F32(x), Values::F32(y)) => Values::F32(product(&x, &y, batch, m, k, n, 0.0, |s, p, q| s + p * q)),
        (Values::F64(x), Values::F64(y)) => Values::F64(product(&x, &y, batch, m, k, n, 0.0, |s, p, q| s + p * q)),
        (Values::I64(x), Values::I64(y)) => {
            Values::I64(product(&x, &y, batch, m, k, n, 0, |s, p, q| s.wrapping_add(p.wrapping_mul(q))))
        }
        _ => Values::I64(vec![]),
    };
    encode(&v, out)
}

/// The fast device's product read straight from the buffers through the views (no copy of a transposed or
/// broadcast operand), where both are float32 or both float64, suitably aligned, with non-negative strides.
fn in_place(a: In, b: In, dims: (usize, usize, usize, usize)) -> Option<Values> {
    if a.1 != b.1 || [a.2, b.2].iter().any(|v| v.strides.iter().any(|&s| s < 0)) {
        return None;
    }
    match a.1 {
        DType::F32 => in_place_as::<f32>(a, b, dims).map(Values::F32),
        DType::F64 => in_place_as::<f64>(a, b, dims).map(Values::F64),
        _ => None,
    }
}

/// `in_place` for operands of element type `T`: None where a buffer is not aligned for `T` or a matrix leaves it.
fn in_place_as<T: Gemm + bytemuck::Pod>(a: In, b: In, dims: (usize, usize, usize, usize)) -> Option<Vec<T>> {
    let (x, y) = (bytemuck::try_cast_slice(a.0).ok()?, bytemuck::try_cast_slice(b.0).ok()?);
    inside(x, y, a.2, b.2, dims).then(|| gemm::product(|i| mat(x, a.2, i), |i| mat(y, b.2, i), dims))
}

/// Whether every batch's matrices lie inside their buffers (a view always does; checked, since the product reads
/// through raw strides).
fn inside<T>(x: &[T], y: &[T], va: &View, vb: &View, (batch, m, k, n): (usize, usize, usize, usize)) -> bool {
    (0..batch).all(|i| mat(x, va, i).holds(m, k) && mat(y, vb, i).holds(k, n))
}

/// Batch `i` (row-major over the batch dims) of the matrices `view` shows of `data`.
fn mat<'a, T>(data: &'a [T], view: &View, i: usize) -> Mat<'a, T> {
    let nd = view.shape.len();
    let mut offset = view.offset as isize;
    let mut rem = i;
    for d in (0..nd - 2).rev() {
        let size = view.shape[d].max(1);
        offset += (rem % size) as isize * view.strides[d];
        rem /= size;
    }
    Mat { data, offset: offset as usize, rs: view.strides[nd - 2], cs: view.strides[nd - 1] }
}

#[allow(clippy::too_many_arguments)]
fn product<T: Copy + Send + Sync>(
    x: &[T],
    y: &[T],
    batch: usize,
    m: usize,
    k: usize,
    n: usize,
    zero: T,
    fma: impl Fn(T, T, T) -> T + Sync,
) -> Vec<T> {
    // Each output still adds its products for p = 0, 1, …, k−1 in order; walking p outermost only makes the
    // reads of y row-wise (cache-friendly and vectorizable) without changing any output's sum.
    let row = |r: usize| -> Vec<T> {
        let (bi, i) = (r / m.max(1), r % m.max(1));
        let (xa, yb) = (&x[bi * m * k + i * k..], &y[bi * k * n..]);
        let mut acc = vec![zero; n];
        for p in 0..k {
            let (xp, yrow) = (xa[p], &yb[p * n..(p + 1) * n]);
            for (s, &q) in acc.iter_mut().zip(yrow) {
                *s = fma(*s, xp, q);
            }
        }
        acc
    };
    #[cfg(not(target_arch = "wasm32"))]
    let rows: Vec<Vec<T>> = (0..batch * m).into_par_iter().map(row).collect();
    #[cfg(target_arch = "wasm32")]
    let rows: Vec<Vec<T>> = (0..batch * m).map(row).collect();
    rows.concat()
}
