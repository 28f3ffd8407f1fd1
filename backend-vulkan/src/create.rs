//! Creation kernels: fill with a host-encoded word pattern, Philox rand and randn.

use vkml_core::backend::Kernel;
use vkml_core::base::dtype::DType;
use vkml_core::base::scalar::Scalar;
use vkml_core::util::error::Result;
use vkml_core::util::narrow::{f32_to_bf16_bits, f32_to_f16_bits};

use crate::buffer::words;
use crate::launch::{slots_grid, Launch};
use crate::meta::{code, to_u32, Meta};

/// The two words a fill writes alternately, encoding `s` as `dtype` exactly as the CPU oracle does.
fn pattern(s: Scalar, dtype: DType) -> [u32; 2] {
    let f32_of = |s: Scalar| -> f32 {
        match s {
            Scalar::Float(f) => f as f32,
            Scalar::Int(i) => i as f32,
            Scalar::Bool(b) => b as u8 as f32,
        }
    };
    let i64_of = |s: Scalar, d: DType| -> i64 {
        match s {
            Scalar::Float(f) if d == DType::I32 => f as i32 as i64,
            Scalar::Float(f) => f as i64,
            Scalar::Int(i) => i,
            Scalar::Bool(b) => b as i64,
        }
    };
    match dtype {
        DType::F32 | DType::F64 => [f32_of(s).to_bits(); 2],
        DType::F16 => {
            let h = f32_to_f16_bits(f32_of(s)) as u32;
            [h | (h << 16); 2]
        }
        DType::BF16 => {
            let h = f32_to_bf16_bits(f32_of(s)) as u32;
            [h | (h << 16); 2]
        }
        DType::I32 => [i64_of(s, dtype) as i32 as u32; 2],
        DType::I64 => {
            let v = i64_of(s, dtype);
            [v as u32, (v >> 32) as u32]
        }
        DType::Bool => [(s.as_f64() != 0.0) as u32; 2],
    }
}

pub fn full(k: &Kernel, s: Scalar) -> Result<Launch> {
    let n = words(k.out.dtype, k.out.len);
    let p = pattern(s, k.out.dtype);
    let meta =
        Meta { n: to_u32(n)?, op: 0, out_dtype: code(k.out.dtype), extra2: [p[0], p[1], 0, 0], ..Default::default() };
    Ok(Launch { family: "create", meta, inputs: vec![], groups: slots_grid(n) })
}

pub fn random(k: &Kernel, seed: u64, offset: u64, digits: u32, normal: bool) -> Result<Launch> {
    let n = k.out.len;
    let meta = Meta {
        n: to_u32(n)?,
        op: if normal { 2 } else { 1 },
        out_dtype: code(k.out.dtype),
        extra: [seed as u32, (seed >> 32) as u32, offset as u32, (offset >> 32) as u32],
        extra2: [digits, 0, 0, 0],
        ..Default::default()
    };
    Ok(Launch { family: "create", meta, inputs: vec![], groups: slots_grid(n) })
}
