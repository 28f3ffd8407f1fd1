//! An opaque handle to device memory and the identity of a device; backends put their own type inside.

use std::any::Any;
use std::sync::Arc;

use super::dtype::DType;

/// Which registered device a tensor lives on (an index into the dispatch layer's registry).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DeviceId(pub usize);

/// Contiguous storage of `len` elements of `dtype` on one device. Dropping the last handle frees it (or returns it
/// to the backend's pool).
#[derive(Clone)]
pub struct Buffer {
    pub device: DeviceId,
    pub dtype: DType,
    pub len: usize,
    inner: Arc<dyn Any + Send + Sync>,
}

impl Buffer {
    pub fn new(device: DeviceId, dtype: DType, len: usize, inner: Arc<dyn Any + Send + Sync>) -> Buffer {
        Buffer { device, dtype, len, inner }
    }

    /// The backend's own representation, if it is of type `T`.
    pub fn downcast<T: Any + Send + Sync>(&self) -> Option<&T> {
        self.inner.downcast_ref::<T>()
    }
}

impl std::fmt::Debug for Buffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Buffer({:?}, {}, {})", self.device, self.dtype.name(), self.len)
    }
}
