//! Reductions (shaders/reduce.wgsl): one workgroup per output, or one invocation per output where rows are short
//! (a pool's window, a row of class scores), whose workgroup would sit mostly idle through its tree; the op code is
//! the row's position (`OP_<NAME>`). Where the reduced elements lie contiguous the shader skips the per-element
//! index arithmetic, which otherwise costs more than the load on a fast GPU; where they are float32, sums and extrema
//! go to shaders/reduce_flat.wgsl, which reads them four at a time. Where the outputs lie side by side and each one's
//! elements a fixed stride apart (a batch's sum of per-image weight gradients), a workgroup takes 8 outputs, its
//! neighbouring invocations reading neighbouring words.

use vkml_core::backend::Kernel;
use vkml_core::base::dtype::DType;
use vkml_core::base::view::{coalesce, View};
use vkml_core::graph::op::ReduceOp;
use vkml_core::util::error::{Error, Result};

use crate::launch::{grid, rows_grid, Launch};
use crate::meta::{code, to_u32, Meta};

pub fn reduce(k: &Kernel, op: ReduceOp, axes: usize) -> Result<Launch> {
    let a = k.args.first().ok_or_else(|| Error::Backend("reduce without input".into()))?;
    let v = &a.view;
    let split = v.ndim() - axes;
    let inner: usize = v.shape[split..].iter().product();
    let outer: usize = v.shape[..split].iter().product();
    let mut meta = Meta { op: op.code(), out_dtype: code(k.out.dtype), ..Default::default() };
    meta.set_shape(&v.shape)?;
    meta.set_input(0, a.buffer.dtype, v)?;
    meta.n = to_u32(outer)?;
    meta.extra = [axes as u32, to_u32(inner)?, 0, 0];
    let rows = strided_rows(v, split);
    let (short, mut groups) = rows_grid(outer, inner);
    meta.extra[2] = u32::from(short);
    let flat = !short && a.buffer.dtype == DType::F32 && flat_op(op);
    let family = match rows {
        Some(r) if flat && r.elem == 1 => {
            meta.extra2 = [1, to_u32(r.step)?, to_u32(r.count.max(1))?, to_u32(r.outer_step)?];
            "reduce_flat"
        }
        // The generic kernel's direct path takes rows a single step apart.
        Some(r) if r.count == outer => {
            meta.extra2 = [1, to_u32(r.step)?, to_u32(r.elem)?, 0];
            if !short && r.step == 1 && r.elem != 1 && outer >= COLUMNS_MIN_OUT && inner <= COLUMNS_MAX_LEN {
                meta.extra[2] = 2;
                groups = grid(outer.div_ceil(COLUMNS));
            }
            "reduce"
        }
        _ => "reduce",
    };
    Ok(Launch { family, meta, inputs: vec![a.buffer.clone()], groups })
}

/// The reductions shaders/reduce_flat.wgsl computes (a float product keeps its scaled form in the generic kernel).
fn flat_op(op: ReduceOp) -> bool {
    match op {
        ReduceOp::Sum | ReduceOp::Max | ReduceOp::Min | ReduceOp::ArgMax | ReduceOp::ArgMin => true,
        ReduceOp::Prod => false,
    }
}

/// Outputs a workgroup of the column path takes (shaders/reduce.wgsl's `COLUMNS`: eight words, a GPU's 32-byte
/// memory sector), and the outputs and row lengths it is chosen for: enough outputs to give a GPU a hundred
/// workgroups and more (fewer, and a workgroup per output does better), rows short enough that each of an output's
/// sixteen invocations folds at most 512 elements in turn.
const COLUMNS: usize = 8;
const COLUMNS_MIN_OUT: usize = 1024;
const COLUMNS_MAX_LEN: usize = 8192;

/// Where the outputs' rows lie: output o's reduced element r is at `offset + (o % count) * step + (o / count) *
/// outer_step + r * elem`.
struct Rows {
    step: usize,
    count: usize,
    outer_step: usize,
    elem: usize,
}

/// The rows' layout where every output's reduced elements lie a fixed stride apart: the reduced dims must merge into
/// one and the kept ones into at most two (as `coalesce` merges elementwise dims), as a split reduction's chunks of
/// a row do (rows of `CHUNK` elements, `n / CHUNK` to a row, the row's stride apart).
fn strided_rows(v: &View, split: usize) -> Option<Rows> {
    let merged = |dims: std::ops::Range<usize>| coalesce(&v.shape[dims.clone()], &[&v.strides[dims]]);
    let (inner, inner_strides) = merged(split..v.ndim());
    let (outer, outer_strides) = merged(0..split);
    let elem = match inner.len() {
        0 => 1,
        1 => usize::try_from(inner_strides[0][0]).ok()?,
        _ => return None,
    };
    let rows = match (outer.as_slice(), outer_strides[0].as_slice()) {
        ([], _) => Rows { step: 0, count: 1, outer_step: 0, elem },
        ([n], [s]) => Rows { step: usize::try_from(*s).ok()?, count: *n, outer_step: 0, elem },
        ([_, n], [s0, s1]) => {
            Rows { step: usize::try_from(*s1).ok()?, count: *n, outer_step: usize::try_from(*s0).ok()?, elem }
        }
        _ => return None,
    };
    Some(rows)
}
