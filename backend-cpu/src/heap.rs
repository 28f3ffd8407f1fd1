//! Keeps freed kernel outputs mapped on glibc. Past glibc's default mmap threshold (128 KiB, raised only as large
//! blocks are freed) output buffers came as fresh mappings, so a kernel paid a page fault for every 4 KiB it wrote:
//! a fifth of a small CNN's training step on the CPU (docs/performance.md).

/// Once per process, unless the user tuned malloc through its environment: glibc's mmap threshold to its largest
/// value (32 MiB), so buffers below it come from the heap and are reused when freed, and its trim threshold to 512
/// MiB, so freed heap stays mapped instead of going back to the system after every kernel.
pub fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            let tuned = ["GLIBC_TUNABLES", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_"];
            if tuned.iter().any(|v| std::env::var_os(v).is_some()) {
                return;
            }
            // SAFETY: mallopt only sets the allocator's parameters, under its own lock; any thread may call it at
            // any time, and a value it rejects leaves the parameter as it was.
            #[allow(unsafe_code)]
            unsafe {
                libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
                libc::mallopt(libc::M_TRIM_THRESHOLD, 512 << 20);
            }
        });
    }
}
