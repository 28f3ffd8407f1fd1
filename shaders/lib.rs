//! vkml's WGSL kernels are the files beside this one; the crate holds no code. vkml-backend-vulkan's build script
//! assembles, validates and embeds them.
