//! The one error type of vkml; every fallible function returns it and front ends map its kind to an exception.

use std::fmt;

/// What went wrong, by the exception a Python user expects for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// Incompatible or invalid shapes (torch raises RuntimeError for these).
    Shape(String),
    /// A dtype that is not allowed here (TypeError).
    Dtype(String),
    /// An index or dim out of range (IndexError).
    Index(String),
    /// An element of an index tensor outside its dim where torch reports RuntimeError (gather, scatter): a
    /// RuntimeError in Python, a RangeError in JavaScript.
    Bounds(String),
    /// An invalid argument value (ValueError).
    Value(String),
    /// Tensors on different devices, or an unknown device (RuntimeError).
    Device(String),
    /// An op a device cannot run, naming op, dtype and device (NotImplementedError).
    Unsupported(String),
    /// Any other failure torch reports as RuntimeError (e.g. mismatched matmul dtypes).
    Runtime(String),
    /// A failure inside a backend: validation, out of memory, device loss (RuntimeError).
    Backend(String),
    /// A file could not be read or written (OSError).
    Io(String),
}

/// Result with vkml's error.
pub type Result<T> = std::result::Result<T, Error>;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let msg = match self {
            Error::Shape(m)
            | Error::Dtype(m)
            | Error::Index(m)
            | Error::Bounds(m)
            | Error::Value(m)
            | Error::Device(m)
            | Error::Unsupported(m)
            | Error::Runtime(m)
            | Error::Backend(m)
            | Error::Io(m) => m,
        };
        f.write_str(msg)
    }
}

impl std::error::Error for Error {}
