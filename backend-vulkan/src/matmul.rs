//! Matmul: eight WGSL pipelines (shaders/matmul*.wgsl) and the selector that picks one from the product's shape,
//! its dtype and the device's features.
//! Every pipeline reads its inputs through their strides (transposed and broadcast inputs need no copy) and sums each
//! output's K products in a fixed order, so a shape always gives the same bytes on a device; docs/matmul.md has the
//! selector's table and the reasons for its thresholds.

use vkml_core::backend::Kernel;
use vkml_core::base::dtype::DType;
use vkml_core::base::view::View;
use vkml_core::util::error::{Error, Result};

use crate::launch::{grid, slots_grid, Launch};
use crate::meta::{code, to_u32, Meta};

// The thresholds come from bench/matmul.py on an H200; docs/matmul.md has the measurements behind each one.

/// Most workgroups along one grid dimension on the floor.
const MAX_GROUPS: usize = 65_535;
/// A vector-side product (gemv) spreads K over a workgroup of 128 from this K on; below it, one invocation per
/// output does the whole row.
const GEMV_MIN_K: usize = 256;
/// Products of at most this many multiply-adds (32³) run one invocation per output: too small to fill a tile.
const SMALL_WORK: usize = 1 << 15;
/// A long K (at least this) over at most `GEMV_MAX_OUT` outputs goes to gemv, a workgroup per output.
const LONG_K: usize = 1024;
const GEMV_MAX_OUT: usize = 4096;
/// Split-K takes K of at least `SPLITK_MIN_K` over at most `SPLITK_MAX_OUT` outputs, where tiles leave the GPU a
/// handful of workgroups (an MLP's 64x784x128).
const SPLITK_MIN_K: usize = 512;
const SPLITK_MAX_OUT: usize = 128 * 128;
/// The register-blocked pipeline's tile (rows x columns), and the outputs (a million: 128 tiles) from which it leads
/// the 16x16 tiles (below, it trails them; so do products of fewer rows than a tile, which leave it half empty).
const TILE: (usize, usize) = (128, 64);
const TILED_MIN_OUT: usize = 1 << 20;
/// The wide pipeline's tile, which it takes over from the tiled one where the device runs its 256 invocations and
/// the product's layout fits it (`unit_layout`): every load a vec4, so m, n and K are multiples of 4.
const WIDE_TILE: usize = 128;
const WIDE_ALIGN: isize = 4;
/// The cooperative-matrix pipeline's output tile (4x4 hardware 16x16 tiles), and the step its m, n and K must be
/// multiples of: it loads and stores whole 16x16 tiles straight from and to the buffers (shaders/matmul_coop.wgsl).
const COOP_TILE: usize = 64;
const COOP_STEP: usize = 16;
/// Cooperative loads need 16-byte aligned rows: offsets and strides in multiples of 8 halves.
const COOP_ALIGN: isize = 8;
/// The staged cooperative-matrix pipeline's tile (shaders/matmul_coop_staged.wgsl): m and n at least this, since its
/// workgroups past the edge move back inside the output; and the workgroup memory it stages slices in (two padded
/// 128x32 slices of halves), more than the floor's 16 KiB.
const STAGED_TILE: usize = 128;
pub const STAGED_MEMORY: u32 = 2 * 128 * 40 * 2;

/// A matmul pipeline; each is one shader family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pipeline {
    /// One side a vector: a workgroup per output, K spread over 128 invocations and a fixed pairwise tree.
    Gemv,
    /// One invocation per output, no workgroup memory.
    Small,
    /// A 4x4 output tile per workgroup, K cut into 8 contiguous slices summed in slice order.
    SplitK,
    /// 128x64 output tiles, an 8x8 register block per invocation.
    Tiled,
    /// 128x128 output tiles of 256 invocations, an 8x8 register block each, vec4 loads of float32 operands; only on
    /// devices that run 256 invocations in a workgroup (not the floor).
    Wide,
    /// 16x16 output tiles, batch in the grid's z: the general case.
    Batched,
    /// float16 inputs on hardware 16x16x16 f16 x f16 + f32 matrix units (wgpu's cooperative matrices), 64x64
    /// output tiles; only on devices that offer them, never on the floor or in a browser.
    Coop,
    /// As `Coop`, 128x128 output tiles of four subgroups with the operands staged through workgroup memory; m and n
    /// at least 128, on devices that also hand it to the driver as SPIR-V (device.rs `STAGED_FEATURES`).
    CoopStaged,
}

impl Pipeline {
    pub const ALL: [Pipeline; 8] = [
        Pipeline::Gemv,
        Pipeline::Small,
        Pipeline::SplitK,
        Pipeline::Tiled,
        Pipeline::Wide,
        Pipeline::Batched,
        Pipeline::Coop,
        Pipeline::CoopStaged,
    ];

    /// The pipeline's short name (docs/matmul.md, the benchmark's rows).
    pub fn name(self) -> &'static str {
        match self {
            Pipeline::Gemv => "gemv",
            Pipeline::Small => "small",
            Pipeline::SplitK => "splitk",
            Pipeline::Tiled => "tiled",
            Pipeline::Wide => "wide",
            Pipeline::Batched => "batched",
            Pipeline::Coop => "coop",
            Pipeline::CoopStaged => "coop_staged",
        }
    }

    pub fn from_name(name: &str) -> Option<Pipeline> {
        Pipeline::ALL.into_iter().find(|p| p.name() == name)
    }

    pub fn family(self) -> &'static str {
        match self {
            Pipeline::Gemv => "matmul_gemv",
            Pipeline::Small => "matmul_small",
            Pipeline::SplitK => "matmul_splitk",
            Pipeline::Tiled => "matmul_tiled",
            Pipeline::Wide => "matmul_wide",
            Pipeline::Batched => "matmul",
            Pipeline::Coop => "matmul_coop",
            Pipeline::CoopStaged => "matmul_coop_staged",
        }
    }

    /// The workgroup grid for `batch` products of m x n outputs, or None where it exceeds the floor's limits.
    fn groups(self, batch: usize, m: usize, n: usize) -> Option<(u32, u32, u32)> {
        let tiled = |(rows, cols): (usize, usize)| -> Option<(u32, u32, u32)> {
            let g = (n.div_ceil(cols).max(1), m.div_ceil(rows).max(1), batch.max(1));
            (g.0 <= MAX_GROUPS && g.1 <= MAX_GROUPS && g.2 <= MAX_GROUPS)
                .then_some((g.0 as u32, g.1 as u32, g.2 as u32))
        };
        let outputs = batch * m * n;
        match self {
            // Flat grids: x up to 65,535 workgroups, y the rest.
            Pipeline::Gemv => (outputs.div_ceil(MAX_GROUPS) <= MAX_GROUPS).then(|| grid(outputs)),
            Pipeline::Small => (outputs.div_ceil(128).div_ceil(MAX_GROUPS) <= MAX_GROUPS).then(|| slots_grid(outputs)),
            Pipeline::SplitK => tiled((4, 4)),
            Pipeline::Tiled => tiled(TILE),
            Pipeline::Wide => tiled((WIDE_TILE, WIDE_TILE)),
            Pipeline::Batched => tiled((16, 16)),
            Pipeline::Coop => tiled((COOP_TILE, COOP_TILE)),
            Pipeline::CoopStaged => tiled((STAGED_TILE, STAGED_TILE)),
        }
    }
}

/// The pipeline for `batch` products of (m x k) @ (k x n); `coop` says both inputs are float16 on a device with
/// cooperative matrices in a layout that pipeline takes, which then gets every product with two matrix sides beyond
/// the small pipeline's and the long-K gemv's (the staged one those at least 128 on a side, where `staged` says the
/// device runs it); `wide` says the wide pipeline can run the product (float32 in its
/// layout, on a device with 256 invocations), which then takes the tiled pipeline's products at least a tile wide.
/// Pipelines whose grid would exceed the floor's limits are passed over; `Small` takes any size up to 2^32 outputs.
pub fn select(m: usize, n: usize, k: usize, batch: usize, coop: bool, staged: bool, wide: bool) -> Pipeline {
    let outputs = batch * m * n;
    let pick = if m == 1 || n == 1 {
        if k >= GEMV_MIN_K {
            Pipeline::Gemv
        } else {
            Pipeline::Small
        }
    } else if outputs.saturating_mul(k) <= SMALL_WORK {
        Pipeline::Small
    } else if k >= LONG_K && outputs <= GEMV_MAX_OUT {
        Pipeline::Gemv
    } else if coop && staged && m >= STAGED_TILE && n >= STAGED_TILE {
        Pipeline::CoopStaged
    } else if coop {
        Pipeline::Coop
    } else if k >= SPLITK_MIN_K && outputs <= SPLITK_MAX_OUT {
        Pipeline::SplitK
    } else if wide && m >= WIDE_TILE && n >= WIDE_TILE && outputs >= TILED_MIN_OUT {
        Pipeline::Wide
    } else if m >= TILE.0 && n >= TILE.1 && outputs >= TILED_MIN_OUT {
        Pipeline::Tiled
    } else {
        Pipeline::Batched
    };
    if pick.groups(batch, m, n).is_some() {
        pick
    } else {
        Pipeline::Small
    }
}

/// How a pipeline that loads whole aligned runs reads an operand (its layout flag: 0 row-major, else column-major;
/// bit 0 for a, bit 1 for b), or None where it cannot: a unit stride on one matrix side, the other side's stride a
/// multiple of `align` elements and at least `min_outer`, batch strides and the offset multiples of `align`. The
/// cooperative-matrix pipeline takes (8 halves, a tile of 16); the wide one (4 floats, any), so that each vec4 it
/// loads is aligned and lies within one row or column.
fn unit_layout(v: &View, is_b: bool, align: isize, min_outer: isize) -> Option<u32> {
    if v.shape.contains(&0) {
        // An empty operand (K = 0) is never loaded, and an empty view's strides are not a layout: any flag serves.
        return Some(0);
    }
    let nd = v.shape.len();
    let (outer, inner) = (v.strides[nd - 2], v.strides[nd - 1]);
    let aligned = |s: isize| s >= 0 && s % align == 0;
    let wide = |s: isize| aligned(s) && s >= min_outer;
    if !(v.strides[..nd - 2].iter().all(|&s| aligned(s)) && aligned(v.offset as isize)) {
        return None;
    }
    let col_major = if inner == 1 && wide(outer) {
        false
    } else if outer == 1 && wide(inner) {
        true
    } else {
        return None;
    };
    Some(u32::from(col_major) << u32::from(is_b))
}

/// The stride of an operand's matrix side that is not 1, which the cooperative-matrix pipeline loads its tiles with
/// (a layout `unit_layout` took); 16 for an empty operand, which is never loaded.
fn load_stride(v: &View) -> Result<u32> {
    let nd = v.shape.len();
    if v.shape.contains(&0) {
        return Ok(COOP_STEP as u32);
    }
    let lead = if v.strides[nd - 1] == 1 { v.strides[nd - 2] } else { v.strides[nd - 1] };
    to_u32(lead.unsigned_abs())
}

/// The dispatch of matmul kernel `k` on the pipeline `forced` names, else the selector's; `coop` says the device
/// runs the cooperative-matrix pipeline, `staged` the staged one too, `wide` that it runs the wide one (256
/// invocations in a workgroup).
pub fn matmul(k: &Kernel, coop: bool, staged: bool, wide: bool, forced: Option<Pipeline>) -> Result<Launch> {
    let (a, b) = match k.args.as_slice() {
        [a, b] => (a, b),
        _ => return Err(Error::Backend("matmul needs two inputs".into())),
    };
    let nd = k.shape.len();
    let (m, n) = (k.shape[nd - 2], k.shape[nd - 1]);
    let kk = a.view.shape[nd - 1];
    let batch: usize = k.shape[..nd - 2].iter().product();
    let halves = a.buffer.dtype == DType::F16 && b.buffer.dtype == DType::F16;
    let fits = coop && halves && [m, n, kk].iter().all(|d| d % COOP_STEP == 0);
    let layout = (
        unit_layout(&a.view, false, COOP_ALIGN, COOP_STEP as isize),
        unit_layout(&b.view, true, COOP_ALIGN, COOP_STEP as isize),
    );
    let flags = match layout {
        (Some(fa), Some(fb)) if fits => Some(fa | fb),
        _ => None,
    };
    let singles = a.buffer.dtype == DType::F32 && b.buffer.dtype == DType::F32;
    let wide_fits = singles && [m, n, kk].iter().all(|d| d % WIDE_ALIGN as usize == 0);
    let wide_flags = match (unit_layout(&a.view, false, WIDE_ALIGN, 0), unit_layout(&b.view, true, WIDE_ALIGN, 0)) {
        (Some(fa), Some(fb)) if wide && wide_fits => Some(fa | fb),
        _ => None,
    };
    let selected = || select(m, n, kk, batch, flags.is_some(), staged, wide_flags.is_some());
    let pipeline = forced.unwrap_or_else(|| match selected() {
        // In a browser the 16x16 pipeline takes the tiled one's products: in Chromium's SwiftShader a product of a
        // million outputs on the tiled pipeline did not finish within minutes (docs/matmul.md), and WebGPU does not
        // say which adapters are software ones.
        Pipeline::Tiled if cfg!(target_arch = "wasm32") => Pipeline::Batched,
        p => p,
    });
    let cooperative = matches!(pipeline, Pipeline::Coop | Pipeline::CoopStaged);
    if cooperative && flags.is_none() {
        let name = pipeline.name();
        return Err(Error::Unsupported(if !coop {
            "this device offers no cooperative-matrix matmul pipeline (it needs 16x16x16 f16 matrix units through \
             wgpu's EXPERIMENTAL_COOPERATIVE_MATRIX, f16 in shaders and 32-wide subgroups)"
                .to_string()
        } else if !halves {
            format!("the cooperative-matrix matmul pipeline {name} takes float16 inputs only")
        } else {
            format!(
                "the cooperative-matrix matmul pipeline {name} needs m, n and K multiples of 16, and each operand \
                 with a unit stride on one side, the other side's stride and the offset multiples of 8 (got {m}x{kk} \
                 @ {kk}x{n}, strides {:?} and {:?}, offsets {} and {})",
                a.view.strides, b.view.strides, a.view.offset, b.view.offset
            )
        }));
    }
    if pipeline == Pipeline::CoopStaged && !staged {
        return Err(Error::Unsupported(
            "this device runs no staged cooperative-matrix matmul pipeline (beyond the direct one's features it needs \
             subgroups, SPIR-V passed through to the driver and 20 KiB of workgroup memory)"
                .to_string(),
        ));
    }
    if pipeline == Pipeline::CoopStaged && (m < STAGED_TILE || n < STAGED_TILE) {
        return Err(Error::Unsupported(format!(
            "the cooperative-matrix matmul pipeline coop_staged needs m and n of at least {STAGED_TILE} (got \
             {m}x{kk} @ {kk}x{n})"
        )));
    }
    if pipeline == Pipeline::Wide && wide_flags.is_none() {
        return Err(Error::Unsupported(if !wide {
            "this device runs no wide matmul pipeline (it needs 256 invocations and 16 KiB of memory in a workgroup)"
                .to_string()
        } else if !singles {
            "the wide matmul pipeline takes float32 inputs only".to_string()
        } else {
            format!(
                "the wide matmul pipeline needs m, n and K multiples of 4, and each operand with a unit stride on one \
                 side, the other strides and the offset multiples of 4 (got {m}x{kk} @ {kk}x{n}, strides {:?} and \
                 {:?}, offsets {} and {})",
                a.view.strides, b.view.strides, a.view.offset, b.view.offset
            )
        }));
    }
    let groups = pipeline.groups(batch, m, n).ok_or_else(|| {
        Error::Unsupported(format!(
            "matmul of {batch} batches of {m}x{n} outputs exceeds the dispatch limits of the {pipeline:?} pipeline \
             on vulkan"
        ))
    })?;
    let mut meta = Meta { out_dtype: code(k.out.dtype), ..Default::default() };
    meta.set_shape(&k.shape)?;
    meta.set_input(0, a.buffer.dtype, &a.view)?;
    meta.set_input(1, b.buffer.dtype, &b.view)?;
    meta.n = to_u32(batch * m * n)?;
    let chosen_flags = if pipeline == Pipeline::Wide { wide_flags } else { flags };
    // The staged pipeline is compiled per layout (extra.w, lib.rs).
    meta.extra = [to_u32(m)?, to_u32(n)?, to_u32(kk)?, chosen_flags.unwrap_or(0)];
    if pipeline == Pipeline::Coop {
        meta.extra2 = [load_stride(&a.view)?, load_stride(&b.view)?, 0, 0];
    }
    Ok(Launch { family: pipeline.family(), meta, inputs: vec![a.buffer.clone(), b.buffer.clone()], groups })
}
