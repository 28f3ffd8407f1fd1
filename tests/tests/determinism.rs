//! Same inputs, same bytes: a graph realized twice on each device gives identical results while what must not
//! matter varies — buffer-pool state, batching into submissions (lazy vs eager) and the CPU thread count.

use vkml_core::api::Tensor;
use vkml_core::backend::Backend;
use vkml_core::base::buffer::DeviceId;
use vkml_core::tensor::realize::set_eager;
use vkml_core::Result;
use vkml_tests::{bytes, devices, from_f32, random_f32, Gen};

fn graph(dev: DeviceId) -> Result<Tensor> {
    let mut g = Gen(99);
    let a = random_f32(&mut g, &[37, 53], -1.0, 1.0, dev)?;
    let b = random_f32(&mut g, &[53, 29], -1.0, 1.0, dev)?;
    let h = a.matmul(&b)?.relu()?;
    let s = h.sum(Some(&[0]), false)?;
    // A full sum long enough to run in chunks, then over the partials (api::reduce's split).
    let long = random_f32(&mut g, &[70_001], -1.0, 1.0, dev)?.sum(None, false)?;
    h.exp()?.mean(Some(&[1]), true)?.matmul(&s.unsqueeze(0)?)?.add(&long)
}

#[test]
fn realizing_twice_gives_the_same_bytes() -> Result<()> {
    let d = devices();
    for cpu in [d.cpu, d.fast_cpu] {
        let first = bytes(&graph(cpu)?)?;
        for threads in [1, 3] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .map_err(|e| vkml_core::Error::Backend(e.to_string()))?;
            let other = pool.install(|| graph(cpu).and_then(|t| bytes(&t)))?;
            assert_eq!(first, other, "{cpu:?}: the result on {threads} threads differs");
        }
    }
    for (id, backend) in &d.gpus {
        let lazy = bytes(&graph(*id)?)?;
        backend.empty_cache();
        set_eager(true);
        let eager = graph(*id).and_then(|t| bytes(&t));
        set_eager(false);
        assert_eq!(lazy, eager?, "{id:?}: eager (one submission per op) differs from lazy");
        // A warm pool hands out buffers that still hold old data.
        let warm = bytes(&graph(*id)?)?;
        assert_eq!(lazy, warm, "{id:?}: result depends on the buffer pool");
    }
    Ok(())
}

/// The fast CPU sums a column (a reduced dim that steps over whole rows) and a row of runs in the order it sums a
/// gathered row: position mod 8 into eight lanes, then the lanes in order. Terms of 2⁶⁰ beside small ones make the order show in the result.
#[test]
fn column_and_run_sums_add_in_the_row_order() -> Result<()> {
    let fast = devices().fast_cpu;
    let (rows, cols) = (1003, 2500);
    let mut g = Gen(11);
    let big = [1.0e18f32, -1.0e18, 3.0e18];
    let values: Vec<f32> =
        (0..rows * cols).map(|i| if i % 7 < 3 { big[i % 3] } else { g.uniform(-4.0, 4.0) }).collect();
    let x = from_f32(&values, &[rows, cols], fast)?;
    let by_columns = x.sum(Some(&[0]), false)?;
    let by_rows = x.transpose(0, 1)?.contiguous()?.sum(Some(&[1]), false)?;
    assert_eq!(bytes(&by_columns)?, bytes(&by_rows)?);
    // Two reduced dims, the kept ones contiguous: (2, 3, 41) summed over its (2, 3) part.
    let y = x.narrow(0, 0, 6)?.narrow(1, 0, 41)?.contiguous()?.reshape(&[2, 3, 41])?;
    let flat = y.reshape(&[6, 41])?.transpose(0, 1)?.contiguous()?.sum(Some(&[1]), false)?;
    assert_eq!(bytes(&y.sum(Some(&[0, 1]), false)?)?, bytes(&flat)?);
    // Rows of runs (a bias gradient's: (5, 3, 37) summed over dims 0 and 2, each channel 5 runs of 37): each run is
    // summed first, as a contiguous row, then each channel's 5 run sums in row order (core's `trailing_stage`), against
    // the same two stages over rows gathered from strided views. Each row's ±2⁶⁰ terms cancel, so which small terms
    // they swallow (the order) decides the result.
    let term = |p: usize, c: usize| match p % 5 {
        0 => 1.0e18f32,
        1 => -1.0e18,
        _ => (p * 7 + c) as f32 % 11.0 - 5.0,
    };
    let zs: Vec<f32> = (0..5 * 3 * 37).map(|i| term((i / 111) * 37 + i % 37, (i / 37) % 3)).collect();
    let z = from_f32(&zs, &[5, 3, 37], fast)?;
    let runs = z.reshape(&[15, 37])?.transpose(0, 1)?.contiguous()?.transpose(0, 1)?.sum(Some(&[1]), false)?;
    let channels = runs.reshape(&[5, 3])?.transpose(0, 1)?.contiguous()?.sum(Some(&[1]), false)?;
    assert_eq!(bytes(&z.sum(Some(&[0, 2]), false)?)?, bytes(&channels)?);
    Ok(())
}
