//! The per-dispatch uniform (`Meta` in shaders/common.wgsl): sizes, op code, dtype codes, up to 8 dims and the
//! strides and offsets of up to 3 inputs, and a fused program. Shapes travel in a uniform buffer because the floor has no immediates.

use bytemuck::{Pod, Zeroable};
use vkml_core::base::dtype::DType;
use vkml_core::base::view::{coalesce, View};
use vkml_core::util::error::{Error, Result};

/// Most dims a kernel indexes (the uniform holds 8); a tensor with more is an `Unsupported` error on Vulkan.
pub const MAX_RANK: usize = 8;

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable, Default)]
pub struct Meta {
    pub n: u32,
    pub rank: u32,
    pub op: u32,
    pub out_dtype: u32,
    pub in_dtype: [u32; 4],
    pub offset: [u32; 4],
    pub shape: [u32; 8],
    pub strides: [[i32; 8]; 3],
    pub extra: [u32; 4],
    pub extra2: [u32; 4],
    /// A fused program's words (shaders/fused.wgsl); the window family's pad and image size (shaders/window.wgsl);
    /// zeros for every other family.
    pub prog: [u32; 32],
}

/// The shader's dtype code.
pub fn code(d: DType) -> u32 {
    match d {
        DType::F32 => 0,
        DType::F16 => 1,
        DType::BF16 => 2,
        DType::I32 => 3,
        DType::I64 => 4,
        DType::Bool => 5,
        // F64 never reaches a kernel: `check` rejects it.
        DType::F64 => 0,
    }
}

impl Meta {
    /// Meta for an elementwise kernel over `shape` reading `views` (one per input).
    /// Dims that every input walks contiguously are merged first, so the shader's per-element index loop runs over
    /// as few dims as the views allow (once for contiguous and broadcast-free inputs).
    pub fn elementwise(op: u32, out: DType, shape: &[usize], ins: &[(DType, &View)]) -> Result<Meta> {
        let mut m = Meta { op, out_dtype: code(out), ..Default::default() };
        let (shape, strides) = coalesce(shape, &ins.iter().map(|(_, v)| v.strides.as_slice()).collect::<Vec<_>>());
        m.set_shape(&shape)?;
        m.n = to_u32(shape.iter().product())?;
        for (k, ((d, v), st)) in ins.iter().zip(strides).enumerate() {
            m.set_input(k, *d, &View { shape: shape.clone(), strides: st, offset: v.offset })?;
        }
        Ok(m)
    }

    pub fn set_shape(&mut self, shape: &[usize]) -> Result<()> {
        if shape.len() > MAX_RANK {
            return Err(Error::Unsupported(format!(
                "tensors of more than {MAX_RANK} dims are not supported on vulkan (got {})",
                shape.len()
            )));
        }
        self.rank = shape.len() as u32;
        for (i, &s) in shape.iter().enumerate() {
            self.shape[i] = to_u32(s)?;
        }
        Ok(())
    }

    pub fn set_input(&mut self, k: usize, dtype: DType, v: &View) -> Result<()> {
        self.in_dtype[k] = code(dtype);
        self.offset[k] = to_u32(v.offset)?;
        for (i, &s) in v.strides.iter().enumerate().take(MAX_RANK) {
            self.strides[k][i] =
                i32::try_from(s).map_err(|_| Error::Unsupported("stride too large for vulkan".into()))?;
        }
        Ok(())
    }
}

pub fn to_u32(x: usize) -> Result<u32> {
    u32::try_from(x).map_err(|_| Error::Unsupported(format!("size {x} exceeds 2^32 on vulkan")))
}
