//! Mutation-kill tests for the reduce, matmul and movement families (shaders/reduce.wgsl, reduce_flat.wgsl,
//! matmul.wgsl, movement.wgsl, backend-cpu/src/reduce.rs, matmul.rs and movement.rs): every ReduceOp over sizes
//! around the workgroup width with ties and NaNs, matmuls at every tile edge, and copies and writes through strided
//! views.

use vkml_core::api::elementwise::binary;
use vkml_core::api::index::IndexItem;
use vkml_core::api::Tensor;
use vkml_core::base::buffer::DeviceId;
use vkml_core::base::dtype::DType;
use vkml_core::graph::op::BinaryOp;
use vkml_core::tensor::promote::Operand;
use vkml_core::Result;
use vkml_tests::{check, check_terms, from_f32, from_i64, matmul_operands, oracle_in, random_f32, Gen};

/// Small integers as floats (so maxima tie and sums are exact), with a NaN in some rows when `nan`.
fn tied(g: &mut Gen, shape: &[usize], nan: bool, dev: DeviceId) -> Result<Tensor> {
    let n: usize = shape.iter().product();
    let v: Vec<f32> = (0..n)
        .map(|_| if nan && g.below(97) == 0 { f32::NAN } else { [-0.0, 0.0, 1.0, -1.0, 0.5, -0.5][g.below(6)] })
        .collect();
    from_f32(&v, shape, dev)
}

fn reduce(t: &Tensor, op: &str, dims: &[i64]) -> Result<Tensor> {
    let dim = dims.first().copied();
    match op {
        "sum" => t.sum(Some(dims), false),
        "amax" => t.amax(Some(dims), true),
        "amin" => t.amin(Some(dims), false),
        "argmax" => t.argmax(dim, false),
        _ => t.argmin(dim, true),
    }
}

/// The reductions that apply over `dims` (argmax and argmin take one dim).
fn reductions(dims: &[i64]) -> impl Iterator<Item = &'static str> + '_ {
    ["sum", "amax", "amin", "argmax", "argmin"].into_iter().filter(move |op| !(op.starts_with("arg") && dims.len() > 1))
}

/// A float input of `shape` with ties (and NaNs with `nan`).
fn tied_input(shape: &'static [usize], nan: bool) -> impl Fn(&mut Gen, DeviceId) -> Result<Vec<Tensor>> + Copy {
    move |g, dev| Ok(vec![tied(g, shape, nan, dev)?])
}

#[test]
fn reduce_every_op_size_and_dim() -> Result<()> {
    // Inner sizes below, at and past the 128-wide workgroup; reductions over leading, middle and several dims make
    // the input strided.
    let cases: [(&[usize], &[i64]); 9] = [
        (&[3, 1], &[1]),
        (&[2, 127], &[1]),
        (&[2, 128], &[-1]),
        (&[3, 129], &[1]),
        (&[1, 1000], &[1]),
        (&[300, 2], &[0]),
        (&[4, 33, 5], &[1]),
        (&[4, 33, 5], &[0, 2]),
        (&[6, 7, 8], &[2, 1]),
    ];
    for (k, (shape, dims)) in cases.into_iter().enumerate() {
        every_input(k as u64, shape, dims)?;
    }
    Ok(())
}

/// Every reduction over `dims` of `shape`: tied floats with and without NaNs, int64 of every magnitude, small int32
/// and float16 inputs.
fn every_input(seed: u64, shape: &'static [usize], dims: &'static [i64]) -> Result<()> {
    for op in reductions(dims) {
        for nan in [false, true] {
            check(op, seed, tied_input(shape, nan), |t| reduce(&t[0], op, dims))?;
        }
        let ints = move |g: &mut Gen, dev: DeviceId| -> Result<Vec<Tensor>> {
            let n: usize = shape.iter().product();
            let v: Vec<i64> = (0..n).map(|_| (g.next_u64() as i64) >> (1 + g.below(62))).collect();
            Ok(vec![from_i64(&v, shape, DType::I64, dev)?])
        };
        check(op, seed, ints, |t| reduce(&t[0], op, dims))?;
        let small = move |g: &mut Gen, dev: DeviceId| -> Result<Vec<Tensor>> {
            let n: usize = shape.iter().product();
            let v: Vec<i64> = (0..n).map(|_| g.below(5) as i64 - 2).collect();
            Ok(vec![from_i64(&v, shape, DType::I32, dev)?])
        };
        check(op, seed, small, |t| reduce(&t[0], op, dims))?;
        let half = move |g: &mut Gen, dev: DeviceId| -> Result<Vec<Tensor>> {
            Ok(vec![tied(g, shape, false, dev)?.to_dtype(DType::F16)?])
        };
        check(op, seed, half, |t| reduce(&t[0], op, dims))?;
    }
    Ok(())
}

#[test]
fn reduce_columns_and_trailing_stages() -> Result<()> {
    // Columns (shaders/reduce.wgsl's extra.z = 2): 1,024 outputs and more side by side, each one's elements a row
    // apart, 8 outputs to a workgroup (the last part full) and sixteen invocations to an output; rows just past the
    // short path's 32. Then reductions whose trailing dims go first (core's `trailing_stage`).
    let cases: [(&[usize], &[i64]); 4] =
        [(&[300, 1030], &[0]), (&[33, 1027], &[0]), (&[6, 5, 4, 3], &[0, 2, 3]), (&[5, 4, 9], &[0, 2])];
    for (k, (shape, dims)) in cases.into_iter().enumerate() {
        every_input(50 + k as u64, shape, dims)?;
    }
    // One extremum per column, in each slice's place: the index each invocation folds must be its own.
    for (k, at) in [0usize, 1, 2, 15, 37, 298].into_iter().enumerate() {
        let spike = move |_: &mut Gen, dev: DeviceId| -> Result<Vec<Tensor>> {
            let v: Vec<f32> =
                (0..300 * 1030).map(|i| if i / 1030 == (at + i % 1030) % 300 { 5.0 } else { 1.0 }).collect();
            Ok(vec![from_f32(&v, &[300, 1030], dev)?])
        };
        check("argmax", 60 + k as u64, spike, |t| reduce(&t[0], "argmax", &[0]))?;
        check("argmin", 60 + k as u64, spike, |t| reduce(&t[0].neg()?, "argmin", &[0]))?;
    }
    Ok(())
}

/// A view taken of a test input before it is reduced.
type Reshape = fn(&Tensor) -> Result<Tensor>;

#[test]
fn reduce_flat_rows_long_unaligned_and_chunked() -> Result<()> {
    // The vector kernel (shaders/reduce_flat.wgsl): rows longer than four rounds of the workgroup's vec4s (its
    // unrolled loop and the rest), rows starting off a multiple of four (a head) and ending off one (a tail), narrowed
    // views, and kept dims that merge into two (the chunks of a split reduction); ties (so that the first index
    // must win across invocations, the head and the tail), then NaNs as well (which hide every other element).
    let rows = |shape: &'static [usize], view: Reshape, nan: bool| {
        move |g: &mut Gen, dev: DeviceId| -> Result<Vec<Tensor>> { Ok(vec![view(&tied(g, shape, nan, dev)?)?]) }
    };
    let whole: Reshape = |t| Ok(t.clone());
    let narrowed: Reshape = |t| t.narrow(1, 3, 2090);
    let two_kept: Reshape = |t| t.narrow(1, 1, 5)?.narrow(2, 2, 37);
    let cases: [(&'static [usize], Reshape); 4] =
        [(&[2, 2101], whole), (&[3, 2101], narrowed), (&[5, 4099], whole), (&[3, 9, 40], two_kept)];
    for (k, (shape, view)) in cases.into_iter().enumerate() {
        for op in reductions(&[-1]) {
            for nan in [false, true] {
                check(op, 30 + k as u64, rows(shape, view, nan), |t| reduce(&t[0], op, &[-1]))?;
            }
        }
    }
    // A row's one maximum (and minimum) in each round of the unrolled loop's four loads, in the rest, and in the
    // middle of a three-element tail: the index each load carries must be its own, and no element may be skipped.
    let spikes = [(2101usize, 100usize), (2101, 600), (2101, 1100), (2101, 1600), (2101, 2050), (4099, 4097)];
    for (k, (len, at)) in spikes.into_iter().enumerate() {
        let spike = move |_: &mut Gen, dev: DeviceId| -> Result<Vec<Tensor>> {
            let v: Vec<f32> = (0..len).map(|i| if i == at { 5.0 } else { (i % 7) as f32 - 3.0 }).collect();
            Ok(vec![from_f32(&v, &[1, len], dev)?])
        };
        check("argmax", 40 + k as u64, spike, |t| reduce(&t[0], "argmax", &[-1]))?;
        check("argmin", 40 + k as u64, spike, |t| reduce(&t[0].neg()?, "argmin", &[-1]))?;
    }
    Ok(())
}

#[test]
fn reduce_signed_zero_ties() -> Result<()> {
    // Rows whose extreme is a zero of both signs: the first one wins, on the GPU and in the oracle.
    for (op, other) in [("amax", -1.0f32), ("amin", 1.0), ("argmax", -1.0), ("argmin", 1.0)] {
        let mk = move |g: &mut Gen, dev: DeviceId| -> Result<Vec<Tensor>> {
            let v: Vec<f32> = (0..8 * 37).map(|_| [0.0, -0.0, other][g.below(3)]).collect();
            Ok(vec![from_f32(&v, &[8, 37], dev)?])
        };
        check(op, 22, mk, |t| reduce(&t[0], op, &[1]))?;
        check(op, 22, mk, oracle_in(DType::F64, move |t| reduce(&t[0], op, &[1])))?;
    }
    Ok(())
}

#[test]
fn reduce_bool_and_many_outputs() -> Result<()> {
    // More than 65,535 outputs: the workgroup grid gets a second row. Bool sums count into int64.
    let mk = |g: &mut Gen, dev: DeviceId| -> Result<Vec<Tensor>> { Ok(vec![tied(g, &[70_000, 3], true, dev)?]) };
    check("amax", 20, mk, |t| t[0].amax(Some(&[1]), false))?;
    let bools = |g: &mut Gen, dev: DeviceId| -> Result<Vec<Tensor>> {
        let v: Vec<i64> = (0..5 * 200).map(|_| g.below(2) as i64).collect();
        Ok(vec![from_i64(&v, &[5, 200], DType::Bool, dev)?])
    };
    check("sum", 21, bools, |t| t[0].sum(Some(&[1]), false))?;
    check("amax", 21, bools, |t| t[0].amax(Some(&[1]), false))?;
    check("amin", 21, bools, |t| t[0].amin(Some(&[0]), false))?;
    Ok(())
}

#[test]
fn matmul_every_tile_edge_batch_and_layout() -> Result<()> {
    let shapes =
        [(1, 1, 1), (15, 16, 17), (16, 17, 15), (17, 15, 16), (31, 33, 2), (33, 31, 47), (9, 8, 9), (8, 40, 8)];
    for (k, (m, kk, n)) in shapes.into_iter().enumerate() {
        let mk = move |g: &mut Gen, dev: DeviceId| matmul_operands(g, dev, 3, m, kk, n);
        check_terms("matmul", Some(kk), k as u64, mk, |t| t[0].matmul(&t[1]))?;
        check_terms("matmul", Some(kk), k as u64, mk, |t| t[0].matmul(&t[2].transpose(1, 2)?))?;
        for dtype in [DType::F16, DType::BF16] {
            check_terms("matmul", Some(kk), k as u64, mk, |t| t[0].to_dtype(dtype)?.matmul(&t[1].to_dtype(dtype)?))?;
        }
    }
    // Broadcast batch dims of rank 4: (2, 1, m, k) @ (3, k, n).
    let mk = |g: &mut Gen, dev: DeviceId| -> Result<Vec<Tensor>> {
        Ok(vec![random_f32(g, &[2, 1, 5, 18], -1.0, 1.0, dev)?, random_f32(g, &[3, 18, 7], -1.0, 1.0, dev)?])
    };
    check("matmul", 30, mk, |t| t[0].matmul(&t[1]))?;
    Ok(())
}

fn slice(start: i64, stop: i64, step: i64) -> IndexItem {
    IndexItem::Slice { start: Some(start), stop: Some(stop), step: Some(step) }
}

fn typed(g: &mut Gen, shape: &[usize], dtype: DType, dev: DeviceId) -> Result<Tensor> {
    let n: usize = shape.iter().product();
    let v: Vec<i64> = (0..n).map(|_| (g.next_u64() as i64) >> 33).collect();
    from_i64(&v, shape, DType::I64, dev)?.to_dtype(dtype)
}

#[test]
fn movement_copies_of_strided_views() -> Result<()> {
    for dtype in [DType::F32, DType::F16, DType::BF16, DType::I32, DType::I64, DType::Bool] {
        let mk =
            move |g: &mut Gen, dev: DeviceId| -> Result<Vec<Tensor>> { Ok(vec![typed(g, &[5, 7, 9], dtype, dev)?]) };
        check("contiguous", 1, mk, |t| t[0].permute(&[2, 0, 1])?.contiguous())?;
        check("contiguous", 1, mk, |t| t[0].flip(&[1, 2])?.contiguous())?;
        check("contiguous", 1, mk, |t| t[0].index(&[slice(1, 5, 2), slice(0, 6, 4)])?.flip(&[1])?.contiguous())?;
        check("contiguous", 1, mk, |t| t[0].narrow(2, 3, 5)?.contiguous())?;
        // A step on the innermost dim: its elements are not one run.
        check("contiguous", 1, mk, |t| t[0].index(&[slice(0, 5, 1), slice(0, 7, 1), slice(0, 9, 2)])?.contiguous())?;
        // A contiguous view that starts past the buffer's first element, copied as a run.
        check("contiguous", 1, mk, |t| t[0].narrow(0, 2, 3)?.copy())?;
        check("contiguous", 1, mk, |t| t[0].narrow(0, 1, 3)?.unsqueeze(1)?.expand(&[3, 4, 7, 9])?.contiguous())?;
    }
    Ok(())
}

/// Six dims permuted so that no two merge: every kernel then walks a rank-6 view, whose dims 4 and 5 live in the
/// shape's second vec4 (common.wgsl's `dim`).
#[test]
fn movement_six_dim_views() -> Result<()> {
    let mk = |g: &mut Gen, dev: DeviceId| -> Result<Vec<Tensor>> {
        Ok(vec![
            random_f32(g, &[2, 3, 4, 5, 3, 2], -1.0, 1.0, dev)?,
            random_f32(g, &[2, 4, 3, 1, 5, 2], -1.0, 1.0, dev)?,
        ])
    };
    let perm = [5, 3, 1, 4, 2, 0];
    check("contiguous", 3, mk, |t| t[0].permute(&perm)?.contiguous())?;
    check("add", 3, mk, |t| {
        let x = t[0].permute(&perm)?;
        binary(&Operand::Tensor(x), &Operand::Tensor(t[1].permute(&[5, 4, 3, 2, 1, 0])?), BinaryOp::Add)
    })?;
    check("sum", 3, mk, |t| t[0].permute(&perm)?.sum(Some(&[4]), false))?;
    check("amax", 3, mk, |t| t[0].permute(&perm)?.amax(Some(&[1, 5]), true))?;
    Ok(())
}

#[test]
fn movement_writes_through_strided_views() -> Result<()> {
    for dtype in [DType::F32, DType::F16, DType::I64, DType::I32, DType::Bool] {
        let mk =
            move |g: &mut Gen, dev: DeviceId| -> Result<Vec<Tensor>> { Ok(vec![typed(g, &[6, 10, 5], dtype, dev)?]) };
        let targets: [(bool, Vec<IndexItem>); 5] = [
            (false, vec![slice(1, 6, 2), slice(2, 9, 3)]),
            (true, vec![slice(0, 6, 4), slice(1, 10, 2)]),
            (false, vec![IndexItem::Int(2), slice(0, 10, 1)]),
            (false, vec![slice(0, 6, 1), slice(9, 10, 1), slice(4, 5, 1)]),
            (true, vec![slice(2, 5, 1), slice(3, 8, 4), slice(0, 5, 3)]),
        ];
        for (flip, items) in &targets {
            // The target's own elements reversed (a copy), written back through it; flipped targets have
            // negative strides.
            check("setitem", 2, mk, |t| {
                let x = t[0].copy()?;
                let base = if *flip { x.flip(&[0, 2])? } else { x.clone() };
                let v = base.index(items)?;
                let dims: Vec<i64> = (0..v.ndim() as i64).collect();
                v.assign(&v.flip(&dims)?.contiguous()?)?;
                Ok(x)
            })?;
        }
    }
    Ok(())
}

#[test]
fn reduce_f64_oracle_path() -> Result<()> {
    // The oracle's f64 reductions (CPU only) against the GPUs' f32 ones, ties, signed zeros and NaN included.
    for (shape, dims) in [(&[4usize, 33, 5][..], &[1i64][..]), (&[3, 129][..], &[1][..]), (&[6, 7, 8][..], &[2, 1][..])]
    {
        for op in reductions(dims) {
            for nan in [false, true] {
                check(op, 7, tied_input(shape, nan), oracle_in(DType::F64, move |t| reduce(&t[0], op, dims)))?;
            }
        }
    }
    Ok(())
}

#[test]
fn matmul_f64_and_integer_oracle_paths() -> Result<()> {
    // Small integers are exact in every path, so the oracle's int64 matmul (CPU only) must match the GPUs' f32 one.
    for (m, k, n) in [(1, 1, 1), (5, 17, 3), (17, 16, 9)] {
        let mk = move |g: &mut Gen, dev: DeviceId| -> Result<Vec<Tensor>> {
            let ints = |g: &mut Gen, len: usize| -> Vec<f32> { (0..len).map(|_| g.below(7) as f32 - 3.0).collect() };
            let (a, b) = (ints(g, 2 * m * k), ints(g, k * n));
            Ok(vec![from_f32(&a, &[2, m, k], dev)?, from_f32(&b, &[k, n], dev)?])
        };
        check("matmul", 8, mk, oracle_in(DType::F64, |t| t[0].matmul(&t[1])))?;
        check("matmul", 8, mk, oracle_in(DType::I64, |t| t[0].matmul(&t[1])))?;
        check("matmul", 8, mk, oracle_in(DType::I32, |t| t[0].matmul(&t[1])))?;
    }
    Ok(())
}
