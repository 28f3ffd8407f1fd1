//! Keeps freed kernel outputs mapped on glibc, and lets the largest fault in huge pages. Past glibc's default mmap
//! threshold (128 KiB, raised only as large blocks are freed) output buffers came as fresh mappings, so a kernel paid
//! a page fault for every 4 KiB it wrote: a fifth of a small CNN's training step on the CPU (docs/performance.md).

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

/// A freshly allocated, not yet written buffer of 32 MiB or more (past the mmap threshold: a mapping of its own),
/// asked to fault in 2 MiB pages where the system offers transparent huge pages on request: a 113 MB unfold paid a
/// fault per 4 KiB, most of its time.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn huge_pages(buf: &mut [u8]) {
    const HUGE: usize = 2 << 20;
    if buf.len() >= 32 << 20 {
        let start = buf.as_mut_ptr() as usize;
        let (first, end) = (start.next_multiple_of(HUGE), (start + buf.len()) & !(HUGE - 1));
        if end > first {
            // SAFETY: the range lies inside `buf`, which this call borrows mutably; MADV_HUGEPAGE only changes how
            // the kernel backs the pages (their contents are kept), and an error leaves them as they were.
            #[allow(unsafe_code)]
            unsafe {
                libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
            }
        }
    }
}

/// Elsewhere pages stay as the system gives them.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn huge_pages(_buf: &mut [u8]) {}
