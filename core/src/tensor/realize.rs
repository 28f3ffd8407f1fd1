//! Realizing tensors: evaluate the pending graph behind them (the run itself is `plan::run`) and read their values
//! back in NumPy layout.

use crate::base::buffer::DeviceId;
use crate::dispatch;
pub use crate::plan::run::{is_eager, set_eager, synchronize};
use crate::plan::run::{read_node_async, realize_nodes};
use crate::tensor::Tensor;
use crate::util::error::{Error, Result};

/// Evaluate everything the tensors depend on and submit the work (one submission per device).
pub fn realize(tensors: &[&Tensor]) -> Result<()> {
    realize_nodes(tensors.iter().map(|t| t.node()).collect())?;
    let mut devices: Vec<DeviceId> = tensors.iter().map(|t| t.device()).collect();
    devices.dedup();
    for d in devices {
        dispatch::backend(d)?.flush();
    }
    Ok(())
}

/// The tensor's elements in row-major order, NumPy layout (waits natively; a browser awaits `read_bytes_async`).
pub fn read_bytes(t: &Tensor) -> Result<Vec<u8>> {
    dispatch::block_on(read_bytes_async(t))
}

/// `read_bytes` for front ends that cannot block (the browser): the graph is realized and submitted now, and the
/// future resolves when the device has copied the values out.
pub async fn read_bytes_async(t: &Tensor) -> Result<Vec<u8>> {
    let node = t.node();
    let item = t.dtype().itemsize();
    if t.view.is_contiguous_of(&node.shape) {
        return read_node_async(&node).await;
    }
    if t.numel() == 0 {
        // An empty view may carry any offset; there is nothing to read.
        return Ok(Vec::new());
    }
    if t.view.is_contiguous() {
        let start = t.view.offset * item;
        let bytes = read_node_async(&node).await?;
        return bytes
            .get(start..start + t.numel() * item)
            .map(<[u8]>::to_vec)
            .ok_or_else(|| Error::Backend(format!("view {:?} lies outside its buffer", t.view)));
    }
    read_node_async(&t.contiguous()?.node()).await
}
