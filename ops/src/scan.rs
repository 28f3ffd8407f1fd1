//! The inclusive scans along a dim: one row each, in op-code order, read like the reductions' rows (`reduce.rs`).
//! The Vulkan build script writes `OP_<NAME>` for each and fails when `shaders/scan.wgsl` does not name one.

/// Calls `$m! { rows }` with every scan's row.
#[macro_export]
macro_rules! scan_ops {
    ($m:ident) => {
        $m! {
            Sum cumsum: Accumulate;
                fwd SUM, NO_F64;
                grad Some(GRAD_LINEAR);
            Prod cumprod: Accumulate;
                fwd PRODUCT, NO_F64;
                grad Some(GRAD_LINEAR);
        }
    };
}
