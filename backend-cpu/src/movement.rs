//! Copies: materialise a strided view, and write a value into a view of a base buffer (`Assign`).

use vkml_core::base::dtype::DType;
use vkml_core::base::view::View;

use crate::values::{for_lines, for_runs};

pub fn copy((bytes, dtype, view): (&[u8], DType, &View)) -> Vec<u8> {
    let w = dtype.itemsize();
    if view.numel() == 0 {
        return Vec::new(); // an empty view may carry any offset
    }
    if view.is_contiguous() {
        return bytes[view.offset * w..(view.offset + view.numel()) * w].to_vec();
    }
    let inner_strided = view.strides.last().is_some_and(|&s| s != 1);
    if let (true, 4, Ok(words)) = (inner_strided, w, bytemuck::try_cast_slice::<u8, u32>(bytes)) {
        // Single-element runs (a transpose, a broadcast): gathered as words, a line at a time.
        let mut out: Vec<u32> = Vec::with_capacity(view.numel());
        for_lines(view, |start, len, st| {
            out.extend((0..len as isize).map(|j| words[(start as isize + j * st) as usize]));
        });
        return bytemuck::cast_slice(&out).to_vec();
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
    let nd = target.ndim();
    if nd == 0 || target.strides[nd - 1] == 1 || target.numel() == 0 {
        let mut k = 0;
        for_runs(target, |i, len| {
            out[i * w..(i + len) * w].copy_from_slice(&vals[k * w..(k + len) * w]);
            k += len;
        });
        return out;
    }
    // The target's last dim is strided (a transposed weight's gradient): its lines are written one element at a
    // time, as words where the element is one.
    let mut k = 0;
    match (bytemuck::try_cast_slice_mut::<u8, u32>(&mut out), bytemuck::try_cast_slice::<u8, u32>(&vals)) {
        (Ok(o), Ok(v)) if w == 4 => for_lines(target, |start, len, st| {
            for (j, &x) in v[k..k + len].iter().enumerate() {
                o[(start as isize + j as isize * st) as usize] = x;
            }
            k += len;
        }),
        _ => for_lines(target, |start, len, st| {
            for j in 0..len {
                let at = (start as isize + j as isize * st) as usize;
                out[at * w..(at + 1) * w].copy_from_slice(&vals[(k + j) * w..(k + j + 1) * w]);
            }
            k += len;
        }),
    }
    out
}
