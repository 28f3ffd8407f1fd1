//! Each matmul pipeline, forced, against the CPU oracle at its tile edges (sizes not multiples of its tile, K = 1,
//! K = 0, empty outputs, many tiles), with transposed and batch-broadcast inputs read in place; long-K integer
//! products that every order sums exactly, so a race between tile loads shows as a wrong bit; and the selector's
//! choices. One test in this binary: the pipeline is forced on the shared devices, so nothing else may run beside it.

use vkml_backend_vulkan::{select_matmul, MatmulPipeline};
use vkml_core::api::Tensor;
use vkml_core::base::buffer::DeviceId;
use vkml_core::Result;
use vkml_tests::{check, check_terms, devices, from_f32, matmul_operands, random_f32, Gen};

/// (m, k, n, batch): every pipeline's tile edges (4, 16, 64 and 128 lanes), one past them, vectors, K = 1, K = 0,
/// and empty outputs.
const SHAPES: [(usize, usize, usize, usize); 14] = [
    (1, 1, 1, 1),
    (1, 300, 1, 2),
    (1, 37, 70, 2),
    (70, 129, 1, 1),
    (5, 7, 3, 3),
    (17, 15, 16, 2),
    (63, 16, 65, 1),
    (64, 17, 64, 1),
    (129, 33, 130, 1),
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

fn each_layout(seed: u64, (m, kk, n, batch): (usize, usize, usize, usize)) -> Result<()> {
    let mk = move |g: &mut Gen, dev: DeviceId| matmul_operands(g, dev, batch, m, kk, n);
    // The contract's bound over K terms in [-1, 1): a pipeline that drops or repeats a term fails it.
    let k = Some(kk);
    check_terms("matmul", k, seed, mk, |t| t[0].matmul(&t[1]))?;
    check_terms("matmul", k, seed, mk, |t| t[0].matmul(&t[2].transpose(1, 2)?))?;
    check_terms("matmul", k, seed, mk, |t| t[0].contiguous()?.matmul(&t[1]))
}

/// Small integers: every product and partial sum is exact in f32, so each pipeline must give the oracle's bits
/// whatever its order ("matmul_exact" is not in the op table, so `check` compares bits). Long K runs many tiles
/// through workgroup memory; a missing barrier lets one tile's loads overwrite another's reads.
fn exact(seed: u64, m: usize, kk: usize, n: usize) -> Result<()> {
    let mk = move |g: &mut Gen, dev: DeviceId| -> Result<Vec<Tensor>> {
        let ints = |g: &mut Gen, len: usize| -> Vec<f32> { (0..len).map(|_| g.below(9) as f32 - 4.0).collect() };
        Ok(vec![from_f32(&ints(g, m * kk), &[m, kk], dev)?, from_f32(&ints(g, kk * n), &[kk, n], dev)?])
    };
    check("matmul_exact", seed, mk, |t| t[0].matmul(&t[1]))
}

/// An infinity and a NaN in some rows of a and columns of b: they must reach exactly the outputs of their row or
/// column (a pipeline that reads past a row's K, or past the matrix, into padding multiplies them by zero: NaN).
fn specials_stay_put(seed: u64, m: usize, kk: usize, n: usize) -> Result<()> {
    let mk = move |g: &mut Gen, dev: DeviceId| -> Result<Vec<Tensor>> {
        let mut a: Vec<f32> = (0..m * kk).map(|_| g.uniform(-1.0, 1.0)).collect();
        let mut b: Vec<f32> = (0..kk * n).map(|_| g.uniform(-1.0, 1.0)).collect();
        a[kk + kk / 2] = f32::INFINITY; // row 1
        a[(m - 1) * kk] = f32::NAN; // the last row's first term
        b[n - 1] = f32::NEG_INFINITY; // the last column's first term
        Ok(vec![from_f32(&a, &[m, kk], dev)?, from_f32(&b, &[kk, n], dev)?])
    };
    check_terms("matmul", Some(kk), seed, mk, |t| t[0].matmul(&t[1]))
}

#[test]
fn matmul_pipelines_at_tile_edges() -> Result<()> {
    for p in MatmulPipeline::ALL {
        force(Some(p));
        for (i, shape) in SHAPES.into_iter().enumerate() {
            each_layout(i as u64, shape)?;
        }
        for (i, (m, kk, n)) in [(67, 2100, 70), (3, 4099, 130), (1, 5000, 9)].into_iter().enumerate() {
            exact(40 + i as u64, m, kk, n)?;
        }
        for (i, (m, kk, n)) in [(5, 19, 6), (66, 21, 67), (3, 1030, 5)].into_iter().enumerate() {
            specials_stay_put(50 + i as u64, m, kk, n)?;
        }
    }
    // More outputs than one grid row holds (65,535 workgroups): gemv's second row of workgroups.
    force(Some(MatmulPipeline::Gemv));
    each_layout(70, (1, 2, 70_001, 1))?;
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
        assert_eq!(select_matmul(m, n, kk, batch), want, "selector for {m}x{kk} @ {kk}x{n}, batch {batch}");
    }
    each_layout(60, (2, 3, 2, 70_000))?;
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
