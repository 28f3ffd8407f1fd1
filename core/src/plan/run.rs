//! Layer 6: runs a schedule. Each unrealized node becomes an upload or a kernel, kernels are batched per device
//! (one submission each), and nodes are marked realized once their batch succeeded. Also eager mode and the
//! pending-graph threshold that decide when the tensor layer asks for a run.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use rustc_hash::FxHashMap as HashMap;

use super::schedule;
use crate::backend::{profile, Arg, Kernel};
use crate::base::buffer::{Buffer, DeviceId};
use crate::dispatch;
use crate::graph::node::Node;
use crate::graph::op::Op;
use crate::util::error::{Error, Result};
use crate::util::stats::{bump, span, Counter};

/// Pending nodes built since the last realization; past this many, the next op realizes its graph.
const PENDING_LIMIT: usize = 4096;

static EAGER_SET: OnceLock<()> = OnceLock::new();
static EAGER: AtomicBool = AtomicBool::new(false);
static PENDING: AtomicUsize = AtomicUsize::new(0);

/// Whether every op is evaluated at once (`vkml.set_eager`, or `VKML_EAGER=1` at start).
pub fn is_eager() -> bool {
    EAGER_SET.get_or_init(|| {
        if std::env::var("VKML_EAGER").as_deref() == Ok("1") {
            EAGER.store(true, Ordering::Relaxed);
        }
    });
    EAGER.load(Ordering::Relaxed)
}

pub fn set_eager(on: bool) {
    let _ = is_eager();
    EAGER.store(on, Ordering::Relaxed);
}

/// Counts a newly built node; true when it should be realized at once (eager mode, or the pending graph is large).
pub fn note_built() -> bool {
    let pending = PENDING.fetch_add(1, Ordering::Relaxed) + 1;
    is_eager() || pending > PENDING_LIMIT
}

/// One-element tensors a backward pass started from (a loss), realized with the next realization: a training loop
/// reads its loss after `opt.step()`, which would otherwise cost it a realization (on a GPU, a submission) of its own.
/// Held weakly: a loss nobody keeps is not computed.
static COMPANIONS: Mutex<Vec<Weak<Node>>> = Mutex::new(Vec::new());

/// Realize `node` with the next realization, if it is still pending and held then.
pub fn realize_with_next(node: &Arc<Node>) {
    if !node.is_realized() {
        COMPANIONS.lock().unwrap_or_else(|e| e.into_inner()).push(Arc::downgrade(node));
    }
}

/// The companions still held and pending, before `roots` (walked last: `schedule` keeps the roots' own order).
fn with_companions(mut roots: Vec<Arc<Node>>) -> Vec<Arc<Node>> {
    let waiting = std::mem::take(&mut *COMPANIONS.lock().unwrap_or_else(|e| e.into_inner()));
    let live: Vec<Arc<Node>> = waiting.iter().filter_map(Weak::upgrade).filter(|n| !n.is_realized()).collect();
    if !live.is_empty() {
        roots.splice(0..0, live);
    }
    roots
}

/// Realize `roots`, waiting natively (a browser cannot wait: there `realize_async` is awaited instead).
pub fn realize_nodes(roots: Vec<Arc<Node>>) -> Result<()> {
    dispatch::block_on(realize_async(roots))
}

/// A future that need not be `Send`: realization runs on the thread that asked for it.
pub type Local<T> = Pin<Box<dyn Future<Output = Result<T>>>>;

/// Realization itself is async: a transfer between devices reads its source first, and a browser can only await
/// that. Boxed, because reading a transfer's source realizes it in turn.
fn realize_async(roots: Vec<Arc<Node>>) -> Local<()> {
    Box::pin(async move {
        let timing = span(Counter::HostScheduleNs);
        let roots = with_companions(roots);
        let order = schedule(&roots);
        timing.end();
        if order.is_empty() {
            return Ok(());
        }
        PENDING.store(0, Ordering::Relaxed);
        bump(Counter::Realizations, 1);
        let started = profile::is_on().then(profile::now_us);
        let timing = span(Counter::HostFuseNs);
        let holders = super::holders::Holders::new(&order, &roots);
        let mut fusion = if super::fuse::enabled() { super::fuse::plan(&order, &holders) } else { Default::default() };
        timing.end();
        let timing = span(Counter::HostPrepareNs);
        // Buffers of nodes realized by this call, in schedule order (`done` finds a node's); nodes are marked realized
        // only once their device's batch succeeded, so a failed batch never leaves garbage behind. Where this call
        // holds a buffer's last handle, the buffer goes back to the pool as `outs` drops, in that order: a repeated
        // step then gets the same buffers in the same places, and the GPU its bind groups again (the ids in `done`
        // differ from step to step, and so would a map's order).
        let mut done: HashMap<u64, usize> = HashMap::default();
        let mut outs: Vec<Buffer> = Vec::with_capacity(order.len());
        let mut reuse = super::reuse::Reuse::new(&order, &holders, &fusion);
        // Each pending node's sources, as the holders read them once; a kernel takes its node's from here.
        let mut srcs_of = holders.srcs;
        let mut batches: BTreeMap<DeviceId, Vec<(Arc<Node>, Kernel)>> = BTreeMap::new();
        // Scalar constants that take an earlier one's buffer; realized once every batch has run.
        let mut twins = super::twins::Twins::default();
        let mut twinned = Vec::new();
        for (at, node) in order.into_iter().enumerate() {
            if fusion.inlined.contains(&node.id) {
                bump(Counter::NodesFused, 1);
                continue;
            }
            let b = dispatch::backend(node.device)?;
            let twin = twins.earlier(&node).and_then(|first| done.get(&first).copied());
            let out = if let Some(i) = twin {
                twinned.push(node.clone());
                outs[i].clone()
            } else {
                match &node.op {
                    Op::Data(h) => {
                        bump(Counter::BytesUploaded, h.bytes.len() as u64);
                        b.upload(node.device, h.dtype, &h.bytes)?
                    }
                    Op::Transfer => {
                        let src = srcs_of
                            .remove(&node.id)
                            .and_then(|s| s.into_iter().next())
                            .ok_or_else(|| Error::Backend("transfer without source".into()))?;
                        // Values still held on the host (`from_numpy(a).to(device)`) go up from there: realizing
                        // and reading back a copy on the source device first would copy them twice more.
                        let read;
                        let bytes: &[u8] = match &src.node.op {
                            Op::Data(h) if h.dtype == node.dtype => &h.bytes,
                            _ => {
                                read = read_node_async(&src.node).await?;
                                &read
                            }
                        };
                        bump(Counter::BytesUploaded, bytes.len() as u64);
                        b.upload(node.device, node.dtype, bytes)?
                    }
                    op => {
                        let out = match reuse.take(node.device, node.dtype, node.numel()) {
                            Some(out) => out,
                            None => b.alloc(node.device, node.dtype, node.numel())?,
                        };
                        let (op, srcs) = match fusion.programs.remove(&node.id) {
                            Some((steps, srcs)) => (Op::Fused(steps), srcs),
                            None => (op.clone(), srcs_of.remove(&node.id).unwrap_or_default()),
                        };
                        // After the output is allocated: a buffer freed here goes to a later kernel, never this one.
                        reuse.read(at, &srcs, |id| done.get(&id).map(|&i| outs[i].clone()));
                        let mut args = Vec::new();
                        for s in srcs {
                            let buffer = match done.get(&s.node.id) {
                                Some(&i) => outs[i].clone(),
                                None => s.node.buffer().ok_or_else(|| Error::Backend("source not realized".into()))?,
                            };
                            args.push(Arg { buffer, view: s.view });
                        }
                        let kernel = Kernel { op, args, out: out.clone(), shape: node.shape.clone() };
                        batches.entry(node.device).or_default().push((node.clone(), kernel));
                        out
                    }
                }
            };
            done.insert(node.id, outs.len());
            outs.push(out.clone());
            if matches!(node.op, Op::Data(_) | Op::Transfer) {
                node.set_realized(out);
            }
        }
        timing.end();
        for (device, batch) in batches {
            let b = dispatch::backend(device)?;
            let (nodes, kernels): (Vec<_>, Vec<_>) = batch.into_iter().unzip();
            b.run(kernels).await?;
            if is_eager() {
                b.flush();
            }
            for n in nodes {
                if let Some(&i) = done.get(&n.id) {
                    n.set_realized(outs[i].clone());
                }
            }
        }
        for n in twinned {
            if let Some(&i) = done.get(&n.id) {
                n.set_realized(outs[i].clone());
            }
        }
        if let Some(started) = started {
            profile::record_realize(started);
        }
        Ok(())
    })
}

/// The whole buffer of a node, realizing it first, in NumPy layout.
pub fn read_node_async(node: &Arc<Node>) -> Local<Vec<u8>> {
    let node = node.clone();
    Box::pin(async move {
        realize_async(vec![node.clone()]).await?;
        let buf = node.buffer().ok_or_else(|| Error::Backend("node not realized after realize".into()))?;
        let bytes = dispatch::backend(node.device)?.read(&buf).await?;
        bump(Counter::BytesDownloaded, bytes.len() as u64);
        Ok(bytes)
    })
}

/// Wait for all work on every device (a realization point for nothing pending; GPUs finish their queues).
pub fn synchronize() -> Result<()> {
    for id in dispatch::devices() {
        dispatch::backend(id)?.drive(true);
    }
    Ok(())
}
