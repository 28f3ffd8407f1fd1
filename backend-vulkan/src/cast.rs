//! Casts (shaders/cast.wgsl).

use vkml_core::backend::Kernel;
use vkml_core::util::error::Result;

use crate::elementwise::launch;
use crate::launch::Launch;

pub fn cast(k: &Kernel) -> Result<Launch> {
    launch(k, "cast", 0)
}
