//! Casts between every pair of dtypes, through the source's compute class (see `values::encode`).

use vkml_core::base::dtype::DType;
use vkml_core::base::view::View;

use crate::values::{encode, load};

pub fn cast((bytes, dtype, view): (&[u8], DType, &View), out: DType) -> Vec<u8> {
    encode(&load(bytes, dtype, view), out)
}
