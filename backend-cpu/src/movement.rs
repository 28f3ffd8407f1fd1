//! Copies: materialise a strided view, and write a value into a view of a base buffer (`Assign`).

use vkml_core::base::dtype::DType;
use vkml_core::base::view::View;

use crate::threads::each_chunk;
use crate::values::{for_lines, for_runs};

pub fn copy((bytes, dtype, view): (&[u8], DType, &View)) -> Vec<u8> {
    let w = dtype.itemsize();
    if view.numel() == 0 {
        return Vec::new(); // an empty view may carry any offset
    }
    if view.is_contiguous() {
        return bytes[view.offset * w..(view.offset + view.numel()) * w].to_vec();
    }
    // Not contiguous, so at least one dim: each of the outermost dim's slices is copied into its own part of the
    // output, on threads where it is large (an unfold's blocks were 2 GB/s on one).
    let mut out = vec![0u8; view.numel() * w];
    crate::heap::huge_pages(&mut out);
    let part = out.len() / view.shape[0];
    let slice = |i: usize| View {
        shape: view.shape[1..].to_vec(),
        strides: view.strides[1..].to_vec(),
        offset: (view.offset as isize + i as isize * view.strides[0]) as usize,
    };
    let fill = |i: usize, dst: &mut [u8]| copy_into(bytes, w, &slice(i), dst);
    if out.len() >= PARALLEL_BYTES {
        each_chunk(&mut out, part, fill);
    } else {
        out.chunks_mut(part).enumerate().for_each(|(i, dst)| fill(i, dst));
    }
    out
}

/// Copies smaller than this stay on the calling thread (a task costs more than the copy).
const PARALLEL_BYTES: usize = 1 << 18;

/// The elements under `view` written in row-major order into `dst`, which holds exactly them.
fn copy_into(bytes: &[u8], w: usize, view: &View, dst: &mut [u8]) {
    let inner_strided = view.strides.last().is_some_and(|&s| s != 1);
    let words = (bytemuck::try_cast_slice::<u8, u32>(bytes), bytemuck::try_cast_slice_mut::<u8, u32>(dst));
    if let (true, 4, (Ok(src), Ok(dst))) = (inner_strided, w, words) {
        // Single-element runs (a transpose, a broadcast): moved as words, a line at a time.
        let mut k = 0;
        for_lines(view, |start, len, st| {
            for (j, d) in dst[k..k + len].iter_mut().enumerate() {
                *d = src[(start as isize + j as isize * st) as usize];
            }
            k += len;
        });
        return;
    }
    let mut k = 0;
    for_runs(view, |i, len| {
        dst[k..k + len * w].copy_from_slice(&bytes[i * w..(i + len) * w]);
        k += len * w;
    });
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
