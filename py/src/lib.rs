//! The `vkml._vkml` extension module: registers the backends and exposes creation, devices, realization, counters
//! and the op table. Python-side conveniences live in `py/python/vkml/__init__.py`.

// A recorded op allocates its node, view and autograd record; glibc's malloc took about a sixth of the host
// thread's time in a training step. mimalloc is made for many small, short-lived allocations.
#[cfg(target_os = "linux")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod activation;
mod affine;
mod attention;
mod autograd;
mod convert;
mod described;
mod device;
mod einsum;
mod gather;
mod index;
mod io;
mod math;
mod memory;
mod nn;
mod optim;
mod profile;
mod pytensor;
mod random;
mod rnn;
mod scan;
mod sort;
mod vnorm;
mod weighted;

use std::sync::{Arc, Once};

use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

use vkml_backend_cpu::CpuBackend;
use vkml_core::api::{create, precision, Tensor as Core};
use vkml_core::base::buffer::DeviceId;
use vkml_core::base::dtype::DType;
use vkml_core::base::scalar::Scalar;
use vkml_core::dispatch;
use vkml_core::graph::op::UnaryOp;
use vkml_core::graph::table::{Tolerance, OPS};
use vkml_core::tensor::promote::{result_type as core_result_type, Operand};
use vkml_core::tensor::realize;
use vkml_core::util::error::Result as CoreResult;
use vkml_core::util::stats::{get, COUNTERS};

use convert::{from_numpy_name, opt_device, opt_dtype, scalar, shape_args, sizes, type_name, OrPy};
use device::PyDType;
use pytensor::{operand, Tensor};

static CPU: Once = Once::new();

fn register_cpu() {
    CPU.call_once(|| {
        dispatch::register(Arc::new(CpuBackend::new()));
        dispatch::register(Arc::new(CpuBackend::reference()));
    });
}

/// The bits of a torch bfloat16 tensor as a NumPy int16 array (NumPy has no bfloat16, so `numpy.asarray` refuses
/// one), None for anything else: a bfloat16 state_dict then loads bit for bit.
fn torch_bf16_bits<'py>(py: Python<'py>, data: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyAny>>> {
    let bf16 = data.getattr("dtype").is_ok_and(|d| d.to_string() == "torch.bfloat16");
    if !bf16 {
        return Ok(None);
    }
    let int16 = py.import("torch")?.getattr("int16")?;
    let t = data.call_method0("detach")?.call_method0("cpu")?.call_method0("contiguous")?;
    Ok(Some(t.call_method1("view", (int16,))?.call_method0("numpy")?))
}

/// A tensor from a NumPy array (its dtype kept) or nested Python lists (floats become float32, as in torch).
pub(crate) fn from_data(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    dtype: Option<DType>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyResult<Core> {
    let dev = opt_device(device)?;
    if let Ok(t) = data.extract::<PyRef<'_, Tensor>>() {
        let c = t.0.copy().py()?;
        let c = c.to_device(dev).py()?;
        return match dtype {
            Some(d) => c.to_dtype(d).py(),
            None => Ok(c),
        };
    }
    if let Some(bits) = torch_bf16_bits(py, data)? {
        let shape: Vec<usize> = bits.getattr("shape")?.extract()?;
        let bytes: Vec<u8> = bits.call_method0("tobytes")?.extract()?;
        let t = Core::from_bytes(bytes, &shape, DType::BF16, dev).py()?;
        return t.to_dtype(dtype.unwrap_or(DType::BF16)).py();
    }
    let np = py.import("numpy")?;
    let is_array = data.is_instance(&np.getattr("ndarray")?)?;
    let arr = np.call_method1("asarray", (data,)).map_err(|e| {
        // NumPy reports ragged nested lists as ValueError, as torch does; anything else is a TypeError.
        if e.is_instance_of::<pyo3::exceptions::PyValueError>(data.py()) {
            pyo3::exceptions::PyValueError::new_err(format!("could not convert {} to a tensor: {e}", type_name(data)))
        } else {
            PyTypeError::new_err(format!("could not convert {} to a tensor: {e}", type_name(data)))
        }
    })?;
    let kind: String = arr.getattr("dtype")?.getattr("kind")?.extract()?;
    if kind == "O" || kind == "U" || kind == "S" {
        return Err(PyTypeError::new_err(format!("could not convert {} of objects to a tensor", type_name(data))));
    }
    let name: String = arr.getattr("dtype")?.getattr("name")?.extract()?;
    let src = from_numpy_name(&name)?;
    let target = match dtype {
        Some(d) => d,
        None if !is_array && src == DType::F64 => DType::F32,
        None => src,
    };
    // Convert on the host with NumPy (its casts round to nearest even, as ours do; f64 -> f16 goes through f32
    // like torch), so the data is uploaded straight to its device in its final dtype. NumPy has no bfloat16:
    // those go up as f32 and are narrowed on the device.
    let (host_dtype, host_name) = match target {
        DType::BF16 => (DType::F32, "float32"),
        DType::F16 if src == DType::F64 => (DType::F16, "float16"),
        t => (t, convert::numpy_name(t)?),
    };
    let arr = if target == DType::F16 && src == DType::F64 { arr.call_method1("astype", ("float32",))? } else { arr };
    let arr = arr.call_method1("astype", (host_name,))?;
    // Read the shape first: ascontiguousarray turns a 0-d array into a 1-d one.
    let shape: Vec<usize> = arr.getattr("shape")?.extract()?;
    let arr = np.call_method1("ascontiguousarray", (arr,))?;
    let bytes: Vec<u8> = arr.call_method0("tobytes")?.extract()?;
    let t = Core::from_bytes(bytes, &shape, host_dtype, dev).py()?;
    t.to_dtype(target).py()
}

#[pyfunction]
#[pyo3(name = "tensor", signature = (data, dtype = None, device = None))]
fn make_tensor(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyResult<Tensor> {
    Ok(Tensor(from_data(py, data, opt_dtype(dtype)?, device)?))
}

#[pyfunction]
fn from_numpy(py: Python<'_>, array: &Bound<'_, PyAny>) -> PyResult<Tensor> {
    let np = py.import("numpy")?;
    if !array.is_instance(&np.getattr("ndarray")?)? {
        return Err(PyTypeError::new_err(format!("expected np.ndarray (got {})", type_name(array))));
    }
    Ok(Tensor(from_data(py, array, None, None)?))
}

/// The creators of a shape (`*size`) with a float32 default (`vkml_core::sized_creators!` lists them).
macro_rules! sized {
    ($($(#[doc = $doc:literal])* $name:ident => $make:path;)*) => {$(
        $(#[doc = $doc])*
        #[pyfunction]
        #[pyo3(signature = (*size, dtype = None, device = None))]
        fn $name(
            size: &Bound<'_, PyTuple>,
            dtype: Option<&Bound<'_, PyAny>>,
            device: Option<&Bound<'_, PyAny>>,
        ) -> PyResult<Tensor> {
            let shape = sizes(&shape_args(size)?)?;
            let make: fn(&[usize], DType, DeviceId) -> CoreResult<Core> = $make;
            Ok(Tensor(make(&shape, opt_dtype(dtype)?.unwrap_or(DType::F32), opt_device(device)?).py()?))
        }
    )*};
}

vkml_core::sized_creators!(sized);

#[pyfunction]
#[pyo3(signature = (size, fill_value, dtype = None, device = None))]
fn full(
    size: &Bound<'_, PyAny>,
    fill_value: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyResult<Tensor> {
    let shape = sizes(&convert::int_list(size)?)?;
    let v = scalar(fill_value).ok_or_else(|| PyTypeError::new_err("full() expects a number as fill_value"))?;
    let dt = opt_dtype(dtype)?.unwrap_or(v.default_dtype());
    Ok(Tensor(Core::full(&shape, v, dt, opt_device(device)?).py()?))
}

#[pyfunction]
#[pyo3(signature = (start, end = None, step = None, dtype = None, device = None))]
fn arange(
    start: &Bound<'_, PyAny>,
    end: Option<&Bound<'_, PyAny>>,
    step: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyResult<Tensor> {
    let num = |o: &Bound<'_, PyAny>| scalar(o).ok_or_else(|| PyTypeError::new_err("arange() expects numbers"));
    let (s, e) = match end {
        Some(e) if !e.is_none() => (num(start)?, num(e)?),
        _ => (Scalar::Int(0), num(start)?),
    };
    let st = match step {
        Some(x) if !x.is_none() => num(x)?,
        _ => Scalar::Int(1),
    };
    let any_float = [s, e, st].iter().any(|v| matches!(v, Scalar::Float(_)));
    let dt = opt_dtype(dtype)?.unwrap_or(if any_float { DType::F32 } else { DType::I64 });
    Ok(Tensor(Core::arange(s, e, st, dt, opt_device(device)?).py()?))
}

#[pyfunction]
#[pyo3(signature = (start, end, steps, dtype = None, device = None))]
fn linspace(
    start: f64,
    end: f64,
    steps: i64,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyResult<Tensor> {
    let dt = opt_dtype(dtype)?.unwrap_or(DType::F32);
    Ok(Tensor(Core::linspace(start, end, steps, dt, opt_device(device)?).py()?))
}

#[pyfunction]
#[pyo3(signature = (n, m = None, dtype = None, device = None))]
fn eye(
    n: i64,
    m: Option<i64>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyResult<Tensor> {
    let m = m.unwrap_or(n);
    if n < 0 || m < 0 {
        return Err(PyRuntimeError::new_err(format!("n and m must be non-negative, got n={n}, m={m}")));
    }
    let dt = opt_dtype(dtype)?.unwrap_or(DType::F32);
    Ok(Tensor(Core::eye(n as usize, m as usize, dt, opt_device(device)?).py()?))
}

#[pyfunction]
fn manual_seed(seed: u64) {
    create::manual_seed(seed);
}

/// torch.where(condition, input, other), with torch's parameter names.
#[pyfunction]
#[pyo3(name = "where")]
fn where_(condition: PyRef<'_, Tensor>, input: &Bound<'_, PyAny>, other: &Bound<'_, PyAny>) -> PyResult<Tensor> {
    let op = |o: &Bound<'_, PyAny>| {
        operand(o)
            .ok_or_else(|| PyTypeError::new_err(format!("where() expects tensors or numbers, got {}", type_name(o))))
    };
    Ok(Tensor(vkml_core::api::elementwise::where_(&condition.0, &op(input)?, &op(other)?).py()?))
}

/// The tensors of a list or tuple argument.
pub(crate) fn tensor_list(ob: &Bound<'_, PyAny>) -> PyResult<Vec<Core>> {
    ob.try_iter()?
        .map(|t| {
            let t = t?;
            t.extract::<PyRef<'_, Tensor>>()
                .map(|t| t.0.clone())
                .map_err(|_| PyTypeError::new_err(format!("expected a sequence of Tensors, got a {}", type_name(&t))))
        })
        .collect()
}

#[pyfunction]
#[pyo3(signature = (tensors, dim = 0))]
fn cat(tensors: &Bound<'_, PyAny>, dim: i64) -> PyResult<Tensor> {
    Ok(Tensor(vkml_core::api::join::cat(&tensor_list(tensors)?, dim).py()?))
}

#[pyfunction]
#[pyo3(signature = (tensors, dim = 0))]
fn stack(tensors: &Bound<'_, PyAny>, dim: i64) -> PyResult<Tensor> {
    Ok(Tensor(vkml_core::api::join::stack(&tensor_list(tensors)?, dim).py()?))
}

#[pyfunction]
fn result_type(a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<PyDType> {
    let op = |o: &Bound<'_, PyAny>| -> PyResult<Operand> {
        operand(o).ok_or_else(|| {
            PyTypeError::new_err(format!("result_type expects tensors or numbers, got {}", type_name(o)))
        })
    };
    Ok(PyDType(core_result_type(&[&op(a)?, &op(b)?])))
}

#[pyfunction]
#[pyo3(signature = (*tensors))]
fn realize_(py: Python<'_>, tensors: &Bound<'_, PyTuple>) -> PyResult<()> {
    let ts: Vec<Core> = tensors
        .iter()
        .map(|t| t.extract::<PyRef<'_, Tensor>>().map(|t| t.0.clone()).map_err(PyErr::from))
        .collect::<PyResult<_>>()?;
    py.detach(|| realize::realize(&ts.iter().collect::<Vec<_>>())).py()
}

/// "debug" when the module was built with debug assertions (the dev profile), else "release": benchmarks name it.
#[pyfunction]
fn _build_profile() -> &'static str {
    if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    }
}

#[pyfunction]
fn synchronize(py: Python<'_>) -> PyResult<()> {
    py.detach(realize::synchronize).py()
}

#[pyfunction]
fn set_eager(on: bool) {
    realize::set_eager(on);
}

#[pyfunction]
fn is_eager() -> bool {
    realize::is_eager()
}

/// How float32 matrix products are computed, as torch's: "highest" (float32, the default), "high" (three float16
/// products of split operands, about 22 significant bits) or "medium" (one, 11 bits), on devices whose float16
/// products run on matrix units (docs/matmul.md).
#[pyfunction]
fn set_float32_matmul_precision(precision: &Bound<'_, PyAny>) -> PyResult<()> {
    let name: String = precision.extract().map_err(|_| {
        PyRuntimeError::new_err(format!("set_float32_matmul_precision expects a str, but got {}", type_name(precision)))
    })?;
    precision::set_float32_matmul_precision(&name).py()
}

/// A test hook: split float32 products on every device and shape (`precision`), matrix units or not.
#[pyfunction]
fn _split_on_every_device(on: bool) {
    precision::split_on_every_device(on);
}

/// The bound a precision's products are held to: (per_term, floor, least), None for "highest".
#[pyfunction]
fn _precision_bound(name: &str) -> Option<(f64, f64, f64)> {
    precision::bound(precision::Precision::from_name(name)?).map(|b| (b.per_term, b.floor, b.least))
}

#[pyfunction]
fn get_float32_matmul_precision() -> &'static str {
    precision::float32_matmul_precision().name()
}

#[pyfunction]
fn stats(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    for (c, name) in COUNTERS {
        d.set_item(name, get(c))?;
    }
    Ok(d)
}

/// One dict per public op (see docs/python-api.md).
#[pyfunction]
fn op_table(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let out = PyList::empty(py);
    for r in OPS {
        let d = PyDict::new(py);
        d.set_item("name", r.name)?;
        d.set_item("kind", r.kind.name())?;
        d.set_item("primitive", r.primitive)?;
        d.set_item("dtype_rule", r.dtype_rule.name())?;
        // Where ordinary test inputs are drawn, for the unary primitives (their rows in vkml_ops say it).
        let domain = UnaryOp::from_name(r.name).filter(|_| r.primitive).map(UnaryOp::domain);
        d.set_item("domain", domain)?;
        d.set_item("tolerance", tolerance_dict(py, &r.tolerance)?)?;
        let grad = vkml_core::graph::table::grad_contract(r.name).map(|g| tolerance_dict(py, &g)).transpose()?;
        d.set_item("grad", grad)?;
        let uns = PyList::empty(py);
        for u in r.unsupported {
            let e = PyDict::new(py);
            e.set_item("device", u.device)?;
            e.set_item("dtype", u.dtype.name())?;
            e.set_item("reason", u.reason)?;
            uns.append(e)?;
        }
        d.set_item("unsupported", uns)?;
        out.append(d)?;
    }
    Ok(out)
}

/// A tolerance contract as a dict: kind, its bounds and the reason.
fn tolerance_dict<'py>(py: Python<'py>, tol: &Tolerance) -> PyResult<Bound<'py, PyDict>> {
    let t = PyDict::new(py);
    t.set_item("kind", tol.kind())?;
    let (ulp, per, abs, rel, ftz, reason) = match *tol {
        Tolerance::Exact { gpu_ftz, reason } => (0.0, 0.0, 0.0, 0.0, gpu_ftz, reason),
        Tolerance::Ulp { ulp, per_abs_x, abs, gpu_ftz, reason } => (ulp, per_abs_x, abs, 0.0, gpu_ftz, reason),
        Tolerance::Absolute { abs, reason } => (0.0, 0.0, abs, 0.0, false, reason),
        Tolerance::Relative { rel, reason } => (0.0, 0.0, 0.0, rel, false, reason),
        Tolerance::Backward { gpu_ftz, reason } => (0.0, 0.0, 0.0, 0.0, gpu_ftz, reason),
    };
    t.set_item("ulp", ulp)?;
    t.set_item("ulp_per_abs_x", per)?;
    t.set_item("abs", abs)?;
    t.set_item("rel", rel)?;
    t.set_item("gpu_flushes_subnormals", ftz)?;
    t.set_item("reason", reason)?;
    Ok(t)
}

/// The module: every function and class is listed once here (the type stubs are generated from this list).
#[pymodule]
#[allow(non_upper_case_globals)] // the dtype constants take torch's names
mod _vkml {
    #[pymodule_export]
    use super::{
        _build_profile, _precision_bound, _split_on_every_device, arange, cat, eye, from_numpy, full,
        get_float32_matmul_precision, is_eager, linspace, make_tensor, manual_seed, ones, op_table, rand, randn,
        realize_, result_type, set_eager, set_float32_matmul_precision, stack, stats, synchronize, where_, zeros,
    };
    #[pymodule_export]
    use crate::{
        activation::{hardsigmoid, hardswish, logsigmoid, mish, relu6, selu, silu, softsign},
        affine::PyAffine,
        attention::PyMha,
        autograd::{backward, is_grad_enabled, set_grad_enabled, GradNode},
        described::{
            _described, _modules, adaptive_avg_pool2d, addcdiv, addcmul, addmm, avg_pool2d, batch_norm,
            binary_cross_entropy, binary_cross_entropy_with_logits, celu, conv1d, conv2d, conv_transpose2d,
            cross_entropy, diag, diagonal, dropout, elu, fold, gelu, group_norm, hardtanh, huber_loss, interpolate,
            kl_div, l1_loss, layer_norm, leaky_relu, linear, max_pool2d, mse_loss, nan_to_num, nll_loss, pad,
            scaled_dot_product_attention, smooth_l1_loss, softplus, tril, triu, unfold,
        },
        device::{
            _force_matmul, _has_coop_matmul, _has_staged_matmul, _has_wide_matmul, _lose_device, _matmul_pipeline,
            best_device, devices, init_vulkan, Device, PyDType,
        },
        einsum::einsum,
        gather::{_gather, _index_select, _scatter, _take_along_dim, embedding},
        io::{load, save},
        math::{_binary, _clamp, _lerp, _masked_fill, _moment, _product, _roll, _unary, _update},
        memory::{_empty_cache, _memory, _reset_peak_memory},
        nn::{log_softmax, logsumexp, one_hot, sigmoid, softmax},
        optim::{one_cycle_at, one_cycle_group, optimizer_check, optimizer_step, schedule_lr},
        profile::{_profile_start, _profile_stop},
        pytensor::Tensor,
        random::{_bernoulli, _empty, _multinomial, _normal, _randint, _randperm},
        rnn::PyRnn,
        scan::{_cumulative, _prod},
        sort::{_argsort, _sort, _topk},
        vnorm::_norm,
        weighted::PyWeighted,
    };

    use super::{DType, PyDType as D};

    // The dtypes, under torch's names.
    #[pymodule_export]
    const bool: D = D(DType::Bool);
    #[pymodule_export]
    const int32: D = D(DType::I32);
    #[pymodule_export]
    const int64: D = D(DType::I64);
    #[pymodule_export]
    const float16: D = D(DType::F16);
    #[pymodule_export]
    const bfloat16: D = D(DType::BF16);
    #[pymodule_export]
    const float32: D = D(DType::F32);
    #[pymodule_export]
    const float64: D = D(DType::F64);

    /// The package's version: the Cargo workspace's, the one place it is written.
    #[pymodule_export]
    const __version__: &str = env!("CARGO_PKG_VERSION");

    /// Register the CPU backend when the module loads.
    #[pymodule_init]
    fn init() -> pyo3::PyResult<()> {
        super::register_cpu();
        Ok(())
    }
}
