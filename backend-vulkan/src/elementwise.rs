//! The shared launch for families driven by shaders/elementwise.wgsl.in: inputs read through their views, one slot
//! per output element (two for packed 16-bit outputs).

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
