//! Gather and scatter on Vulkan (full and floor) against the CPU oracle: every dtype, strided and expanded
//! indices, repeated targets (last wins; sums in index order) — bit for bit, as the op table declares.

use vkml_core::api::gather::{gather_unchecked, index_select, scatter_unchecked};
use vkml_core::api::Tensor;
use vkml_core::base::buffer::DeviceId;
use vkml_core::base::dtype::DType;
use vkml_core::Result;
use vkml_tests::{random_f32, same, Gen};

fn ints(g: &mut Gen, shape: &[usize], below: usize, dtype: DType, dev: DeviceId) -> Result<Tensor> {
    let v: Vec<u8> = (0..shape.iter().product::<usize>()).flat_map(|_| (g.below(below) as i64).to_le_bytes()).collect();
    Tensor::from_bytes(v, shape, DType::I64, dev)?.to_dtype(dtype)
}

#[test]
fn gather_every_dtype_and_dim() -> Result<()> {
    for dtype in [DType::F32, DType::F16, DType::BF16, DType::I32, DType::I64, DType::Bool] {
        for dim in 0..3 {
            same(dim as u64 + 1, |g, dev| {
                let x = random_f32(g, &[5, 6, 7], -9.0, 9.0, dev)?.to_dtype(dtype)?;
                let mut shape = [4, 3, 5];
                shape[dim] = 8;
                let idx = ints(g, &shape, [5, 6, 7][dim], DType::I64, dev)?;
                gather_unchecked(&x.permute(&[0, 1, 2])?, dim, &idx)
            })?;
        }
    }
    // A transposed source and an int32 index read through a stepped view.
    same(9, |g, dev| {
        let x = random_f32(g, &[6, 9], -1.0, 1.0, dev)?.t()?;
        let idx = ints(g, &[9, 12], 6, DType::I32, dev)?;
        gather_unchecked(&x, 1, &idx.narrow(1, 0, 12)?.t()?.t()?)
    })?;
    same(10, |g, dev| index_select(&random_f32(g, &[7, 3], -1.0, 1.0, dev)?, 0, &ints(g, &[11], 7, DType::I64, dev)?))
}

#[test]
fn scatter_and_scatter_add_resolve_duplicates_in_order() -> Result<()> {
    for dtype in [DType::F32, DType::F16, DType::BF16, DType::I32, DType::I64, DType::Bool] {
        for add in [false, true] {
            for dim in 0..2 {
                same(20 + dim as u64, |g, dev| {
                    let x = random_f32(g, &[6, 7], -9.0, 9.0, dev)?.to_dtype(dtype)?;
                    let src = random_f32(g, &[9, 9], -9.0, 9.0, dev)?.to_dtype(dtype)?;
                    // Few distinct targets, so most are hit several times; the index covers part of x.
                    let shape = if dim == 0 { [8, 5] } else { [4, 8] };
                    let idx = ints(g, &shape, 3, DType::I64, dev)?;
                    let src = src.narrow(0, 0, shape[0] as i64)?.narrow(1, 0, shape[1] as i64)?;
                    scatter_unchecked(&x, dim, &idx, &src, add)
                })?;
            }
        }
    }
    Ok(())
}

#[test]
fn argsort_matches_the_oracle_with_ties_and_nan() -> Result<()> {
    for dtype in [DType::F32, DType::F16, DType::BF16, DType::I32, DType::I64, DType::Bool] {
        for descending in [false, true] {
            same(30, |g, dev| {
                // Few distinct values (ties), a NaN and signed zeros among them.
                let mut x = random_f32(g, &[6, 40], -3.0, 3.0, dev)?.unary(vkml_core::graph::op::UnaryOp::Round)?;
                if dtype.is_float() {
                    let specials = Tensor::from_bytes(
                        [f32::NAN, -0.0, 0.0, f32::INFINITY].iter().flat_map(|v| v.to_le_bytes()).collect(),
                        &[1, 4],
                        DType::F32,
                        dev,
                    )?;
                    x = vkml_core::api::join::cat(&[x, specials.expand(&[6, 4])?], 1)?;
                }
                vkml_core::api::sort::argsort(&x.to_dtype(dtype)?.t()?, 0, descending)
            })?;
        }
    }
    Ok(())
}

#[test]
fn scans_match_the_oracle_bit_for_bit() -> Result<()> {
    for dtype in [DType::F32, DType::F16, DType::BF16, DType::I32, DType::I64, DType::Bool] {
        for dim in [0i64, 1] {
            same(40, |g, dev| {
                let x = random_f32(g, &[7, 33], 0.5, 1.5, dev)?.to_dtype(dtype)?;
                vkml_core::api::scan::cumsum(&x.t()?, dim, None)
            })?;
            same(41, |g, dev| {
                let x = random_f32(g, &[7, 33], 0.5, 1.5, dev)?.to_dtype(dtype)?;
                vkml_core::api::scan::cumprod(&x, dim, None)
            })?;
        }
    }
    Ok(())
}
