//! An elementwise kernel's operands read a block at a time (a contiguous run in place, a strided or broadcast view
//! through its strides, never materialised whole; values of another dtype converted once), and the loop that hands
//! an output's blocks to threads.

use vkml_core::base::dtype::DType;
use vkml_core::base::view::View;

use crate::threads::each_chunk;
use crate::values::{class, f32_run, gather, words, Values};

/// Elements per block: a kernel's few blocks of scratch stay in the core's cache.
pub const BLOCK: usize = 2048;
/// Blocks per parallel task.
const TASK: usize = 8;

/// One operand's n values.
pub enum Column<'a, T> {
    Run(&'a [T]),
    View(&'a [T], View),
    Owned(Vec<T>),
}

impl<T: Copy> Column<'_, T> {
    pub fn len(&self) -> usize {
        match self {
            Column::Run(xs) => xs.len(),
            Column::View(_, v) => v.numel(),
            Column::Owned(xs) => xs.len(),
        }
    }

    /// Elements `start..start + dst.len()` into `dst`.
    pub fn read(&self, start: usize, dst: &mut [T]) {
        match self {
            Column::Run(xs) => dst.copy_from_slice(&xs[start..start + dst.len()]),
            Column::View(xs, v) => read_range(xs, v, start, dst),
            Column::Owned(xs) => dst.copy_from_slice(&xs[start..start + dst.len()]),
        }
    }
}

impl<'a> Column<'a, f32> {
    /// `(b, d, v)` as float32: read in place where the buffer holds float32 (little-endian, aligned), else gathered
    /// and converted once; `None` for a dtype outside float32's class.
    pub fn f32(b: &'a [u8], d: DType, v: &View) -> Option<Self> {
        if let Some(xs) = f32_run(b, d, v) {
            return Some(Column::Run(xs));
        }
        if let (DType::F32, Some(xs)) = (d, words(b)) {
            return Some(Column::View(xs, v.coalesced()));
        }
        match gather(b, d, v, class(d)) {
            Values::F32(x) => Some(Column::Owned(x)),
            Values::F64(_) | Values::I64(_) => None,
        }
    }
}

impl<'a> Column<'a, u8> {
    /// A bool tensor's bytes (0 or 1), read in place.
    pub fn bools(b: &'a [u8], v: &View) -> Self {
        match b.get(v.offset..v.offset + v.numel()) {
            Some(run) if v.is_contiguous() => Column::Run(run),
            _ => Column::View(b, v.coalesced()),
        }
    }
}

/// `f(scratch, start, block)` for each block of `out` (`BLOCK` elements from element `start`), blocks grouped into
/// tasks on threads, each task with its own `scratch()`: elements are independent, so the split changes no byte.
pub fn blocks<T: Send, S>(
    out: &mut [T],
    scratch: impl Fn() -> S + Sync + Send,
    f: impl Fn(&mut S, usize, &mut [T]) + Sync + Send,
) {
    each_chunk(out, TASK * BLOCK, |t, chunk| {
        let mut s = scratch();
        for (b, dst) in chunk.chunks_mut(BLOCK).enumerate() {
            f(&mut s, (t * TASK + b) * BLOCK, dst);
        }
    });
}

/// Elements `start..start + dst.len()` of `view`, in row-major order, from `xs` into `dst`: the position of `start`
/// is found once, then lines are copied, filled (a broadcast) or stepped.
pub fn read_range<T: Copy>(xs: &[T], view: &View, start: usize, dst: &mut [T]) {
    let nd = view.ndim();
    if nd == 0 {
        dst.fill(xs[view.offset]);
        return;
    }
    let mut idx = vec![0usize; nd];
    let mut rest = start;
    for d in (0..nd).rev() {
        idx[d] = rest % view.shape[d].max(1);
        rest /= view.shape[d].max(1);
    }
    let at = |idx: &[usize]| {
        (view.offset as isize + idx.iter().zip(&view.strides).map(|(&i, &s)| i as isize * s).sum::<isize>()) as usize
    };
    let (len, stride) = (view.shape[nd - 1], view.strides[nd - 1]);
    let mut k = 0;
    while k < dst.len() {
        let take = (len - idx[nd - 1]).min(dst.len() - k);
        let first = at(&idx);
        let line = &mut dst[k..k + take];
        match stride {
            0 => line.fill(xs[first]),
            1 => line.copy_from_slice(&xs[first..first + take]),
            _ => {
                line.iter_mut().enumerate().for_each(|(j, d)| *d = xs[(first as isize + j as isize * stride) as usize])
            }
        }
        k += take;
        idx[nd - 1] = 0;
        for d in (0..nd - 1).rev() {
            idx[d] += 1;
            if idx[d] < view.shape[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}
