//! Bind groups made once and reused: each family's layout takes its uniform at a dynamic offset into one of a few
//! buffers per device (the arenas, one per submission in turn, each refilled from its start), so a bind group depends
//! only on the family, the arena and the storage buffers it binds, and a training step that sees the same pooled
//! buffers again makes none.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::meta::Meta;

/// The arena's first size in kernels' uniforms; it doubles when a submission needs more.
const FIRST_SLOTS: u64 = 256;
/// Arenas taken in turn, one per submission: a submission's queue write into its arena waits only for the
/// submission that used it RING submissions before, not for the one just sent.
const RING: usize = 3;
/// Bind groups kept at most; past this the cache starts again (a workload that keeps binding new buffers).
const MAX_GROUPS: usize = 8192;

/// The bindings build.rs found a family's `main` using: (binding, 'u' uniform, 'r' read-only storage, 'w' writable
/// storage), in binding order.
pub type Bindings = &'static [(u32, char)];

/// A family's bind group layout and the pipeline layout over it.
pub fn layouts(
    device: &wgpu::Device,
    family: &str,
    bindings: Bindings,
) -> (wgpu::BindGroupLayout, wgpu::PipelineLayout) {
    let entries: Vec<wgpu::BindGroupLayoutEntry> = bindings
        .iter()
        .map(|&(binding, kind)| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: match kind {
                    'u' => wgpu::BufferBindingType::Uniform,
                    r => wgpu::BufferBindingType::Storage { read_only: r == 'r' },
                },
                has_dynamic_offset: kind == 'u',
                min_binding_size: None,
            },
            count: None,
        })
        .collect();
    let group =
        device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor { label: Some(family), entries: &entries });
    let pipeline = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(family),
        bind_group_layouts: &[Some(&group)],
        immediate_size: 0,
    });
    (group, pipeline)
}

/// Which bind group: its layout, the arena it reads uniforms from, and its storage buffers by binding.
#[derive(PartialEq, Eq, Hash)]
struct Key {
    layout: wgpu::BindGroupLayout,
    arena: wgpu::Buffer,
    buffers: Vec<(u32, wgpu::Buffer)>,
}

/// The uniform arena and the bind groups made over it.
pub struct Binder {
    /// Bytes between two kernels' uniforms (the device's uniform offset alignment).
    stride: u64,
    arenas: Mutex<Ring>,
    groups: Mutex<HashMap<Key, wgpu::BindGroup>>,
}

struct Ring {
    arenas: Vec<Arena>,
    /// The arena of the submission being recorded.
    at: usize,
}

struct Arena {
    buffer: wgpu::Buffer,
    /// Bytes written for the submission being recorded.
    used: u64,
}

impl Binder {
    pub fn new(device: &wgpu::Device, alignment: u32) -> Binder {
        let stride = (std::mem::size_of::<Meta>() as u64).next_multiple_of(u64::from(alignment.max(1)));
        let arenas = (0..RING).map(|_| Arena { buffer: arena_buffer(device, stride * FIRST_SLOTS), used: 0 }).collect();
        Binder { stride, arenas: Mutex::new(Ring { arenas, at: 0 }), groups: Mutex::default() }
    }

    /// Write `metas` into the arena after what this submission already holds (queue writes land ahead of the
    /// submission's commands) and return the arena and each one's offset. Called under the backend's encoder lock.
    pub fn uniforms<'a>(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        metas: impl ExactSizeIterator<Item = &'a Meta>,
    ) -> (wgpu::Buffer, Vec<u32>) {
        let size = std::mem::size_of::<Meta>();
        let mut ring = self.arenas.lock().unwrap_or_else(|e| e.into_inner());
        let at = ring.at;
        let arena = &mut ring.arenas[at];
        let count = metas.len();
        let need = self.stride * count as u64;
        if arena.used + need > arena.buffer.size() {
            // A new, larger arena; uniforms already written stay in the old one, which this submission's bind
            // groups keep alive. Groups over the old arena can no longer be reused: they go, and the old arena with
            // them once the submission is done; the other arenas' groups stay.
            let bytes = (arena.buffer.size() * 2).max(need.next_multiple_of(self.stride * FIRST_SLOTS));
            let old = std::mem::replace(arena, Arena { buffer: arena_buffer(device, bytes), used: 0 });
            self.groups.lock().unwrap_or_else(|e| e.into_inner()).retain(|k, _| k.arena != old.buffer);
        }
        let mut bytes = vec![0u8; need as usize];
        for (i, m) in metas.enumerate() {
            let at = i * self.stride as usize;
            bytes[at..at + size].copy_from_slice(bytemuck::bytes_of(m));
        }
        queue.write_buffer(&arena.buffer, arena.used, &bytes);
        let offsets = (0..count as u64).map(|i| (arena.used + i * self.stride) as u32).collect();
        arena.used += need;
        (arena.buffer.clone(), offsets)
    }

    /// The submission went out: the next one writes the next arena from its start (its writes land after the
    /// commands of the submission that used it last, which read the old values). The backend calls it with every
    /// submission, each of which sends the encoder the uniforms were written for, under the same lock.
    pub fn submitted(&self) {
        let mut ring = self.arenas.lock().unwrap_or_else(|e| e.into_inner());
        ring.at = (ring.at + 1) % RING;
        let at = ring.at;
        ring.arenas[at].used = 0;
    }

    /// The bind group of `layout` over `arena` (binding 0, at a dynamic offset) and `buffers` (binding, buffer),
    /// made the first time these buffers meet this layout.
    pub fn group(
        &self,
        device: &wgpu::Device,
        family: &str,
        layout: &wgpu::BindGroupLayout,
        arena: &wgpu::Buffer,
        buffers: Vec<(u32, wgpu::Buffer)>,
    ) -> wgpu::BindGroup {
        let key = Key { layout: layout.clone(), arena: arena.clone(), buffers };
        let mut groups = self.groups.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(g) = groups.get(&key) {
            return g.clone();
        }
        let meta = wgpu::BufferBinding {
            buffer: arena,
            offset: 0,
            size: wgpu::BufferSize::new(std::mem::size_of::<Meta>() as u64),
        };
        let mut entries = vec![wgpu::BindGroupEntry { binding: 0, resource: wgpu::BindingResource::Buffer(meta) }];
        for (binding, b) in &key.buffers {
            entries.push(wgpu::BindGroupEntry { binding: *binding, resource: b.as_entire_binding() });
        }
        let group =
            device.create_bind_group(&wgpu::BindGroupDescriptor { label: Some(family), layout, entries: &entries });
        if groups.len() >= MAX_GROUPS {
            groups.clear();
        }
        groups.insert(key, group.clone());
        vkml_core::util::stats::bump(vkml_core::util::stats::Counter::BindGroups, 1);
        group
    }

    /// Forget every bind group: they hold their buffers, which the pool is giving back to the device.
    pub fn clear(&self) {
        self.groups.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }
}

fn arena_buffer(device: &wgpu::Device, bytes: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("vkml uniforms"),
        size: bytes,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}
