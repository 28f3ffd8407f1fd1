//! The inclusive scans along a dim: one row each, in op-code order, read like the reductions' rows (`reduce.rs`).
//! The Vulkan build script writes `OP_<NAME>` for each and fails when `shaders/scan.wgsl` does not name one.

/// Calls `$m! { prefix rows }` with every scan's row, after any tokens given after `$m`.
#[macro_export]
macro_rules! scan_ops {
    ($m:ident $($prefix:tt)*) => {
        $m! {
            $($prefix)*
            Sum cumsum: Accumulate;
                fwd SUM, NO_F64;
                grad Some(GRAD_LINEAR);
            Prod cumprod: Accumulate;
                fwd PRODUCT, NO_F64;
                grad Some(GRAD_LINEAR);
        }
    };
}
