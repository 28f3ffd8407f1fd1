//! Layer 9: file formats: safetensors (read and written) and torch's `.pt` checkpoints (read through a restricted
//! pickle reader).

pub mod safetensors;
pub mod torchfile;
