//! Batched matmul: each output accumulates its K products in order (f32 for 16-bit and f32 inputs, wrapping i64
//! for integers); rows run in parallel with rayon, which cannot change any output's order.

use vkml_core::base::dtype::DType;
use vkml_core::base::view::View;

use crate::values::{encode, load, Values};

#[cfg(not(target_arch = "wasm32"))]
use rayon::prelude::*;

type In<'a> = (&'a [u8], DType, &'a View);

pub fn matmul(a: In, b: In, out: DType) -> Vec<u8> {
    let nd = a.2.ndim();
    let (m, k, n) = (a.2.shape[nd - 2], a.2.shape[nd - 1], b.2.shape[nd - 1]);
    let batch: usize = a.2.shape[..nd - 2].iter().product();
    let v = match (load(a.0, a.1, a.2), load(b.0, b.1, b.2)) {
        (Values::F32(x), Values::F32(y)) => Values::F32(product(&x, &y, batch, m, k, n, 0.0, |s, p, q| s + p * q)),
        (Values::F64(x), Values::F64(y)) => Values::F64(product(&x, &y, batch, m, k, n, 0.0, |s, p, q| s + p * q)),
        (Values::I64(x), Values::I64(y)) => {
            Values::I64(product(&x, &y, batch, m, k, n, 0, |s, p, q| s.wrapping_add(p.wrapping_mul(q))))
        }
        _ => Values::I64(vec![]),
    };
    encode(&v, out)
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
