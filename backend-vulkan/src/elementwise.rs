//! The shared launches of the elementwise families: those driven by shaders/elementwise.wgsl.in (inputs read through
//! their views, one slot per output element, two for packed 16-bit outputs), and the flat ones driven by
//! shaders/vectors.wgsl.in (four float32 elements at a time).

use vkml_core::backend::Kernel;
use vkml_core::base::dtype::DType;
use vkml_core::util::error::Result;

use crate::launch::{driver_grid, Launch};
use crate::meta::Meta;

pub fn launch(k: &Kernel, family: &'static str, op: u32) -> Result<Launch> {
    let ins: Vec<_> = k.args.iter().map(|a| (a.buffer.dtype, &a.view)).collect();
    let meta = Meta::elementwise(op, k.out.dtype, &k.shape, &ins)?;
    let n = meta.n as usize;
    let slots = if matches!(k.out.dtype, DType::F16 | DType::BF16) { n.div_ceil(2) } else { n };
    Ok(Launch { family, meta, inputs: k.args.iter().map(|a| a.buffer.clone()).collect(), groups: driver_grid(slots) })
}

/// `k` on the flat family `flat_ops.0` where `flat_ops.1`, the ops that shader computes (the build script reads them
/// from its `case`s), has op `name` and the kernel fits; else on the generic `family`.
pub fn flat_or_generic(
    k: &Kernel,
    family: &'static str,
    (name, op): (&str, u32),
    flat_ops: (&'static str, &[&str]),
    broadcast: bool,
) -> Result<Launch> {
    if flat_ops.1.contains(&name) {
        if let Some(l) = flat(k, flat_ops.0, op, broadcast)? {
            return Ok(l);
        }
    }
    launch(k, family, op)
}

/// The flat launch of float32 kernel `k` on `family` (shaders/vectors.wgsl.in), or None where it does not fit: after
/// coalescing, each operand walks one dim with stride 1 from an aligned first element (kind 0 in `extra`) or, where
/// `broadcast`, repeats one value (stride 0, kind 1).
fn flat(k: &Kernel, family: &'static str, op: u32, broadcast: bool) -> Result<Option<Launch>> {
    if k.out.dtype != DType::F32 || k.args.iter().any(|a| a.buffer.dtype != DType::F32) {
        return Ok(None);
    }
    let ins: Vec<_> = k.args.iter().map(|a| (a.buffer.dtype, &a.view)).collect();
    let mut meta = Meta::elementwise(op, k.out.dtype, &k.shape, &ins)?;
    if meta.rank != 1 {
        return Ok(None);
    }
    for i in 0..k.args.len() {
        meta.extra[i] = match meta.strides[i][0] {
            1 if meta.offset[i] % 4 == 0 => 0,
            0 if broadcast => 1,
            _ => return Ok(None),
        };
    }
    let vecs = (meta.n as usize).div_ceil(4);
    let inputs = k.args.iter().map(|a| a.buffer.clone()).collect();
    Ok(Some(Launch { family, meta, inputs, groups: driver_grid(vecs) }))
}
