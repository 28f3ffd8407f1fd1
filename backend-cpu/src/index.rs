//! Gather and scatter along one dim. Scatter walks the index in row-major order, so the sources pointing at one
//! output element arrive in index order: the last one wins, sums add in that order (as the shader does).

use vkml_core::base::dtype::DType;
use vkml_core::base::view::View;

use crate::movement::copy;
use crate::values::{class, encode, for_lines, gather as gather_as, load, Values};

type In<'a> = (&'a [u8], DType, &'a View);

/// The index values, clamped into [0, n) (the caller checked them; the clamp keeps every access in bounds).
fn positions(index: In, n: usize) -> Vec<usize> {
    match gather_as(index.0, index.1, index.2, crate::values::Class::I64) {
        Values::I64(v) => v.into_iter().map(|k| k.clamp(0, n.saturating_sub(1) as i64) as usize).collect(),
        _ => Vec::new(),
    }
}

/// The buffer position of each element (row-major over `shape`) of `view` with its coordinate along `dim`
/// replaced by `pos` (one per element, in the same order): an odometer over the view's lines, no per-element work
/// beyond an add.
fn moved(view: &View, shape: &[usize], dim: usize, pos: &[usize]) -> Vec<usize> {
    let mut lines = View { shape: shape.to_vec(), strides: view.strides.clone(), offset: view.offset };
    let step = lines.strides[dim];
    lines.strides[dim] = 0;
    let mut out = Vec::with_capacity(pos.len());
    for_lines(&lines, |start, len, stride| {
        for t in 0..len {
            let k = pos[out.len()] as isize;
            out.push((start as isize + t as isize * stride + k * step) as usize);
        }
    });
    out
}

pub fn gather(src: In, index: In, dim: usize, shape: &[usize]) -> Vec<u8> {
    let w = src.1.itemsize();
    let pos = positions(index, src.2.shape[dim]);
    let mut out = Vec::with_capacity(pos.len() * w);
    for i in moved(src.2, shape, dim, &pos) {
        out.extend_from_slice(&src.0[i * w..(i + 1) * w]);
    }
    out
}

/// The base with src's elements written (or added) where the index points, along `dim`.
pub fn scatter(base: In, index: In, src: In, dim: usize, add: bool, out: DType) -> Vec<u8> {
    let shape = &base.2.shape;
    let pos = positions(index, shape[dim]);
    let targets = moved(&View::contiguous(shape), &index.2.shape, dim, &pos);
    if !add {
        let w = out.itemsize();
        let (mut bytes, vals) = (copy(base), copy(src));
        for (p, &t) in targets.iter().enumerate() {
            bytes[t * w..(t + 1) * w].copy_from_slice(&vals[p * w..(p + 1) * w]);
        }
        return bytes;
    }
    let sum = match (load(base.0, base.1, base.2), gather_as(src.0, src.1, src.2, class(out))) {
        (Values::F32(mut acc), Values::F32(v)) => {
            targets.iter().zip(v).for_each(|(&t, x)| acc[t] += x);
            Values::F32(acc)
        }
        (Values::F64(mut acc), Values::F64(v)) => {
            targets.iter().zip(v).for_each(|(&t, x)| acc[t] += x);
            Values::F64(acc)
        }
        (Values::I64(mut acc), Values::I64(v)) => {
            targets.iter().zip(v).for_each(|(&t, x)| acc[t] = acc[t].wrapping_add(x));
            Values::I64(acc)
        }
        (acc, _) => acc,
    };
    encode(&sum, out)
}
