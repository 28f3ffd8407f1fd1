//! Raw-bit copies (shaders/movement.wgsl): materialising a view, and writing a value into a view of a base.

use vkml_core::backend::Kernel;
use vkml_core::base::buffer::Buffer;
use vkml_core::base::dtype::DType;
use vkml_core::base::view::View;
use vkml_core::util::error::{Error, Result};

use crate::launch::{slots_grid, Launch};
use crate::meta::{code, to_u32, Meta};

fn slots(dtype: DType, n: usize) -> usize {
    if matches!(dtype, DType::F16 | DType::BF16) {
        n.div_ceil(2)
    } else {
        n
    }
}

pub fn copy(k: &Kernel) -> Result<Launch> {
    let a = k.args.first().ok_or_else(|| Error::Backend("copy without input".into()))?;
    copy_view(k.out.dtype, &a.buffer, &a.view)
}

/// `view` of `buffer` materialised in row-major order.
pub fn copy_view(out: DType, buffer: &Buffer, view: &View) -> Result<Launch> {
    let mut meta = Meta::elementwise(0, out, &view.shape, &[(buffer.dtype, view)])?;
    meta.in_dtype[1] = code(buffer.dtype);
    let n = meta.n as usize;
    // The shader declares two inputs; a copy binds its source twice.
    Ok(Launch {
        family: "movement",
        meta,
        inputs: vec![buffer.clone(), buffer.clone()],
        groups: slots_grid(slots(out, n)),
    })
}

/// `target` selects elements of the contiguous base; the value view has the target's shape.
pub fn assign(k: &Kernel, target: &View) -> Result<Launch> {
    let (base, value) = match k.args.as_slice() {
        [b, v] => (b, v),
        _ => return Err(Error::Backend("assign needs a base and a value".into())),
    };
    // Nothing is assigned to an empty region: the result is the base. (The shader's inverse mapping would take a
    // size-0 dim's `% 0` for a match and read the empty value's buffer, whatever a pooled buffer held.)
    if target.shape.contains(&0) {
        return copy(k);
    }
    // The shader inverts the mapping for positive strides: a dim walked backwards (a flip) is walked forwards
    // from its last element instead, in the value too, which selects the same pairs.
    let (mut target, mut vview) = (target.clone(), value.view.clone());
    for d in 0..target.ndim() {
        if target.strides[d] < 0 && target.shape[d] > 0 {
            let last = target.shape[d] as isize - 1;
            target.offset = (target.offset as isize + last * target.strides[d]) as usize;
            target.strides[d] = -target.strides[d];
            vview.offset = (vview.offset as isize + last * vview.strides[d]) as usize;
            vview.strides[d] = -vview.strides[d];
        }
    }
    // Drop size-1 dims and sort the rest by decreasing target stride so the shader can invert the mapping.
    // Stride-0 dims (a fill through an expanded view) alias one element, whose value is the same everywhere.
    let mut dims: Vec<usize> = (0..target.ndim()).filter(|&d| target.shape[d] != 1 && target.strides[d] != 0).collect();
    dims.sort_by_key(|&d| std::cmp::Reverse(target.strides[d]));
    let t = View {
        shape: dims.iter().map(|&d| target.shape[d]).collect(),
        strides: dims.iter().map(|&d| target.strides[d]).collect(),
        offset: target.offset,
    };
    let v = View {
        shape: t.shape.clone(),
        strides: dims.iter().map(|&d| vview.strides[d]).collect(),
        offset: vview.offset,
    };
    let mut meta = Meta { op: 1, out_dtype: code(k.out.dtype), ..Default::default() };
    meta.set_shape(&t.shape)?;
    meta.set_input(0, base.buffer.dtype, &t)?;
    meta.set_input(1, value.buffer.dtype, &v)?;
    let n = k.out.len;
    meta.n = to_u32(n)?;
    Ok(Launch {
        family: "movement",
        meta,
        inputs: vec![base.buffer.clone(), value.buffer.clone()],
        groups: slots_grid(slots(k.out.dtype, n)),
    })
}
