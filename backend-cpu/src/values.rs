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

/// Element `i` of a buffer as f64 is never needed; each class reads its own way.
fn read_f32(b: &[u8], d: DType, i: usize) -> f32 {
    match d {
        DType::F32 => f32::from_le_bytes(le(b, 4 * i)),
        DType::F16 => f16_bits_to_f32(u16::from_le_bytes(le(b, 2 * i))),
        DType::BF16 => bf16_bits_to_f32(u16::from_le_bytes(le(b, 2 * i))),
        DType::F64 => f64::from_le_bytes(le(b, 8 * i)) as f32,
        DType::I32 | DType::I64 | DType::Bool => read_i64(b, d, i) as f32,
    }
}

fn read_i64(b: &[u8], d: DType, i: usize) -> i64 {
    match d {
        DType::Bool => (b[i] != 0) as i64,
        DType::I32 => i32::from_le_bytes(le(b, 4 * i)) as i64,
        DType::I64 => i64::from_le_bytes(le(b, 8 * i)),
        DType::F16 | DType::BF16 | DType::F32 => float_to_int(read_f32(b, d, i) as f64, DType::I64),
        DType::F64 => float_to_int(f64::from_le_bytes(le(b, 8 * i)), DType::I64),
    }
}

fn read_f64(b: &[u8], d: DType, i: usize) -> f64 {
    match d {
        DType::F64 => f64::from_le_bytes(le(b, 8 * i)),
        DType::F16 | DType::BF16 | DType::F32 => read_f32(b, d, i) as f64,
        DType::I32 | DType::I64 | DType::Bool => read_i64(b, d, i) as f64,
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

/// The float32 elements under a contiguous `view`, read in place: None unless the buffer holds float32 at a float's
/// alignment, in the host's (little-endian) order.
pub fn f32_run<'a>(bytes: &'a [u8], dtype: DType, view: &View) -> Option<&'a [f32]> {
    if dtype != DType::F32 || !view.is_contiguous() || cfg!(not(target_endian = "little")) {
        return None;
    }
    let run = bytes.get(4 * view.offset..4 * (view.offset + view.numel()))?;
    bytemuck::try_cast_slice(run).ok()
}

/// Gather the elements under `view` from a buffer of `dtype`, converted to `class`.
pub fn gather(bytes: &[u8], dtype: DType, view: &View, class: Class) -> Values {
    if view.numel() > 0 && view.is_contiguous() {
        // The common case reads a run of the buffer in order, without building an index list.
        let (start, n) = (view.offset, view.numel());
        if dtype == DType::F32 && class == Class::F32 {
            if let Some(xs) = f32_run(bytes, dtype, view) {
                return Values::F32(xs.to_vec());
            }
            let run = &bytes[4 * start..4 * (start + n)];
            return Values::F32(run.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect());
        }
        let range = start..start + n;
        return match class {
            Class::F32 => Values::F32(range.map(|i| read_f32(bytes, dtype, i)).collect()),
            Class::F64 => Values::F64(range.map(|i| read_f64(bytes, dtype, i)).collect()),
            Class::I64 => Values::I64(range.map(|i| read_i64(bytes, dtype, i)).collect()),
        };
    }
    if view.numel() > 0 && view.strides.iter().all(|&st| st == 0) {
        // A broadcast scalar: one read.
        let (i, n) = (view.offset, view.numel());
        return match class {
            Class::F32 => Values::F32(vec![read_f32(bytes, dtype, i); n]),
            Class::F64 => Values::F64(vec![read_f64(bytes, dtype, i); n]),
            Class::I64 => Values::I64(vec![read_i64(bytes, dtype, i); n]),
        };
    }
    if dtype == DType::F32 && class == Class::F32 {
        #[cfg(target_endian = "little")]
        if let Ok(xs) = bytemuck::try_cast_slice::<u8, f32>(bytes) {
            return Values::F32(walk(view, |i| xs[i]));
        }
    }
    match class {
        Class::F32 => Values::F32(walk(view, |i| read_f32(bytes, dtype, i))),
        Class::F64 => Values::F64(walk(view, |i| read_f64(bytes, dtype, i))),
        Class::I64 => Values::I64(walk(view, |i| read_i64(bytes, dtype, i))),
    }
}

/// `f` of each buffer index under `view`, in row-major order.
fn walk<T>(view: &View, f: impl Fn(usize) -> T) -> Vec<T> {
    let mut out = Vec::with_capacity(view.numel());
    for_lines(view, |start, len, stride| {
        out.extend((0..len as isize).map(|j| f((start as isize + j * stride) as usize)));
    });
    out
}

/// `f(first, len, stride)` for each line of the innermost dim under `view` (elements first, first + stride, …), in
/// row-major order: one call per line, whatever its stride (a broadcast's 0, a transpose's row length).
pub fn for_lines(view: &View, mut f: impl FnMut(usize, usize, isize)) {
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
    let nd = view.ndim();
    if view.numel() == 0 {
        return;
    }
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

/// Encode values as `dtype` in NumPy layout, converting between classes as a cast does.
pub fn encode(v: &Values, dtype: DType) -> Vec<u8> {
    if let (Values::F32(xs), DType::F32) = (v, dtype) {
        // NumPy layout is little-endian, as every target vkml builds for: the bytes are the floats' own.
        #[cfg(target_endian = "little")]
        return bytemuck::cast_slice(xs).to_vec();
        #[cfg(not(target_endian = "little"))]
        return xs.iter().flat_map(|x| x.to_le_bytes()).collect();
    }
    let mut out = Vec::with_capacity(len(v) * dtype.itemsize());
    match v {
        Values::F32(xs) => xs.iter().for_each(|&x| push_f32(&mut out, x, dtype)),
        Values::F64(xs) => xs.iter().for_each(|&x| push_f64(&mut out, x, dtype)),
        Values::I64(xs) => xs.iter().for_each(|&x| push_i64(&mut out, x, dtype)),
    }
    out
}

pub fn len(v: &Values) -> usize {
    match v {
        Values::F32(x) => x.len(),
        Values::F64(x) => x.len(),
        Values::I64(x) => x.len(),
    }
}

fn push_f32(out: &mut Vec<u8>, x: f32, d: DType) {
    match d {
        DType::F32 => out.extend_from_slice(&x.to_le_bytes()),
        DType::F16 => out.extend_from_slice(&f32_to_f16_bits(x).to_le_bytes()),
        DType::BF16 => out.extend_from_slice(&f32_to_bf16_bits(x).to_le_bytes()),
        DType::F64 => out.extend_from_slice(&(x as f64).to_le_bytes()),
        DType::Bool => out.push((x != 0.0) as u8),
        DType::I32 | DType::I64 => push_i64(out, float_to_int(x as f64, d), d),
    }
}

fn push_f64(out: &mut Vec<u8>, x: f64, d: DType) {
    match d {
        DType::F64 => out.extend_from_slice(&x.to_le_bytes()),
        // f64 → 16-bit goes through f32, as torch's Half/BFloat16 constructors do.
        DType::F32 | DType::F16 | DType::BF16 => push_f32(out, x as f32, d),
        DType::Bool => out.push((x != 0.0) as u8),
        DType::I32 | DType::I64 => push_i64(out, float_to_int(x, d), d),
    }
}

fn push_i64(out: &mut Vec<u8>, x: i64, d: DType) {
    match d {
        DType::Bool => out.push((x != 0) as u8),
        DType::I32 => out.extend_from_slice(&(x as i32).to_le_bytes()),
        DType::I64 => out.extend_from_slice(&x.to_le_bytes()),
        // i64 → f32 rounds to nearest even (Rust's `as`, like C++'s conversion on IEEE hardware).
        DType::F32 | DType::F16 | DType::BF16 => push_f32(out, x as f32, d),
        DType::F64 => out.extend_from_slice(&(x as f64).to_le_bytes()),
    }
}
