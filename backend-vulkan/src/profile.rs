//! Device times for the profiler (`vkml_core::backend::profile`): while it records, each kernel of a batch runs in
//! a compute pass of its own whose beginning and end write timestamps (WebGPU's `timestamp-query`, which both
//! Vulkan and browsers offer as a pass's timestamps); the batch resolves them into a buffer read back after its
//! submission.

/// One kernel ready to dispatch: its pipeline, bind group, its uniform's offset in that group and its grid.
pub type Step = (wgpu::ComputePipeline, wgpu::BindGroup, u32, (u32, u32, u32));

/// Kernels per query set: two queries each, within wgpu's 4,096 queries per set.
const PER_SET: usize = 2048;

/// The timestamps of a recorded batch, to read back once it is submitted.
pub struct Timed {
    /// The session index of the batch's first kernel.
    pub first: usize,
    /// Begin and end ticks of every kernel, two u64 each, once copied.
    pub staging: wgpu::Buffer,
    pub kernels: usize,
}

/// Record `steps` into `enc`, one pass each with timestamps, and the copy of the resolved ticks into a buffer that
/// can be mapped.
pub fn encode(device: &wgpu::Device, enc: &mut wgpu::CommandEncoder, steps: &[Step], first: usize) -> Timed {
    let bytes = (steps.len() * 16) as u64;
    let resolved = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("vkml profile ticks"),
        size: bytes,
        usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    for (chunk, part) in steps.chunks(PER_SET).enumerate() {
        let queries = (part.len() * 2) as u32;
        let set = device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("vkml profile"),
            ty: wgpu::QueryType::Timestamp,
            count: queries,
        });
        for (i, (pipeline, bind, offset, groups)) in part.iter().enumerate() {
            let writes = wgpu::ComputePassTimestampWrites {
                query_set: &set,
                beginning_of_pass_write_index: Some(2 * i as u32),
                end_of_pass_write_index: Some(2 * i as u32 + 1),
            };
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("vkml profiled"),
                timestamp_writes: Some(writes),
            });
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, bind, &[*offset]);
            pass.dispatch_workgroups(groups.0, groups.1, groups.2);
        }
        // Each chunk's ticks start at a multiple of 2048 · 16 bytes, within the 256-byte alignment a resolve needs.
        enc.resolve_query_set(&set, 0..queries, &resolved, (chunk * PER_SET * 16) as u64);
    }
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("vkml profile readback"),
        size: bytes,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    enc.copy_buffer_to_buffer(&resolved, 0, &staging, 0, bytes);
    Timed { first, staging, kernels: steps.len() }
}

/// (start, duration) in nanoseconds from the ticks read back; `period` is nanoseconds per tick. A pass whose end
/// reads before its beginning (a clock the driver reset) counts as zero.
pub fn times(ticks: &[u8], period: f32) -> Vec<(f64, f64)> {
    let tick = |b: &[u8]| u64::from_le_bytes(b.try_into().unwrap_or([0; 8]));
    ticks
        .chunks_exact(16)
        .map(|pair| {
            let (begin, end) = (tick(&pair[..8]), tick(&pair[8..]));
            (begin as f64 * period as f64, end.saturating_sub(begin) as f64 * period as f64)
        })
        .collect()
}
