//! Decoding strided views into compute vectors and encoding results back: f16/bf16/f32 compute in f32, f64 in
//! f64, integers and bool in i64 (wrapping, then narrowed as torch stores them).

use vkml_core::base::dtype::DType;
use vkml_core::base::view::View;
use vkml_core::util::narrow::{bf16_bits_to_f32, f16_bits_to_f32, f32_to_bf16_bits, f32_to_f16_bits};

/// Elements in their compute type, in row-major order of some view.
#[derive(Clone, Debug, PartialEq)]
pub enum Values {
    F32(Vec<f32>),
    F64(Vec<f64>),
    I64(Vec<i64>),
}

/// Which compute type a dtype uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    F32,
    F64,
    I64,
}

pub fn class(d: DType) -> Class {
    match d {
        DType::F16 | DType::BF16 | DType::F32 => Class::F32,
        DType::F64 => Class::F64,
        DType::Bool | DType::I32 | DType::I64 => Class::I64,
    }
}

fn le<const N: usize>(b: &[u8], at: usize) -> [u8; N] {
    let mut a = [0u8; N];
    a.copy_from_slice(&b[at..at + N]);
    a
}

/// A stored element as it is read (floats of 16 and 32 bits widen to f32, integers and bool to i64), converted to
/// each compute class and stored dtype as every kernel converts it.
trait Native: Copy {
    fn to_f32(self) -> f32;
    fn to_f64(self) -> f64;
    fn to_i64(self) -> i64;
    fn to_i32(self) -> i32;
    fn to_bool(self) -> bool;
}

/// The float types' impls: one body, the casts to their own type being no-ops.
macro_rules! float_native {
    ($t:ty) => {
        #[allow(clippy::unnecessary_cast)]
        impl Native for $t {
            fn to_f32(self) -> f32 {
                self as f32
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
            fn to_i64(self) -> i64 {
                float_to_int(self as f64, DType::I64)
            }
            fn to_i32(self) -> i32 {
                float_to_int(self as f64, DType::I32) as i32
            }
            fn to_bool(self) -> bool {
                self != 0.0
            }
        }
    };
}

float_native!(f32);
float_native!(f64);

impl Native for i64 {
    // i64 → f32 rounds to nearest even (Rust's `as`, like C++'s conversion on IEEE hardware).
    fn to_f32(self) -> f32 {
        self as f32
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn to_i64(self) -> i64 {
        self
    }
    fn to_i32(self) -> i32 {
        self as i32
    }
    fn to_bool(self) -> bool {
        self != 0
    }
}

/// Float → integer as every backend does it: truncate toward zero, saturate to the target's range, NaN → 0.
/// (torch leaves out-of-range conversions undefined.)
pub fn float_to_int(v: f64, d: DType) -> i64 {
    match d {
        DType::I32 => v as i32 as i64,
        _ => v as i64,
    }
}

/// A buffer's elements read in place as `T`: None unless it is at `T`'s alignment and the host is little-endian
/// (NumPy layout's order).
pub fn words<T: bytemuck::Pod>(bytes: &[u8]) -> Option<&[T]> {
    bytemuck::try_cast_slice(bytes).ok().filter(|_| cfg!(target_endian = "little"))
}

/// The float32 elements under a contiguous `view`, read in place: None unless the buffer holds float32 at a float's
/// alignment, in the host's (little-endian) order.
pub fn f32_run<'a>(bytes: &'a [u8], dtype: DType, view: &View) -> Option<&'a [f32]> {
    if dtype != DType::F32 || !view.is_contiguous() {
        return None;
    }
    words(bytes.get(4 * view.offset..4 * (view.offset + view.numel()))?)
}

/// Gather the elements under `view` from a buffer of `dtype`, converted to `class`. The dtype and class are matched
/// once, outside the loop, so each pair reads in a loop of its own.
pub fn gather(bytes: &[u8], dtype: DType, view: &View, class: Class) -> Values {
    if class == Class::F32 {
        if let Some(xs) = f32_run(bytes, dtype, view) {
            return Values::F32(xs.to_vec());
        }
        if let (DType::F32, Some(xs)) = (dtype, words::<f32>(bytes)) {
            return Values::F32(gather_with(view, |i| xs[i]));
        }
    }
    macro_rules! as_class {
        ($read:expr) => {
            match class {
                Class::F32 => Values::F32(gather_with(view, |i| $read(i).to_f32())),
                Class::F64 => Values::F64(gather_with(view, |i| $read(i).to_f64())),
                Class::I64 => Values::I64(gather_with(view, |i| $read(i).to_i64())),
            }
        };
    }
    match dtype {
        DType::F32 => as_class!(|i: usize| f32::from_le_bytes(le(bytes, 4 * i))),
        DType::F16 => as_class!(|i: usize| f16_bits_to_f32(u16::from_le_bytes(le(bytes, 2 * i)))),
        DType::BF16 => as_class!(|i: usize| bf16_bits_to_f32(u16::from_le_bytes(le(bytes, 2 * i)))),
        DType::F64 => as_class!(|i: usize| f64::from_le_bytes(le(bytes, 8 * i))),
        DType::Bool => as_class!(|i: usize| (bytes[i] != 0) as i64),
        DType::I32 => as_class!(|i: usize| i32::from_le_bytes(le(bytes, 4 * i)) as i64),
        DType::I64 => as_class!(|i: usize| i64::from_le_bytes(le(bytes, 8 * i))),
    }
}

/// The elements under `view` as truth values (a `where`'s condition), a bool buffer read byte by byte.
pub fn mask(bytes: &[u8], dtype: DType, view: &View) -> Vec<bool> {
    if dtype == DType::Bool {
        return gather_with(view, |i| bytes[i] != 0);
    }
    match gather(bytes, dtype, view, class(dtype)) {
        Values::F32(xs) => xs.iter().map(|&x| x != 0.0).collect(),
        Values::F64(xs) => xs.iter().map(|&x| x != 0.0).collect(),
        Values::I64(xs) => xs.iter().map(|&x| x != 0).collect(),
    }
}

/// `read` of each buffer index under `view`, in row-major order: a contiguous run in one pass, a broadcast scalar
/// read once, anything else line by line.
fn gather_with<T: Clone>(view: &View, read: impl Fn(usize) -> T) -> Vec<T> {
    let n = view.numel();
    if n > 0 && view.is_contiguous() {
        return (view.offset..view.offset + n).map(read).collect();
    }
    if n > 0 && view.strides.iter().all(|&st| st == 0) {
        return vec![read(view.offset); n];
    }
    walk(view, read)
}

/// `f` of each buffer index under `view`, in row-major order.
fn walk<T: Clone>(view: &View, f: impl Fn(usize) -> T) -> Vec<T> {
    let mut out = Vec::with_capacity(view.numel());
    for_lines(view, |start, len, stride| match stride {
        // A broadcast line reads once; a contiguous one in order.
        0 => out.extend(std::iter::repeat_n(f(start), len)),
        1 => out.extend((start..start + len).map(&f)),
        _ => out.extend((0..len as isize).map(|j| f((start as isize + j * stride) as usize))),
    });
    out
}

/// `f(first, len, stride)` for each line of the innermost dim under `view` (elements first, first + stride, …), in
/// row-major order: one call per line, whatever its stride (a broadcast's 0, a transpose's row length).
pub fn for_lines(view: &View, mut f: impl FnMut(usize, usize, isize)) {
    // Dims the strides allow to merge are walked as one (a transposed image's split rows make one line).
    let view = &view.coalesced();
    let nd = view.ndim();
    if nd == 0 {
        for_runs(view, |i, _| f(i, 1, 0));
        return;
    }
    if view.numel() == 0 {
        return;
    }
    let (len, stride) = (view.shape[nd - 1], view.strides[nd - 1]);
    let lines = View { shape: view.shape[..nd - 1].to_vec(), strides: view.strides[..nd - 1].to_vec(), ..*view };
    for_runs(&lines, |i, n| (i..i + n).for_each(|start| f(start, len, stride)));
}

/// `f(first, len)` for each run of consecutive buffer elements under `view`, in row-major order: the innermost dim
/// is one run where its stride is 1, else every element is its own; an odometer steps the outer dims. Copies that
/// move runs instead of single elements (through an index list) made a conv2d's im2col stack 20 times faster.
pub fn for_runs(view: &View, mut f: impl FnMut(usize, usize)) {
    if view.numel() == 0 {
        return;
    }
    // A contiguous block of a larger buffer is one run, not one per row.
    let view = &view.coalesced();
    let nd = view.ndim();
    let (outer, len) = match view.strides.last() {
        Some(1) => (nd - 1, view.shape[nd - 1]),
        _ => (nd, 1),
    };
    let mut idx = vec![0usize; outer];
    let mut at = view.offset as isize;
    loop {
        f(at as usize, len);
        let mut d = outer;
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            idx[d] += 1;
            at += view.strides[d];
            if idx[d] < view.shape[d] {
                break;
            }
            at -= view.strides[d] * view.shape[d] as isize;
            idx[d] = 0;
        }
    }
}

/// Gather in the dtype's own class.
pub fn load(bytes: &[u8], dtype: DType, view: &View) -> Values {
    gather(bytes, dtype, view, class(dtype))
}

/// `n` float32 results written by `fill` straight into NumPy-layout bytes where the allocation is aligned for
/// floats (as allocations are), without the copy `encode` makes; elsewhere through `encode`.
pub fn f32_bytes(n: usize, fill: impl FnOnce(&mut [f32])) -> Vec<u8> {
    let mut bytes = vec![0u8; 4 * n];
    crate::heap::huge_pages(&mut bytes);
    match bytemuck::try_cast_slice_mut::<u8, f32>(&mut bytes) {
        Ok(out) if cfg!(target_endian = "little") => {
            fill(out);
            bytes
        }
        _ => {
            let mut xs = vec![0f32; n];
            fill(&mut xs);
            encode(&Values::F32(xs), DType::F32)
        }
    }
}

/// Encode values as `dtype` in NumPy layout, converting between classes as a cast does.
pub fn encode(v: &Values, dtype: DType) -> Vec<u8> {
    if let (Values::F32(xs), DType::F32) = (v, dtype) {
        // NumPy layout is little-endian, as every target vkml builds for: the bytes are the floats' own.
        #[cfg(target_endian = "little")]
        return bytemuck::cast_slice(xs).to_vec();
    }
    let mut out = vec![0u8; len(v) * dtype.itemsize()];
    macro_rules! put {
        ($xs:expr) => {
            match dtype {
                DType::F32 => store(&mut out, $xs, |x| x.to_f32().to_le_bytes()),
                // f64 → 16-bit goes through f32, as torch's Half/BFloat16 constructors do.
                DType::F16 => store(&mut out, $xs, |x| f32_to_f16_bits(x.to_f32()).to_le_bytes()),
                DType::BF16 => store(&mut out, $xs, |x| f32_to_bf16_bits(x.to_f32()).to_le_bytes()),
                DType::F64 => store(&mut out, $xs, |x| x.to_f64().to_le_bytes()),
                DType::Bool => store(&mut out, $xs, |x| [x.to_bool() as u8]),
                DType::I32 => store(&mut out, $xs, |x| x.to_i32().to_le_bytes()),
                DType::I64 => store(&mut out, $xs, |x| x.to_i64().to_le_bytes()),
            }
        };
    }
    match v {
        Values::F32(xs) => put!(xs),
        Values::F64(xs) => put!(xs),
        Values::I64(xs) => put!(xs),
    }
    out
}

/// Each of `xs` as `K` bytes, in order.
fn store<N: Native, const K: usize>(out: &mut [u8], xs: &[N], bytes: impl Fn(N) -> [u8; K]) {
    for (o, &x) in out.chunks_exact_mut(K).zip(xs) {
        o.copy_from_slice(&bytes(x));
    }
}

pub fn len(v: &Values) -> usize {
    match v {
        Values::F32(x) => x.len(),
        Values::F64(x) => x.len(),
        Values::I64(x) => x.len(),
    }
}
