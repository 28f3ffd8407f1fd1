//! The reduction primitives: one row each, in op-code order (the variant, its op-table name, its dtype rule, its
//! contract and unsupported combinations, and its gradient contract or `None`). Rules: `Accumulate` (floats keep
//! their dtype, integers and bool sum in int64), `Same` (the input's dtype), `Index` (int64 positions). The Vulkan
//! build script writes `OP_<NAME>` for each and fails when `shaders/reduce.wgsl` does not name one.

/// Calls `$m! { prefix rows }` with every reduction's row, after any tokens given after `$m`.
#[macro_export]
macro_rules! reduce_ops {
    ($m:ident $($prefix:tt)*) => {
        $m! {
            $($prefix)*
            Sum sum: Accumulate;
                fwd SUM, NO_F64;
                grad Some(GRAD_LINEAR);
            Max amax: Same;
                fwd EXACT_CMP, NO_F64;
                grad Some(GRAD_LINEAR);
            ArgMax argmax: Index;
                fwd EXACT_CMP, NO_F64;
                grad None;
            Min amin: Same;
                fwd EXACT_CMP, NO_F64;
                grad Some(GRAD_LINEAR);
            ArgMin argmin: Index;
                fwd EXACT_CMP, NO_F64;
                grad None;
            Prod prod: Accumulate;
                fwd PRODUCT, NO_F64;
                grad Some(GRAD_LINEAR);
        }
    };
}
