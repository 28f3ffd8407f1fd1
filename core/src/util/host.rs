//! Host memory that may be refused: a tensor's bytes reserved before they are filled, so that a size past what the
//! machine can give, or past `VKML_MAX_HOST_BYTES`, is an error naming it (as torch's allocator raises) instead of an
//! abort.

use std::sync::OnceLock;

use crate::util::error::{Error, Result};

/// `VKML_MAX_HOST_BYTES`: the bytes the CPU device's tensors may hold together (unset: what the machine gives).
pub fn max_host_bytes() -> Option<u64> {
    static CAP: OnceLock<Option<u64>> = OnceLock::new();
    *CAP.get_or_init(|| std::env::var("VKML_MAX_HOST_BYTES").ok().and_then(|v| v.trim().parse().ok()))
}

/// torch's error for host memory it cannot give (`why` says what refused, where not the machine).
pub fn cannot_allocate(bytes: u64, why: &str) -> Error {
    Error::Runtime(format!("DefaultCPUAllocator: can't allocate memory: you tried to allocate {bytes} bytes{why}"))
}

/// Refuse `bytes` more when the CPU device already holds `held` and a cap is set.
pub fn check_cap(held: u64, bytes: u64) -> Result<()> {
    match max_host_bytes() {
        Some(cap) if held.saturating_add(bytes) > cap => {
            Err(cannot_allocate(bytes, &format!(" (VKML_MAX_HOST_BYTES is {cap}; {held} bytes are held)")))
        }
        _ => Ok(()),
    }
}

/// The machine's memory and swap in bytes (Linux's /proc/meminfo), read once; None where it cannot be read.
fn machine_bytes() -> Option<u64> {
    static TOTAL: OnceLock<Option<u64>> = OnceLock::new();
    *TOTAL.get_or_init(|| {
        let info = std::fs::read_to_string("/proc/meminfo").ok()?;
        let kib = |key: &str| {
            info.lines().find_map(|l| l.strip_prefix(key)?.trim().strip_suffix("kB")?.trim().parse::<u64>().ok())
        };
        Some(kib("MemTotal:")?.saturating_add(kib("SwapTotal:").unwrap_or(0)).saturating_mul(1024))
    })
}

/// An empty buffer with room for `len` items of `itemsize` bytes. More than the machine's memory and swap is refused
/// before asking: where the system overcommits, the reservation would be granted and the fill
/// would run into the out-of-memory killer.
pub fn reserve(len: usize, itemsize: usize) -> Result<Vec<u8>> {
    let bytes = len
        .checked_mul(itemsize)
        .ok_or_else(|| Error::Runtime(format!("a tensor of {len} elements of {itemsize} bytes is too large")))?;
    check_cap(0, bytes as u64)?;
    if machine_bytes().is_some_and(|total| bytes as u64 > total) {
        return Err(cannot_allocate(bytes as u64, " (more than this machine's memory and swap)"));
    }
    let mut v = Vec::new();
    v.try_reserve_exact(bytes).map_err(|_| cannot_allocate(bytes as u64, ""))?;
    Ok(v)
}
