//! Copies: materialise a strided view, and write a value into a view of a base buffer (`Assign`).

use vkml_core::base::dtype::DType;
use vkml_core::base::view::View;

/// `f(first, len)` for each run of consecutive buffer elements under `view`, in row-major order: the innermost dim
/// is one run where its stride is 1, else every element is its own. Moving runs instead of single elements (through
/// an index list) made a conv2d's im2col stack 20 times faster.
fn for_runs(view: &View, mut f: impl FnMut(usize, usize)) {
    let nd = view.ndim();
    if view.numel() == 0 {
        return;
    }
    let (outer, len) = match view.strides.last() {
        Some(1) => (nd - 1, view.shape[nd - 1]),
        _ => (nd, 1),
    };
    let mut idx = vec![0usize; outer];
    let mut at = view.offset as isize;
    loop {
        f(at as usize, len);
        let mut d = outer;
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            idx[d] += 1;
            at += view.strides[d];
            if idx[d] < view.shape[d] {
                break;
            }
            at -= view.strides[d] * view.shape[d] as isize;
            idx[d] = 0;
        }
    }
}

pub fn copy((bytes, dtype, view): (&[u8], DType, &View)) -> Vec<u8> {
    let w = dtype.itemsize();
    if view.numel() == 0 {
        return Vec::new(); // an empty view may carry any offset
    }
    if view.is_contiguous() {
        return bytes[view.offset * w..(view.offset + view.numel()) * w].to_vec();
    }
    let mut out = Vec::with_capacity(view.numel() * w);
    for_runs(view, |i, len| out.extend_from_slice(&bytes[i * w..(i + len) * w]));
    out
}

/// A copy of the (contiguous) base with the elements under `target` replaced by `value`'s elements in order.
pub fn assign(base: (&[u8], DType, &View), target: &View, value: (&[u8], DType, &View)) -> Vec<u8> {
    let w = base.1.itemsize();
    let mut out = copy(base);
    let vals = copy(value);
    let mut k = 0;
    for_runs(target, |i, len| {
        out[i * w..(i + len) * w].copy_from_slice(&vals[k * w..(k + len) * w]);
        k += len;
    });
    out
}
