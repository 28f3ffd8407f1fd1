//! Copies: materialise a strided view, and write a value into a view of a base buffer (`Assign`).

use vkml_core::base::dtype::DType;
use vkml_core::base::view::View;

use crate::values::for_runs;

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
