//! Casts (shaders/cast.wgsl).

use vkml_core::backend::Kernel;
use vkml_core::util::error::Result;

use crate::dispatch::Dispatch;
use crate::elementwise::plan;

pub fn cast(k: &Kernel) -> Result<Dispatch> {
    plan(k, "cast", 0)
}
