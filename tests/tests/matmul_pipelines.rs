//! Each matmul pipeline, forced, against the CPU oracle at its tile edges (sizes not multiples of its tile, K = 1,
//! K = 0, empty outputs, many tiles), with transposed and batch-broadcast inputs read in place; long-K integer
//! products that every order sums exactly, so a race between tile loads shows as a wrong bit; and the selector's
//! choices. The cooperative-matrix pipeline runs the same checks on float16 operands where a device offers it, and
//! must refuse elsewhere; so must the staged cooperative-matrix pipeline; so does the wide pipeline on float32 operands in its layout. One test in this binary: the pipeline is forced on the shared devices, so nothing else may
//! run beside it.

use vkml_backend_vulkan::{select_matmul, MatmulPipeline};
use vkml_core::api::Tensor;
use vkml_core::base::buffer::DeviceId;
use vkml_core::base::dtype::DType;
use vkml_core::Result;
use vkml_tests::{check, check_terms, devices, from_f32, matmul_operands, random_f32, Gen};

/// (m, k, n, batch): every pipeline's tile edges (4, 16, 64 and 128 lanes), one past them, vectors, K = 1, K = 0,
/// and empty outputs.
const SHAPES: [(usize, usize, usize, usize); 15] = [
    (1, 1, 1, 1),
    (1, 300, 1, 2),
    (1, 37, 70, 2),
    (70, 129, 1, 1),
    (5, 7, 3, 3),
    (17, 15, 16, 2),
    (63, 16, 65, 1),
    (64, 17, 64, 1),
    (129, 33, 130, 1),
    (128, 16, 64, 1),
    (9, 1, 67, 2),
    (6, 1100, 5, 2),
    (9, 0, 7, 2),
    (0, 5, 4, 1),
    (5, 5, 0, 2),
];

fn force(p: Option<MatmulPipeline>) {
    for (_, gpu) in &devices().gpus {
        gpu.force_matmul(p);
    }
}

/// The pipelines that take float32 operands of any shape and layout: all but the cooperative-matrix and wide ones.
fn f32_pipelines() -> impl Iterator<Item = MatmulPipeline> {
    let special = [MatmulPipeline::Coop, MatmulPipeline::CoopStaged, MatmulPipeline::Wide];
    MatmulPipeline::ALL.into_iter().filter(move |p| !special.contains(p))
}

/// The operands of `matmul_operands` in `dtype`, converted under a's transpose so that float16 ones are read through
/// the same views (c is contiguous, transposed at its use); products run in the accumulation dtype (f32) so that the
/// contract sees no final rounding.
fn operands(
    g: &mut Gen,
    dev: DeviceId,
    dtype: DType,
    (m, kk, n, batch): (usize, usize, usize, usize),
) -> Result<Vec<Tensor>> {
    let t = matmul_operands(g, dev, batch, m, kk, n)?;
    let a = t[0].transpose(1, 2)?.to_dtype(dtype)?.transpose(1, 2)?;
    Ok(vec![a, t[1].to_dtype(dtype)?, t[2].to_dtype(dtype)?])
}

fn each_layout(seed: u64, dtype: DType, shape: (usize, usize, usize, usize)) -> Result<()> {
    let mk = move |g: &mut Gen, dev: DeviceId| operands(g, dev, dtype, shape);
    // The contract's bound over K terms in [-1, 1): a pipeline that drops or repeats a term fails it.
    let k = Some(shape.1);
    check_terms("matmul", k, seed, mk, |t| t[0].matmul_acc(&t[1]))?;
    check_terms("matmul", k, seed, mk, |t| t[0].matmul_acc(&t[2].transpose(1, 2)?))?;
    check_terms("matmul", k, seed, mk, |t| t[0].contiguous()?.matmul_acc(&t[1]))
}

/// Small integers: every product and partial sum is exact in f32, so each pipeline must give the oracle's bits
/// whatever its order ("matmul_exact" is not in the op table, so `check` compares bits). Long K runs many tiles
/// through workgroup memory; a missing barrier lets one tile's loads overwrite another's reads.
fn exact(seed: u64, dtype: DType, m: usize, kk: usize, n: usize) -> Result<()> {
    let mk = move |g: &mut Gen, dev: DeviceId| -> Result<Vec<Tensor>> {
        let ints = |g: &mut Gen, len: usize| -> Vec<f32> { (0..len).map(|_| g.below(9) as f32 - 4.0).collect() };
        let a = from_f32(&ints(g, m * kk), &[m, kk], dev)?.to_dtype(dtype)?;
        Ok(vec![a, from_f32(&ints(g, kk * n), &[kk, n], dev)?.to_dtype(dtype)?])
    };
    check("matmul_exact", seed, mk, |t| t[0].matmul_acc(&t[1]))
}

/// An infinity and a NaN in some rows of a and columns of b: they must reach exactly the outputs of their row or
/// column (a pipeline that reads past a row's K, or past the matrix, into padding multiplies them by zero: NaN).
fn specials_stay_put(seed: u64, dtype: DType, m: usize, kk: usize, n: usize) -> Result<()> {
    let mk = move |g: &mut Gen, dev: DeviceId| -> Result<Vec<Tensor>> {
        let mut a: Vec<f32> = (0..m * kk).map(|_| g.uniform(-1.0, 1.0)).collect();
        let mut b: Vec<f32> = (0..kk * n).map(|_| g.uniform(-1.0, 1.0)).collect();
        a[kk + kk / 2] = f32::INFINITY; // row 1
        a[(m - 1) * kk] = f32::NAN; // the last row's first term
        b[n - 1] = f32::NEG_INFINITY; // the last column's first term
        Ok(vec![from_f32(&a, &[m, kk], dev)?.to_dtype(dtype)?, from_f32(&b, &[kk, n], dev)?.to_dtype(dtype)?])
    };
    check_terms("matmul", Some(kk), seed, mk, |t| t[0].matmul_acc(&t[1]))
}

/// Every check of one pipeline over operands of `dtype`.
fn all_checks(dtype: DType) -> Result<()> {
    for (i, shape) in SHAPES.into_iter().enumerate() {
        each_layout(i as u64, dtype, shape)?;
    }
    for (i, (m, kk, n)) in [(67, 2100, 70), (3, 4099, 130), (1, 5000, 9)].into_iter().enumerate() {
        exact(40 + i as u64, dtype, m, kk, n)?;
    }
    for (i, (m, kk, n)) in [(5, 19, 6), (66, 21, 67), (3, 1030, 5)].into_iter().enumerate() {
        specials_stay_put(50 + i as u64, dtype, m, kk, n)?;
    }
    Ok(())
}

/// (m, k, n, batch) that the cooperative-matrix pipeline takes (multiples of 16): one 16x16 tile of its 64x64 block,
/// a whole block, blocks with one, two or three rows or columns of tiles outside (which load tiles inside instead
/// and store nothing), K = 0, and several batches.
const COOP_SHAPES: [(usize, usize, usize, usize); 9] = [
    (16, 16, 16, 1),
    (64, 32, 64, 1),
    (48, 16, 80, 2),
    (16, 48, 32, 3),
    (96, 64, 64, 2),
    (64, 0, 32, 1),
    (32, 528, 48, 1),
    (144, 32, 208, 1),
    (176, 48, 112, 1),
];

/// Float16 products on the cooperative-matrix pipeline, forced on the devices that have it (elsewhere the
/// selector's pipeline runs the same checks), through row-major, transposed (column-major) and batch-broadcast
/// operands; shapes and layouts it cannot take are refused with the reason, and the selector passes them over.
fn coop_pipeline() -> Result<()> {
    let gpus = &devices().gpus;
    let coop = |on: bool| {
        for (_, gpu) in gpus {
            gpu.force_matmul((on && gpu.has_coop_matmul()).then_some(MatmulPipeline::Coop));
        }
    };
    coop(true);
    for (i, shape) in COOP_SHAPES.into_iter().enumerate() {
        each_layout(80 + i as u64, DType::F16, shape)?;
    }
    exact(90, DType::F16, 48, 2048, 64)?;
    specials_stay_put(91, DType::F16, 32, 64, 48)?;
    // Float16 shapes and layouts it cannot take run elsewhere under the selector; forced, they are refused.
    coop(false);
    all_checks(DType::F16)?;
    force(Some(MatmulPipeline::Coop));
    for (dev, gpu) in gpus {
        let g = &mut Gen(3);
        let run = |x: &Tensor, y: &Tensor| x.matmul(y).and_then(|c| vkml_tests::bytes(&c)).err().map(|e| e.to_string());
        let a = random_f32(g, &[32, 48], -1.0, 1.0, *dev)?;
        let h = a.to_dtype(DType::F16)?;
        let cases = [
            (run(&a, &a.t()?), "float16 inputs only"),
            (run(&h.narrow(1, 0, 40)?, &h.narrow(1, 0, 40)?.t()?), "multiples of 16"),
            (run(&h.narrow(1, 1, 32)?, &h.narrow(0, 0, 32)?), "offsets 1 and 0"),
        ];
        for (err, why) in cases {
            let err = err.unwrap_or_default();
            let want = if gpu.has_coop_matmul() { why } else { "offers no cooperative-matrix" };
            assert!(err.contains(want), "forced cooperative-matrix pipeline on {dev:?}: {err:?}, want {want:?}");
        }
        let ok = run(&h, &h.t()?);
        assert_eq!(ok.is_none(), gpu.has_coop_matmul(), "a 32x48 @ 48x32 float16 product on {dev:?}: {ok:?}");
    }
    force(None);
    // The selector takes it for float16 products of two matrix sides in a layout it takes, and only then.
    assert_eq!(select_matmul(64, 64, 64, 1, true, false, false), MatmulPipeline::Coop);
    assert_eq!(select_matmul(64, 64, 64, 1, false, false, false), MatmulPipeline::Batched);
    assert_eq!(select_matmul(1, 4096, 4096, 1, true, false, false), MatmulPipeline::Gemv);
    assert_eq!(select_matmul(32, 32, 8192, 1, true, false, false), MatmulPipeline::Gemv);
    assert_eq!(select_matmul(16, 16, 16, 2, true, false, false), MatmulPipeline::Small);
    Ok(())
}

/// (m, k, n, batch) that the staged cooperative-matrix pipeline takes (m and n at least 128, multiples of 16): one
/// 128x128 tile; workgroups past the edge on both sides, which move back to overlap the last whole tile; K of one
/// half step (16), K not a multiple of its step of 32, K = 0; and several batches.
const STAGED_SHAPES: [(usize, usize, usize, usize); 6] =
    [(128, 32, 128, 1), (144, 48, 208, 1), (256, 16, 128, 2), (128, 0, 144, 1), (272, 80, 400, 1), (160, 96, 144, 3)];

/// Float16 products on the staged cooperative-matrix pipeline, forced on the devices that run it, through the
/// same layouts as the direct one; elsewhere, and for products it cannot take, forcing it is an error with the
/// reason.
fn staged_pipeline() -> Result<()> {
    let gpus = &devices().gpus;
    for (_, gpu) in gpus {
        gpu.force_matmul(gpu.has_staged_matmul().then_some(MatmulPipeline::CoopStaged));
    }
    for (i, shape) in STAGED_SHAPES.into_iter().enumerate() {
        each_layout(120 + i as u64, DType::F16, shape)?;
    }
    // Long K through many staged steps (and a last half step): a missing barrier shows as a wrong bit.
    exact(130, DType::F16, 144, 2064, 160)?;
    specials_stay_put(131, DType::F16, 144, 48, 176)?;
    force(Some(MatmulPipeline::CoopStaged));
    for (dev, gpu) in gpus {
        let g = &mut Gen(5);
        let run = |x: &Tensor, y: &Tensor| x.matmul(y).and_then(|c| vkml_tests::bytes(&c)).err().map(|e| e.to_string());
        let a = random_f32(g, &[128, 48], -1.0, 1.0, *dev)?;
        let h = a.to_dtype(DType::F16)?;
        let small = h.narrow(0, 0, 112)?;
        let cases = [
            (run(&a, &a.t()?), "float16 inputs only", true),
            (run(&small, &small.t()?), "of at least 128", false),
            (run(&h.narrow(1, 0, 40)?, &h.narrow(1, 0, 40)?.t()?), "multiples of 16", true),
        ];
        for (err, why, layout) in cases {
            let err = err.unwrap_or_default();
            let want = match (gpu.has_coop_matmul(), gpu.has_staged_matmul()) {
                (false, _) => "offers no cooperative-matrix",
                (true, false) if !layout => "runs no staged",
                _ => why,
            };
            assert!(err.contains(want), "forced staged pipeline on {dev:?}: {err:?}, want {want:?}");
        }
        let ok = run(&h, &h.t()?);
        assert_eq!(ok.is_none(), gpu.has_staged_matmul(), "a 128x48 @ 48x128 float16 product on {dev:?}: {ok:?}");
    }
    force(None);
    // The selector takes it for float16 products at least 128 on a side, where it runs.
    assert_eq!(select_matmul(1024, 1024, 1024, 1, true, true, false), MatmulPipeline::CoopStaged);
    assert_eq!(select_matmul(128, 128, 784, 1, true, true, false), MatmulPipeline::CoopStaged);
    assert_eq!(select_matmul(1024, 1024, 1024, 1, true, false, false), MatmulPipeline::Coop);
    assert_eq!(select_matmul(8192, 64, 512, 1, true, true, false), MatmulPipeline::Coop);
    assert_eq!(select_matmul(112, 4096, 512, 1, true, true, false), MatmulPipeline::Coop);
    assert_eq!(select_matmul(1024, 1024, 1024, 1, false, true, false), MatmulPipeline::Tiled);
    Ok(())
}

/// (m, k, n, batch) that the wide pipeline takes (multiples of 4): one tile, tiles one quad past the edge on each
/// side, K not a multiple of its step of 8, K = 0, and several batches.
const WIDE_SHAPES: [(usize, usize, usize, usize); 7] = [
    (128, 8, 128, 1),
    (4, 4, 4, 2),
    (132, 12, 260, 1),
    (256, 36, 124, 2),
    (64, 0, 32, 1),
    (20, 100, 136, 3),
    (260, 4, 4, 1),
];

/// Float32 products on the wide pipeline, forced on the devices that run it, through row-major, transposed
/// (column-major) and batch-broadcast operands; shapes, dtypes and layouts it cannot take are refused with the
/// reason, as is every product on a device without it (the floor).
fn wide_pipeline() -> Result<()> {
    let gpus = &devices().gpus;
    for (_, gpu) in gpus {
        gpu.force_matmul(gpu.has_wide_matmul().then_some(MatmulPipeline::Wide));
    }
    for (i, shape) in WIDE_SHAPES.into_iter().enumerate() {
        each_layout(100 + i as u64, DType::F32, shape)?;
    }
    exact(110, DType::F32, 132, 2100, 72)?;
    specials_stay_put(111, DType::F32, 132, 20, 136)?;
    force(Some(MatmulPipeline::Wide));
    for (dev, gpu) in gpus {
        let g = &mut Gen(4);
        let run = |x: &Tensor, y: &Tensor| x.matmul(y).and_then(|c| vkml_tests::bytes(&c)).err().map(|e| e.to_string());
        let a = random_f32(g, &[32, 48], -1.0, 1.0, *dev)?;
        let cases = [
            (run(&a.to_dtype(DType::F16)?, &a.t()?.to_dtype(DType::F16)?), "float32 inputs only"),
            (run(&a.narrow(1, 0, 42)?, &a.narrow(1, 0, 42)?.t()?), "multiples of 4"),
            (run(&a.narrow(1, 1, 32)?, &a.narrow(0, 0, 32)?), "offsets 1 and 0"),
        ];
        for (err, why) in cases {
            let err = err.unwrap_or_default();
            let want = if gpu.has_wide_matmul() { why } else { "runs no wide matmul" };
            assert!(err.contains(want), "forced wide pipeline on {dev:?}: {err:?}, want {want:?}");
        }
        let ok = run(&a, &a.t()?);
        assert_eq!(ok.is_none(), gpu.has_wide_matmul(), "a 32x48 @ 48x32 float32 product on {dev:?}: {ok:?}");
    }
    force(None);
    // The selector takes it for the tiled pipeline's products at least 128 wide, where it runs, and only then.
    assert_eq!(select_matmul(1024, 1024, 64, 1, false, false, true), MatmulPipeline::Wide);
    assert_eq!(select_matmul(16384, 64, 64, 1, false, false, true), MatmulPipeline::Tiled);
    assert_eq!(select_matmul(1024, 1024, 64, 1, false, false, false), MatmulPipeline::Tiled);
    assert_eq!(select_matmul(512, 512, 512, 1, false, false, true), MatmulPipeline::Batched);
    Ok(())
}

#[test]
fn matmul_pipelines_at_tile_edges() -> Result<()> {
    for p in f32_pipelines() {
        force(Some(p));
        all_checks(DType::F32)?;
    }
    coop_pipeline()?;
    staged_pipeline()?;
    wide_pipeline()?;
    // More outputs than one grid row holds (65,535 workgroups): gemv's second row of workgroups.
    force(Some(MatmulPipeline::Gemv));
    each_layout(70, DType::F32, (1, 2, 70_001, 1))?;
    force(None);
    // The selector's choices, and its way around the floor's grid limits: 70,000 batches exceed the z dimension
    // of every tiled pipeline, so the selector takes the flat one, which has no batch limit.
    let cases = [
        ((1, 1, 1, 1), MatmulPipeline::Small),
        ((1, 4096, 1, 1), MatmulPipeline::Gemv),
        ((1, 200, 512, 8), MatmulPipeline::Small),
        ((512, 784, 1, 1), MatmulPipeline::Gemv),
        ((20, 20, 20, 2), MatmulPipeline::Small),
        ((32, 4096, 32, 1), MatmulPipeline::Gemv),
        ((64, 784, 128, 1), MatmulPipeline::SplitK),
        ((128, 600, 128, 1), MatmulPipeline::SplitK),
        ((1024, 64, 1024, 1), MatmulPipeline::Tiled),
        ((512, 512, 512, 1), MatmulPipeline::Batched),
        ((128, 128, 128, 1), MatmulPipeline::Batched),
        ((48, 48, 48, 8), MatmulPipeline::Batched),
        ((100, 64, 10, 1), MatmulPipeline::Batched),
        ((2, 3, 2, 70_000), MatmulPipeline::Small),
    ];
    for ((m, kk, n, batch), want) in cases {
        assert_eq!(
            select_matmul(m, n, kk, batch, false, false, false),
            want,
            "selector for {m}x{kk} @ {kk}x{n}, batch {batch}"
        );
    }
    each_layout(60, DType::F32, (2, 3, 2, 70_000))?;
    // A forced pipeline past its grid limit is an error naming it, not a wrong answer.
    force(Some(MatmulPipeline::Batched));
    let g = &mut Gen(1);
    let dev = devices().gpus[0].0;
    let a = random_f32(g, &[70_000, 2, 3], -1.0, 1.0, dev)?;
    let b = random_f32(g, &[70_000, 3, 2], -1.0, 1.0, dev)?;
    let err = a.matmul(&b).and_then(|c| vkml_tests::bytes(&c)).err().map(|e| e.to_string()).unwrap_or_default();
    force(None);
    assert!(err.contains("Batched pipeline"), "forced past the grid limit: {err:?}");
    Ok(())
}
