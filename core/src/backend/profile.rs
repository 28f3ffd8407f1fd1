//! The profiler behind `vkml.profile()`: while it records, each backend reports every kernel it runs (the op, the
//! pipeline that ran it, shapes, dtypes, the bytes it moves and the arithmetic it does, and the device time its
//! timestamp queries measured where the device has them) and the planner every realization's host time. The
//! session renders itself as a table (where the time went) and as a Chrome trace (which Perfetto opens).

use std::fmt::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};

use crate::backend::Kernel;
use crate::graph::op::Op;
use crate::util::error::{Error, Result};

/// One kernel as it ran.
#[derive(Clone, Debug)]
pub struct KernelRecord {
    pub device: String,
    /// The op (`Op::name`).
    pub op: &'static str,
    /// The pipeline (shader family) the backend chose.
    pub pipeline: &'static str,
    pub shape: Vec<usize>,
    pub dtype: &'static str,
    /// Each input's view shape and dtype.
    pub inputs: Vec<(Vec<usize>, &'static str)>,
    /// Bytes read through the inputs' views plus bytes written.
    pub bytes: u64,
    /// Floating-point operations of a product (2·M·N·K); 0 for others, whose figure is bandwidth.
    pub flops: u64,
    /// The submission (batch) it ran in, numbered from 0 within the session.
    pub batch: usize,
    /// Device time in nanoseconds, where the device measured it.
    pub device_ns: Option<f64>,
    /// Device timestamp at its start, nanoseconds on the device's clock, where measured.
    pub start_ns: Option<f64>,
}

impl KernelRecord {
    /// The record of `k` as it is about to run on `device` through `pipeline`, not yet timed.
    pub fn new(device: &str, k: &Kernel, pipeline: &'static str, batch: usize) -> KernelRecord {
        let itemsize = |n: usize, size: usize| (n as u64).saturating_mul(size as u64);
        let numel = |s: &[usize]| s.iter().product::<usize>();
        let read: u64 = k
            .args
            .iter()
            .map(|a| itemsize(numel(&a.view.shape), a.buffer.dtype.itemsize()))
            .fold(0, u64::saturating_add);
        let written = itemsize(numel(&k.shape), k.out.dtype.itemsize());
        let flops = match &k.op {
            Op::Matmul => {
                let depth = k.args.first().and_then(|a| a.view.shape.last().copied()).unwrap_or(0);
                2u64.saturating_mul(numel(&k.shape) as u64).saturating_mul(depth as u64)
            }
            _ => 0,
        };
        KernelRecord {
            device: device.to_string(),
            op: k.op.name(),
            pipeline,
            shape: k.shape.clone(),
            dtype: k.out.dtype.name(),
            inputs: k.args.iter().map(|a| (a.view.shape.clone(), a.buffer.dtype.name())).collect(),
            bytes: read.saturating_add(written),
            flops,
            batch,
            device_ns: None,
            start_ns: None,
        }
    }
}

/// One realization: when it started (µs since the session began) and how long the host spent in it.
#[derive(Clone, Debug)]
pub struct RealizeRecord {
    pub start_us: f64,
    pub host_us: f64,
}

/// What one recording saw.
#[derive(Clone, Debug, Default)]
pub struct Session {
    pub kernels: Vec<KernelRecord>,
    pub realizations: Vec<RealizeRecord>,
    /// What could not be measured, once each ("vulkan:0:floor has no timestamp queries: ...").
    pub notes: Vec<String>,
    batches: usize,
}

static ON: AtomicBool = AtomicBool::new(false);
static SESSION: Mutex<Option<Session>> = Mutex::new(None);

fn session() -> MutexGuard<'static, Option<Session>> {
    SESSION.lock().unwrap_or_else(|e| e.into_inner())
}

/// Whether a session is recording (cheap: backends ask before building records).
pub fn is_on() -> bool {
    ON.load(Ordering::Relaxed)
}

/// Start recording; one session at a time.
pub fn start() -> Result<()> {
    let mut s = session();
    if s.is_some() {
        return Err(Error::Runtime("a profile is already recording: stop it before starting another".into()));
    }
    *s = Some(Session::default());
    clock_start();
    ON.store(true, Ordering::Relaxed);
    Ok(())
}

/// Stop recording and hand back what was seen (an empty session when none was recording).
pub fn stop() -> Session {
    ON.store(false, Ordering::Relaxed);
    session().take().unwrap_or_default()
}

/// Number the next batch a backend submits (0 when none is recording).
pub fn next_batch() -> usize {
    session().as_mut().map_or(0, |s| {
        s.batches += 1;
        s.batches - 1
    })
}

/// Add the kernels of a batch; returns the index of the first, so that a backend can fill in device times that
/// arrive later (`set_times`).
pub fn record(kernels: Vec<KernelRecord>) -> usize {
    let mut s = session();
    let Some(s) = s.as_mut() else { return 0 };
    let first = s.kernels.len();
    s.kernels.extend(kernels);
    first
}

/// Fill in the device times (start, duration; nanoseconds) of the kernels from `first` on.
pub fn set_times(first: usize, times: &[(f64, f64)]) {
    if let Some(s) = session().as_mut() {
        for (k, (start, dur)) in s.kernels.iter_mut().skip(first).zip(times) {
            k.start_ns = Some(*start);
            k.device_ns = Some(*dur);
        }
    }
}

/// Say once what could not be measured.
pub fn note(text: String) {
    if let Some(s) = session().as_mut() {
        if !s.notes.contains(&text) {
            s.notes.push(text);
        }
    }
}

/// Add a realization that started at `start_us` (from [`now_us`]) and ends now.
pub fn record_realize(start_us: f64) {
    let end = now_us();
    if let Some(s) = session().as_mut() {
        s.realizations.push(RealizeRecord { start_us, host_us: end - start_us });
    }
}

/// The host clock: microseconds since the session started. Natively `std::time::Instant`; a browser has no such
/// clock in Rust's std, so the front end installs one (`set_clock`, from `performance.now()`).
static CLOCK: OnceLock<fn() -> f64> = OnceLock::new();
static ORIGIN: Mutex<f64> = Mutex::new(0.0);

/// Install the host clock (milliseconds, any origin) where std has none.
pub fn set_clock(ms: fn() -> f64) {
    let _ = CLOCK.set(ms);
}

/// Whether the host clock runs (natively always; in a browser once the front end installed one).
pub fn has_clock() -> bool {
    cfg!(not(target_arch = "wasm32")) || CLOCK.get().is_some()
}

fn raw_ms() -> f64 {
    if let Some(clock) = CLOCK.get() {
        return clock();
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        static EPOCH: OnceLock<std::time::Instant> = OnceLock::new();
        EPOCH.get_or_init(std::time::Instant::now).elapsed().as_secs_f64() * 1e3
    }
    #[cfg(target_arch = "wasm32")]
    0.0
}

fn clock_start() {
    *ORIGIN.lock().unwrap_or_else(|e| e.into_inner()) = raw_ms();
}

/// Microseconds since the session started.
pub fn now_us() -> f64 {
    (raw_ms() - *ORIGIN.lock().unwrap_or_else(|e| e.into_inner())) * 1e3
}

/// `v` to about three significant digits (rates span 0.001 GB/s on a tiny kernel to thousands).
fn three_digits(v: f64) -> String {
    match v {
        v if v >= 100.0 => format!("{v:.0}"),
        v if v >= 10.0 => format!("{v:.1}"),
        v if v >= 1.0 => format!("{v:.2}"),
        v => format!("{v:.3}"),
    }
}

/// One row of [`Session::rows`]: the kernels like `first` (same device, op, pipeline, shape and dtype), summed.
#[derive(Clone, Debug)]
pub struct Row {
    pub first: KernelRecord,
    pub calls: usize,
    /// Summed device time (ms), None where no call was timed.
    pub device_ms: Option<f64>,
    pub bytes: u64,
    pub flops: u64,
}

impl Row {
    /// GB/s (or TFLOP/s for a product) over the timed calls.
    pub fn rate(&self) -> Option<(f64, &'static str)> {
        let ms = self.device_ms.filter(|ms| *ms > 0.0)?;
        Some(if self.flops > 0 {
            (self.flops as f64 / ms / 1e9, "TFLOP/s")
        } else {
            (self.bytes as f64 / ms / 1e6, "GB/s")
        })
    }
}

impl Session {
    /// The kernels grouped, the most device time first (untimed groups after, by calls).
    pub fn rows(&self) -> Vec<Row> {
        let mut rows: Vec<Row> = Vec::new();
        for k in &self.kernels {
            let same = |r: &&mut Row| {
                let f = &r.first;
                (&f.device, f.op, f.pipeline, &f.shape, f.dtype) == (&k.device, k.op, k.pipeline, &k.shape, k.dtype)
            };
            let row = match rows.iter_mut().find(same) {
                Some(r) => r,
                None => {
                    rows.push(Row { first: k.clone(), calls: 0, device_ms: None, bytes: 0, flops: 0 });
                    let last = rows.len() - 1;
                    &mut rows[last]
                }
            };
            row.calls += 1;
            if let Some(ns) = k.device_ns {
                row.device_ms = Some(row.device_ms.unwrap_or(0.0) + ns / 1e6);
                row.bytes = row.bytes.saturating_add(k.bytes);
                row.flops = row.flops.saturating_add(k.flops);
            }
        }
        rows.sort_by(|a, b| {
            let key = |r: &Row| r.device_ms.unwrap_or(-1.0);
            key(b).total_cmp(&key(a)).then(b.calls.cmp(&a.calls))
        });
        rows
    }

    /// Summed device time of every timed kernel (ms).
    pub fn device_ms(&self) -> f64 {
        self.kernels.iter().filter_map(|k| k.device_ns).fold(0.0, |a, b| a + b) / 1e6
    }

    /// Summed host time of every realization (ms).
    pub fn host_ms(&self) -> f64 {
        self.realizations.iter().map(|r| r.host_us).fold(0.0, |a, b| a + b) / 1e3
    }

    /// Where the time went: one line per group with its device time, share, calls and rate; then the totals and
    /// the notes.
    pub fn table(&self) -> String {
        let total = self.device_ms();
        let mut out = format!(
            "{:>10} {:>6} {:>6} {:>14}  {:<12} {:<22} {:<9} {:<16} shape\n",
            "device ms", "share", "calls", "rate", "op", "pipeline", "dtype", "device"
        );
        for r in self.rows() {
            let ms = r.device_ms.map_or("—".to_string(), |ms| format!("{ms:.3}"));
            let share = match r.device_ms {
                Some(ms) if total > 0.0 => format!("{:.1}%", 100.0 * ms / total),
                _ => "—".to_string(),
            };
            let rate = r.rate().map_or("—".to_string(), |(v, unit)| format!("{} {unit}", three_digits(v)));
            let _ = writeln!(
                out,
                "{ms:>10} {share:>6} {:>6} {rate:>14}  {:<12} {:<22} {:<9} {:<16} {:?}",
                r.calls, r.first.op, r.first.pipeline, r.first.dtype, r.first.device, r.first.shape
            );
        }
        let _ = writeln!(
            out,
            "{} kernels in {} submissions: {total:.3} ms of device time; {} realizations: {:.3} ms of host time",
            self.kernels.len(),
            self.batches,
            self.realizations.len(),
            self.host_ms()
        );
        for n in &self.notes {
            let _ = writeln!(out, "note: {n}");
        }
        out
    }

    /// The Chrome trace-event JSON (Perfetto and chrome://tracing open it): the realizations on the host track, the
    /// timed kernels on one track per device, at their device timestamps shifted to start with the first.
    pub fn chrome_trace(&self) -> String {
        use serde_json::json;
        let mut events = Vec::new();
        for r in &self.realizations {
            events.push(json!({"name": "realize", "cat": "host", "ph": "X", "ts": r.start_us, "dur": r.host_us,
                               "pid": 0, "tid": "host"}));
        }
        let origin = self.kernels.iter().filter_map(|k| k.start_ns).fold(f64::INFINITY, f64::min);
        for k in &self.kernels {
            let (Some(start), Some(dur)) = (k.start_ns, k.device_ns) else { continue };
            events.push(json!({
                "name": k.op, "cat": k.pipeline, "ph": "X", "ts": (start - origin) / 1e3, "dur": dur / 1e3,
                "pid": 1, "tid": k.device,
                "args": {"pipeline": k.pipeline, "shape": k.shape, "dtype": k.dtype, "inputs": k.inputs,
                         "bytes": k.bytes, "flops": k.flops, "batch": k.batch},
            }));
        }
        json!({"traceEvents": events, "displayTimeUnit": "ms", "otherData": {"notes": self.notes}}).to_string()
    }
}
