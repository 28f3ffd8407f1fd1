//! Tensor methods for the ops: elementwise, comparisons, reductions, matmul, shape and view ops, softmax. A binary op
//! comes twice (`add_tensor`, `add_scalar`); the package's `index.js` gives it the one name `add(other)`.

use wasm_bindgen::prelude::*;

use vkml_core::api::elementwise::{binary, sub, where_};
use vkml_core::api::index::IndexItem;
use vkml_core::api::logical::logical;
use vkml_core::api::Tensor as Core;
use vkml_core::api::{division, linalg, pointwise};
use vkml_core::base::scalar::Scalar;
use vkml_core::graph::op::{BinaryOp, UnaryOp};
use vkml_core::tensor::promote::Operand;

use crate::convert::usize_of;
use crate::tensor::Tensor;
use crate::{type_error, JsResult, OrJs};

pub(crate) fn ok(t: vkml_core::Result<Core>) -> JsResult<Tensor> {
    t.js().map(Tensor::wrap)
}

/// A JavaScript number (or boolean) as torch treats a Python scalar: an integral number is an int, so `int32 + 1`
/// stays int32 and `float16 * 2` stays float16.
fn scalar(v: &JsValue) -> JsResult<Operand> {
    if let Some(b) = v.as_bool() {
        return Ok(Operand::Scalar(Scalar::Bool(b)));
    }
    let x = v.as_f64().ok_or_else(|| type_error("expected a tensor, a number or a boolean"))?;
    let integral = x.fract() == 0.0 && x.abs() < 2f64.powi(63);
    Ok(Operand::Scalar(if integral { Scalar::Int(x as i64) } else { Scalar::Float(x) }))
}

/// The dims of a reduction: `undefined` for all, a number, or an array of numbers.
fn dims(v: &JsValue) -> JsResult<Option<Vec<i64>>> {
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    if let Some(d) = v.as_f64() {
        return Ok(Some(vec![int(d, "dim")?]));
    }
    ints(v, "dim").map(Some)
}

pub(crate) fn int(v: f64, what: &str) -> JsResult<i64> {
    if v.fract() == 0.0 && v.abs() < 2f64.powi(53) {
        Ok(v as i64)
    } else {
        Err(type_error(&format!("{what} must be an integer, not {v}")))
    }
}

/// Integers from a JavaScript array (sizes that may be -1, permutations).
fn ints(v: &JsValue, what: &str) -> JsResult<Vec<i64>> {
    let arr: &js_sys::Array =
        wasm_bindgen::JsCast::dyn_ref(v).ok_or_else(|| type_error(&format!("{what} must be an array of integers")))?;
    arr.iter().map(|d| int(d.as_f64().unwrap_or(f64::NAN), what)).collect()
}

/// var/std's options: `{correction = 1, keepdim = false}`.
fn moment_options(options: &JsValue) -> JsResult<(f64, bool)> {
    let c = crate::convert::opt_f64(options, "correction")?.unwrap_or(1.0);
    let k = crate::convert::opt_bool(options, "keepdim")?.unwrap_or(false);
    Ok((c, k))
}

/// Each binary op as `<op>_tensor(t)` and `<op>_scalar(x)`.
macro_rules! binary_methods {
    ($($tensor:ident, $scalar:ident => $f:expr;)*) => {
        #[wasm_bindgen]
        impl Tensor {
            $(
                pub fn $tensor(&self, other: &Tensor) -> JsResult<Tensor> {
                    let f: fn(&Operand, &Operand) -> vkml_core::Result<Core> = $f;
                    ok(f(&Operand::Tensor(self.core()?.clone()), &Operand::Tensor(other.core()?.clone())))
                }

                pub fn $scalar(&self, other: JsValue) -> JsResult<Tensor> {
                    let f: fn(&Operand, &Operand) -> vkml_core::Result<Core> = $f;
                    ok(f(&Operand::Tensor(self.core()?.clone()), &scalar(&other)?))
                }
            )*
        }
    };
}

binary_methods! {
    add_tensor, add_scalar => |a, b| binary(a, b, BinaryOp::Add);
    sub_tensor, sub_scalar => sub;
    mul_tensor, mul_scalar => |a, b| binary(a, b, BinaryOp::Mul);
    div_tensor, div_scalar => |a, b| binary(a, b, BinaryOp::Div);
    maximum_tensor, maximum_scalar => |a, b| binary(a, b, BinaryOp::Maximum);
    minimum_tensor, minimum_scalar => |a, b| binary(a, b, BinaryOp::Minimum);
    eq_tensor, eq_scalar => |a, b| binary(a, b, BinaryOp::Eq);
    ne_tensor, ne_scalar => |a, b| binary(a, b, BinaryOp::Ne);
    lt_tensor, lt_scalar => |a, b| binary(a, b, BinaryOp::Lt);
    le_tensor, le_scalar => |a, b| binary(a, b, BinaryOp::Le);
    gt_tensor, gt_scalar => |a, b| binary(a, b, BinaryOp::Gt);
    ge_tensor, ge_scalar => |a, b| binary(a, b, BinaryOp::Ge);
    logical_and_tensor, logical_and_scalar => |a, b| logical(a, b, BinaryOp::BitAnd);
    logical_or_tensor, logical_or_scalar => |a, b| logical(a, b, BinaryOp::BitOr);
    logical_xor_tensor, logical_xor_scalar => |a, b| logical(a, b, BinaryOp::BitXor);
    bitwise_and_tensor, bitwise_and_scalar => |a, b| binary(a, b, BinaryOp::BitAnd);
    fmod_tensor, fmod_scalar => division::fmod;
    remainder_tensor, remainder_scalar => division::remainder;
    floor_divide_tensor, floor_divide_scalar => division::floor_divide;
    atan2_tensor, atan2_scalar => |a, b| binary(a, b, BinaryOp::Atan2);
    copysign_tensor, copysign_scalar => |a, b| binary(a, b, BinaryOp::CopySign);
    hypot_tensor, hypot_scalar => pointwise::hypot;
    pow_tensor, pow_scalar => pointwise::pow;
    bitwise_or_tensor, bitwise_or_scalar => |a, b| binary(a, b, BinaryOp::BitOr);
    bitwise_xor_tensor, bitwise_xor_scalar => |a, b| binary(a, b, BinaryOp::BitXor);
}

macro_rules! unary_methods {
    ($($name:ident => $body:expr;)*) => {
        #[wasm_bindgen]
        impl Tensor {
            $(
                pub fn $name(&self) -> JsResult<Tensor> {
                    let f: fn(&Core) -> vkml_core::Result<Core> = $body;
                    ok(f(self.core()?))
                }
            )*
        }
    };
}

/// One method per unary primitive, from its row in `vkml_ops::unary_ops!`.
macro_rules! unary_primitives {
    ($($v:ident $name:ident : $rule:ident, $domain:ident; fwd $tol:expr; grad $grad:expr;)*) => {
        unary_methods! {
            $($name => |t| t.unary(UnaryOp::$v);)*
        }
    };
}

vkml_ops::unary_ops!(unary_primitives);

unary_methods! {
    square => |t| t.square();
    reciprocal => |t| t.reciprocal();
    relu => |t| t.relu();
    sigmoid => |t| vkml_core::nn::functional::sigmoid(t);
    logical_not => |t| t.logical_not();
    log10 => |t| t.log10();
    frac => |t| t.frac();
    isnan => |t| t.isnan();
    isinf => |t| t.isinf();
    isfinite => |t| t.isfinite();
    bitwise_not => |t| t.bitwise_not();
    t => |t| t.t();
}

#[wasm_bindgen]
impl Tensor {
    pub fn matmul(&self, other: &Tensor) -> JsResult<Tensor> {
        ok(self.core()?.matmul(other.core()?))
    }

    /// `t.sum()`, `t.sum(dim)`, `t.sum([d0, d1], keepdim)`.
    /// `var(dim, {correction = 1, keepdim = false})`.
    pub fn var(&self, dim: JsValue, options: JsValue) -> JsResult<Tensor> {
        let (c, k) = moment_options(&options)?;
        ok(self.core()?.var(dims(&dim)?.as_deref(), c, k))
    }

    /// `std(dim, {correction = 1, keepdim = false})`.
    pub fn std(&self, dim: JsValue, options: JsValue) -> JsResult<Tensor> {
        let (c, k) = moment_options(&options)?;
        ok(self.core()?.std(dims(&dim)?.as_deref(), c, k))
    }

    /// `clamp(min, max)` with numbers (null or undefined for no bound).
    pub fn clamp(&self, min: Option<f64>, max: Option<f64>) -> JsResult<Tensor> {
        let lo = min.map(|v| Operand::Scalar(Scalar::Float(v)));
        let hi = max.map(|v| Operand::Scalar(Scalar::Float(v)));
        ok(vkml_core::nn::activation::clamp(self.core()?, lo.as_ref(), hi.as_ref()))
    }

    pub fn mm(&self, other: &Tensor) -> JsResult<Tensor> {
        ok(linalg::mm(self.core()?, other.core()?))
    }

    pub fn bmm(&self, other: &Tensor) -> JsResult<Tensor> {
        ok(linalg::bmm(self.core()?, other.core()?))
    }

    pub fn dot(&self, other: &Tensor) -> JsResult<Tensor> {
        ok(linalg::dot(self.core()?, other.core()?))
    }

    pub fn outer(&self, other: &Tensor) -> JsResult<Tensor> {
        ok(linalg::outer(self.core()?, other.core()?))
    }

    /// `masked_fill(mask, value)` with a number.
    pub fn masked_fill(&self, mask: &Tensor, value: JsValue) -> JsResult<Tensor> {
        ok(vkml_core::api::elementwise::masked_fill(self.core()?, mask.core()?, &scalar(&value)?))
    }

    /// `roll(shifts, dims)`: numbers or arrays; no dims rolls the flattened tensor.
    pub fn roll(&self, shifts: JsValue, dims: JsValue) -> JsResult<Tensor> {
        let shifts = self::dims(&shifts)?.unwrap_or_default();
        let dims = self::dims(&dims)?.unwrap_or_default();
        ok(self.core()?.roll(&shifts, &dims))
    }

    pub fn sum(&self, dim: JsValue, keepdim: Option<bool>) -> JsResult<Tensor> {
        ok(self.core()?.sum(dims(&dim)?.as_deref(), keepdim.unwrap_or(false)))
    }

    pub fn mean(&self, dim: JsValue, keepdim: Option<bool>) -> JsResult<Tensor> {
        ok(self.core()?.mean(dims(&dim)?.as_deref(), keepdim.unwrap_or(false)))
    }

    pub fn amax(&self, dim: JsValue, keepdim: Option<bool>) -> JsResult<Tensor> {
        ok(self.core()?.amax(dims(&dim)?.as_deref(), keepdim.unwrap_or(false)))
    }

    pub fn amin(&self, dim: JsValue, keepdim: Option<bool>) -> JsResult<Tensor> {
        ok(self.core()?.amin(dims(&dim)?.as_deref(), keepdim.unwrap_or(false)))
    }

    /// The index of the largest value (over everything, or along `dim`), int64.
    pub fn argmax(&self, dim: Option<f64>, keepdim: Option<bool>) -> JsResult<Tensor> {
        let dim = dim.map(|d| int(d, "dim")).transpose()?;
        ok(self.core()?.argmax(dim, keepdim.unwrap_or(false)))
    }

    pub fn argmin(&self, dim: Option<f64>, keepdim: Option<bool>) -> JsResult<Tensor> {
        let dim = dim.map(|d| int(d, "dim")).transpose()?;
        ok(self.core()?.argmin(dim, keepdim.unwrap_or(false)))
    }

    pub fn all(&self, dim: JsValue, keepdim: Option<bool>) -> JsResult<Tensor> {
        ok(self.core()?.all(dims(&dim)?.as_deref(), keepdim.unwrap_or(false)))
    }

    pub fn any(&self, dim: JsValue, keepdim: Option<bool>) -> JsResult<Tensor> {
        ok(self.core()?.any(dims(&dim)?.as_deref(), keepdim.unwrap_or(false)))
    }

    pub fn softmax(&self, dim: f64) -> JsResult<Tensor> {
        ok(vkml_core::nn::functional::softmax(self.core()?, int(dim, "dim")?))
    }

    pub fn log_softmax(&self, dim: f64) -> JsResult<Tensor> {
        ok(vkml_core::nn::functional::log_softmax(self.core()?, int(dim, "dim")?))
    }

    pub fn logsumexp(&self, dim: JsValue, keepdim: Option<bool>) -> JsResult<Tensor> {
        let d = dims(&dim)?.ok_or_else(|| type_error("logsumexp needs dim"))?;
        ok(vkml_core::nn::functional::logsumexp(self.core()?, &d, keepdim.unwrap_or(false)))
    }

    /// `t.max()` (a tensor), or `t.max(dim, keepdim)`: `[values, indices]`, as torch's named tuple.
    pub fn max(&self, dim: Option<f64>, keepdim: Option<bool>) -> JsResult<JsValue> {
        match dim {
            None => Ok(ok(self.core()?.max_all())?.into()),
            Some(d) => pair(self.core()?.max_dim(int(d, "dim")?, keepdim.unwrap_or(false))),
        }
    }

    /// `t.min()` or `t.min(dim, keepdim)` → `[values, indices]`.
    pub fn min(&self, dim: Option<f64>, keepdim: Option<bool>) -> JsResult<JsValue> {
        match dim {
            None => Ok(ok(self.core()?.min_all())?.into()),
            Some(d) => pair(self.core()?.min_dim(int(d, "dim")?, keepdim.unwrap_or(false))),
        }
    }

    pub fn tile(&self, dims: JsValue) -> JsResult<Tensor> {
        ok(self.core()?.tile(&ints(&dims, "dims")?))
    }

    /// `t.chunk(chunks, dim)`: an array of views.
    pub fn chunk(&self, chunks: f64, dim: Option<f64>) -> JsResult<Vec<Tensor>> {
        let parts = self.core()?.chunk(usize_of(chunks, "chunks")?, int(dim.unwrap_or(0.0), "dim")?).js()?;
        Ok(parts.into_iter().map(Tensor::wrap).collect())
    }

    /// `t.unbind(dim)`: the slices along `dim`, as an array.
    pub fn unbind(&self, dim: Option<f64>) -> JsResult<Vec<Tensor>> {
        let parts = self.core()?.unbind(int(dim.unwrap_or(0.0), "dim")?).js()?;
        Ok(parts.into_iter().map(Tensor::wrap).collect())
    }

    /// Basic indexing, `t[...]` in Python: an array of items, each a number, a slice string ("1:3", ":", "::2",
    /// "-2:"), `null` for a new axis, or "..."; the package's `t.get(...items)` calls this. A view, no copy.
    #[wasm_bindgen(js_name = "_index")]
    pub fn index(&self, items: js_sys::Array) -> JsResult<Tensor> {
        ok(self.core()?.index(&index_items(&items)?))
    }

    /// `t[...] = value` in Python (`t.set(items, value)` in the package): a tensor (broadcast) or a number.
    #[wasm_bindgen(js_name = "_index_put")]
    pub fn index_put(&self, items: js_sys::Array, value: JsValue, tensor: Option<Tensor>) -> JsResult<()> {
        let target = self.core()?.index(&index_items(&items)?).js()?;
        match tensor {
            Some(v) => target.assign(v.core()?).js(),
            None => match scalar(&value)? {
                Operand::Scalar(x) => target.fill(x).js(),
                Operand::Tensor(_) => Err(type_error("set() takes a tensor or a number")),
            },
        }
    }

    /// `t.reshape([2, -1])`.
    pub fn reshape(&self, shape: JsValue) -> JsResult<Tensor> {
        ok(self.core()?.reshape(&ints(&shape, "shape")?))
    }

    /// A view with a new shape (fails where `reshape` would copy).
    pub fn view(&self, shape: JsValue) -> JsResult<Tensor> {
        ok(self.core()?.view_as_shape(&ints(&shape, "shape")?))
    }

    pub fn permute(&self, dims: JsValue) -> JsResult<Tensor> {
        ok(self.core()?.permute(&ints(&dims, "dims")?))
    }

    pub fn transpose(&self, dim0: f64, dim1: f64) -> JsResult<Tensor> {
        ok(self.core()?.transpose(int(dim0, "dim0")?, int(dim1, "dim1")?))
    }

    /// `t.squeeze()` drops every size-1 dim; `t.squeeze(d)` only `d`.
    pub fn squeeze(&self, dim: JsValue) -> JsResult<Tensor> {
        ok(self.core()?.squeeze(dims(&dim)?.as_deref()))
    }

    pub fn unsqueeze(&self, dim: f64) -> JsResult<Tensor> {
        ok(self.core()?.unsqueeze(int(dim, "dim")?))
    }

    pub fn flatten(&self, start_dim: Option<f64>, end_dim: Option<f64>) -> JsResult<Tensor> {
        let start = int(start_dim.unwrap_or(0.0), "start_dim")?;
        let end = int(end_dim.unwrap_or(-1.0), "end_dim")?;
        ok(self.core()?.flatten(start, end))
    }

    pub fn expand(&self, sizes: JsValue) -> JsResult<Tensor> {
        ok(self.core()?.expand_to(&ints(&sizes, "sizes")?))
    }

    pub fn flip(&self, dims: JsValue) -> JsResult<Tensor> {
        ok(self.core()?.flip(&ints(&dims, "dims")?))
    }

    pub fn narrow(&self, dim: f64, start: f64, length: f64) -> JsResult<Tensor> {
        ok(self.core()?.narrow(int(dim, "dim")?, int(start, "start")?, int(length, "length")?))
    }

    pub fn repeat(&self, sizes: JsValue) -> JsResult<Tensor> {
        ok(self.core()?.repeat(&ints(&sizes, "sizes")?))
    }

    /// `t.split(size, dim)`: pieces of `size` along `dim` (the last may be smaller).
    pub fn split(&self, size: f64, dim: Option<f64>) -> JsResult<Vec<Tensor>> {
        let parts = self.core()?.split(usize_of(size, "split size")?, int(dim.unwrap_or(0.0), "dim")?).js()?;
        Ok(parts.into_iter().map(Tensor::wrap).collect())
    }

    /// `cond.where(a, b)`: elements of `a` where this bool tensor is true, else of `b` (`vkml.where` in Python).
    pub fn where_(&self, a: &Tensor, b: &Tensor) -> JsResult<Tensor> {
        ok(where_(self.core()?, &Operand::Tensor(a.core()?.clone()), &Operand::Tensor(b.core()?.clone())))
    }

    /// Another handle to this tensor (what the package passes where wasm-bindgen takes ownership of arguments).
    #[wasm_bindgen(js_name = "_handle")]
    pub fn handle(&self) -> JsResult<Tensor> {
        Ok(Tensor::wrap(self.core()?.clone()))
    }

    /// In place: `t.copy_(src)` writes src's values (broadcast) into this tensor's memory.
    pub fn copy_(&self, src: &Tensor) -> JsResult<()> {
        self.core()?.assign(src.core()?).js()
    }

    /// In place, no history: fill with U[a, b) (`nn.init.uniform_`).
    pub fn uniform_(&self, a: f64, b: f64) -> JsResult<()> {
        vkml_core::nn::functional::uniform_(self.core()?, a, b).js()
    }

    /// In place, no history: fill with N(mean, std²) (`nn.init.normal_`).
    pub fn normal_(&self, mean: f64, std: f64) -> JsResult<()> {
        vkml_core::nn::functional::normal_(self.core()?, mean, std).js()
    }
}

/// `vkml.cat(tensors, dim)`.
#[wasm_bindgen(js_name = "_cat")]
pub fn cat(tensors: Vec<Tensor>, dim: Option<f64>) -> JsResult<Tensor> {
    let ts = tensors.iter().map(|t| t.core().cloned()).collect::<JsResult<Vec<_>>>()?;
    ok(vkml_core::api::join::cat(&ts, int(dim.unwrap_or(0.0), "dim")?))
}

/// `vkml.stack(tensors, dim)`.
#[wasm_bindgen(js_name = "_stack")]
pub fn stack(tensors: Vec<Tensor>, dim: Option<f64>) -> JsResult<Tensor> {
    let ts = tensors.iter().map(|t| t.core().cloned()).collect::<JsResult<Vec<_>>>()?;
    ok(vkml_core::api::join::stack(&ts, int(dim.unwrap_or(0.0), "dim")?))
}

fn pair(r: vkml_core::Result<(Core, Core)>) -> JsResult<JsValue> {
    let (values, indices) = r.js()?;
    let out = js_sys::Array::new();
    out.push(&Tensor::wrap(values).into());
    out.push(&Tensor::wrap(indices).into());
    Ok(out.into())
}

/// Index items from JavaScript: numbers, slice strings, `null` (new axis) and "...".
fn index_items(items: &js_sys::Array) -> JsResult<Vec<IndexItem>> {
    items
        .iter()
        .map(|v| {
            if v.is_null() {
                return Ok(IndexItem::NewAxis);
            }
            if let Some(x) = v.as_f64() {
                return Ok(IndexItem::Int(int(x, "index")?));
            }
            match v.as_string().as_deref() {
                Some("...") => Ok(IndexItem::Ellipsis),
                Some(text) => slice(text),
                None => Err(type_error("an index is a number, a slice string like \"1:3\", null or \"...\"")),
            }
        })
        .collect()
}

/// "start:stop:step" with each part optional, as Python writes a slice.
fn slice(text: &str) -> JsResult<IndexItem> {
    let parts: Vec<&str> = text.split(':').collect();
    if !(2..=3).contains(&parts.len()) {
        return Err(type_error(&format!("'{text}' is not a slice (write \"start:stop\" or \"start:stop:step\")")));
    }
    let bound = |p: &str| -> JsResult<Option<i64>> {
        let p = p.trim();
        if p.is_empty() {
            return Ok(None);
        }
        p.parse::<i64>().map(Some).map_err(|_| type_error(&format!("'{p}' in slice '{text}' is not an integer")))
    };
    Ok(IndexItem::Slice {
        start: bound(parts[0])?,
        stop: bound(parts[1])?,
        step: parts.get(2).map(|p| bound(p)).transpose()?.flatten(),
    })
}
