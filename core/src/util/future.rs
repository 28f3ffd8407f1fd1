//! Futures returned by backends: `Send` natively (front ends wait on them from any thread), `!Send` on wasm.

use std::future::Future;
use std::pin::Pin;

use super::error::Result;

/// A boxed future of a fallible backend result.
#[cfg(not(target_arch = "wasm32"))]
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = Result<T>> + Send>>;
/// A boxed future of a fallible backend result (the browser is single-threaded).
#[cfg(target_arch = "wasm32")]
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = Result<T>>>>;

/// A future that is already complete.
pub fn ready<T: Send + 'static>(value: Result<T>) -> BoxFuture<T> {
    Box::pin(std::future::ready(value))
}
