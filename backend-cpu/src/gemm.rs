//! The fast device's float products: `matrixmultiply`'s cache-blocked kernels (packed panels, a register-tiled
//! micro-kernel chosen once per process from the CPU's features: AVX2 and FMA where present), chosen over a
//! hand-written loop because blocking and vectorising a product well per CPU is that crate's whole job and it is
//! pure Rust (it builds for wasm too). Each output's K products are summed in an order fixed by the crate's K
//! blocking, whatever rows a call covers, so splitting the rows over rayon's threads never changes a byte.

#[cfg(not(target_arch = "wasm32"))]
use rayon::prelude::*;

/// Rows per parallel task: each task runs one blocked product over its rows (enough work to pay for a task).
const ROWS: usize = 64;

/// A matrix inside a slice: element (i, j) at `offset + i * rs + j * cs`.
#[derive(Clone, Copy)]
pub struct Mat<'a, T> {
    pub data: &'a [T],
    pub offset: usize,
    pub rs: isize,
    pub cs: isize,
}

impl<T> Mat<'_, T> {
    /// Whether every element of a rows x cols block lies inside `data` (strides must not be negative).
    pub fn holds(&self, rows: usize, cols: usize) -> bool {
        if rows == 0 || cols == 0 {
            return true;
        }
        if self.rs < 0 || self.cs < 0 {
            return false;
        }
        let last = (rows - 1)
            .checked_mul(self.rs as usize)
            .and_then(|r| (cols - 1).checked_mul(self.cs as usize).and_then(|c| r.checked_add(c)))
            .and_then(|d| d.checked_add(self.offset));
        last.is_some_and(|l| l < self.data.len())
    }
}

/// A float type `matrixmultiply` multiplies.
pub trait Gemm: Copy + Default + Send + Sync + std::ops::Add<Output = Self> + std::ops::Mul<Output = Self> {
    /// `c` (m x n, contiguous) = `a` (m x k) @ `b` (k x n); nothing is written where an operand's elements would
    /// fall outside its slice.
    fn gemm(m: usize, k: usize, n: usize, a: Mat<Self>, b: Mat<Self>, c: &mut [Self]);
}

macro_rules! gemm_for {
    ($t:ty, $f:ident) => {
        impl Gemm for $t {
            #[allow(unsafe_code)]
            fn gemm(m: usize, k: usize, n: usize, a: Mat<$t>, b: Mat<$t>, c: &mut [$t]) {
                if m == 0 || n == 0 || !a.holds(m, k) || !b.holds(k, n) || c.len() != m * n {
                    return;
                }
                if n == 1 && a.cs == 1 && b.rs == 1 {
                    return column(k, a, b, c);
                }
                // SAFETY: every element the product reads lies inside its slice (`holds`: offsets plus non-negative
                // strides times the last index stay below the length), `c` holds exactly m x n elements with row
                // stride n, and it is borrowed mutably, so nothing else aliases it. With k = 0 nothing is read.
                unsafe {
                    let (pa, pb) = (a.data.as_ptr().add(a.offset), b.data.as_ptr().add(b.offset));
                    matrixmultiply::$f(
                        m,
                        k,
                        n,
                        1.0,
                        pa,
                        a.rs,
                        a.cs,
                        pb,
                        b.rs,
                        b.cs,
                        0.0,
                        c.as_mut_ptr(),
                        n as isize,
                        1,
                    );
                }
            }
        }
    };
}

gemm_for!(f32, sgemm);
gemm_for!(f64, dgemm);

/// A product with one column over rows and a column that are contiguous (a conv weight's gradient, a linear layer's
/// for one output): a dot product per row. `matrixmultiply` would pack the whole of `a` and pad the column to its
/// kernel's width, ten times slower here.
fn column<T: Gemm>(k: usize, a: Mat<T>, b: Mat<T>, c: &mut [T]) {
    let col = &b.data[b.offset..b.offset + k];
    for (i, out) in c.iter_mut().enumerate() {
        let start = a.offset + i * a.rs as usize;
        *out = dot(&a.data[start..start + k], col);
    }
}

/// Σ x[p]·y[p] in eight lanes by position mod 8 (which the compiler vectorises), the lanes then added in order: an
/// order fixed by the length alone.
fn dot<T: Gemm>(x: &[T], y: &[T]) -> T {
    let mut lanes = [T::default(); 8];
    let (xs, ys) = (x.chunks_exact(8), y.chunks_exact(8));
    for (l, (&p, &q)) in xs.remainder().iter().zip(ys.remainder()).enumerate() {
        lanes[l] = p * q;
    }
    for (p, q) in xs.zip(ys) {
        for l in 0..8 {
            lanes[l] = lanes[l] + p[l] * q[l];
        }
    }
    lanes.iter().fold(T::default(), |s, &v| s + v)
}

/// `batch` products of (m x k) @ (k x n): batch `i`'s operands are `a(i)` and `b(i)`, its rows split into tasks of
/// `ROWS`, each writing its own rows of the contiguous result.
pub fn product<'a, T: Gemm + 'a>(
    a: impl Fn(usize) -> Mat<'a, T> + Sync,
    b: impl Fn(usize) -> Mat<'a, T> + Sync,
    (batch, m, k, n): (usize, usize, usize, usize),
) -> Vec<T> {
    let mut out = vec![T::default(); batch * m * n];
    if n == 0 || m == 0 {
        return out;
    }
    let per = m.div_ceil(ROWS);
    let task = |(t, c): (usize, &mut [T])| {
        let (bi, r0) = (t / per, (t % per) * ROWS);
        let rows = c.len() / n;
        let mut x = a(bi);
        x.offset = (x.offset as isize + r0 as isize * x.rs) as usize;
        T::gemm(rows, k, n, x, b(bi), c);
    };
    // Tasks never cross a batch: each batch's rows are chunked alone.
    let chunks: Vec<&mut [T]> = out.chunks_mut(m * n).flat_map(|c| c.chunks_mut(ROWS * n)).collect();
    #[cfg(not(target_arch = "wasm32"))]
    chunks.into_par_iter().enumerate().for_each(task);
    #[cfg(target_arch = "wasm32")]
    chunks.into_iter().enumerate().for_each(task);
    out
}

/// Contiguous row-major operands: batch i of x at i·m·k, of y at i·k·n.
pub fn dense<T: Gemm>(x: &[T], y: &[T], batch: usize, m: usize, k: usize, n: usize) -> Vec<T> {
    let a = |i: usize| Mat { data: x, offset: i * m * k, rs: k as isize, cs: 1 };
    let b = |i: usize| Mat { data: y, offset: i * k * n, rs: n as isize, cs: 1 };
    product(a, b, (batch, m, k, n))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same bytes on 1, 2 and 5 threads, and within the backward bound of the ordered sum: blocked products and
    /// one column (dot products, K past a multiple of 8 and below 8).
    #[test]
    fn any_thread_count_gives_the_same_bytes() -> Result<(), rayon::ThreadPoolBuildError> {
        for (batch, m, k, n) in [(3, 150, 301, 77), (2, 70, 301, 1), (2, 9, 5, 1)] {
            same_bytes_within_bound(batch, m, k, n)?;
        }
        Ok(())
    }

    fn same_bytes_within_bound(batch: usize, m: usize, k: usize, n: usize) -> Result<(), rayon::ThreadPoolBuildError> {
        let mut s = 1u32;
        let mut next = || {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (s >> 8) as f32 / (1u32 << 24) as f32 * 2.0 - 1.0
        };
        let x: Vec<f32> = (0..batch * m * k).map(|_| next()).collect();
        let y: Vec<f32> = (0..batch * k * n).map(|_| next()).collect();
        let on = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build()?;
            Ok::<_, rayon::ThreadPoolBuildError>(pool.install(|| dense(&x, &y, batch, m, k, n)))
        };
        let one = on(1)?;
        assert_eq!(one, on(2)?);
        assert_eq!(one, on(5)?);
        for bi in 0..batch {
            for i in 0..m {
                for j in 0..n {
                    let (mut exact, mut mag) = (0f64, 0f64);
                    for p in 0..k {
                        let t = x[(bi * m + i) * k + p] as f64 * y[(bi * k + p) * n + j] as f64;
                        exact += t;
                        mag += t.abs();
                    }
                    let got = one[(bi * m + i) * n + j] as f64;
                    let u = f32::EPSILON as f64 / 2.0;
                    let gamma = k as f64 * u / (1.0 - k as f64 * u);
                    assert!((got - exact).abs() <= gamma * mag, "({bi}, {i}, {j}): {got} vs {exact}");
                }
            }
        }
        Ok(())
    }
}
