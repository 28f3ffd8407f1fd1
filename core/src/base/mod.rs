//! Layer 1 ("core" in the handbook): dtypes and promotion, scalars, shapes and strided views.

pub mod buffer;
pub mod dtype;
pub mod scalar;
pub mod view;
