//! One launch: which family runs, its uniform, its storage bindings and its workgroup grid (a compute dispatch).

use vkml_core::base::buffer::Buffer;

use crate::meta::Meta;

pub struct Launch {
    pub family: &'static str,
    pub meta: Meta,
    /// Input buffers in binding order (1, 2, 3); the output is binding 9.
    pub inputs: Vec<Buffer>,
    pub groups: (u32, u32, u32),
}

/// A 2-D grid of `count` workgroups (x is limited to 65,535 on the floor).
pub fn grid(count: usize) -> (u32, u32, u32) {
    let count = count.max(1) as u32;
    let x = count.min(65_535);
    (x, count.div_ceil(x), 1)
}

/// Workgroups of 128 invocations covering `slots` slots.
pub fn slots_grid(slots: usize) -> (u32, u32, u32) {
    grid(slots.div_ceil(128))
}

/// Workgroups of the elementwise driver (shaders/elementwise.wgsl.in), whose invocations fill 4 slots each.
pub fn driver_grid(slots: usize) -> (u32, u32, u32) {
    grid(slots.div_ceil(4 * 128))
}

/// The grid of a row kernel (reduce, softmax) over `rows` rows of `len` elements, and whether each row gets one
/// invocation: rows of at most 32 do, since a workgroup per row would sit mostly idle through its tree.
pub fn rows_grid(rows: usize, len: usize) -> (bool, (u32, u32, u32)) {
    if len <= 32 {
        (true, slots_grid(rows))
    } else {
        (false, grid(rows))
    }
}
