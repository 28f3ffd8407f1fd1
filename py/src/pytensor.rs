//! The Python `Tensor` class: a thin shell over `vkml_core::api::Tensor` with torch's method names and operators.

use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use vkml_core::api::{division, elementwise, Tensor as Core};
use vkml_core::base::dtype::DType;
use vkml_core::base::scalar::Scalar;
use vkml_core::graph::op::{BinaryOp, UnaryOp};
use vkml_core::tensor::promote::Operand;

use crate::convert::to_numpy;
use crate::convert::{device_arg, int_list, opt_dtype, scalar, sizes_or_keyword, type_name, OrPy};
use crate::device::{Device, PyDType};
use crate::index::{index_items, value_tensor};

/// A tensor.
#[pyclass(name = "Tensor", module = "vkml", frozen, subclass)]
#[derive(Clone)]
pub struct Tensor(pub Core);

fn cpu() -> PyResult<vkml_core::base::buffer::DeviceId> {
    vkml_core::dispatch::find("cpu").py()
}

/// A Tensor or scalar operand; `None` when `ob` is neither (operators then return NotImplemented).
pub fn operand(ob: &Bound<'_, PyAny>) -> Option<Operand> {
    if let Ok(t) = ob.extract::<PyRef<'_, Tensor>>() {
        return Some(Operand::Tensor(t.0.clone()));
    }
    scalar(ob).map(Operand::Scalar)
}

pub(crate) fn operand_or_err(ob: &Bound<'_, PyAny>) -> PyResult<Operand> {
    operand(ob).ok_or_else(|| PyTypeError::new_err(format!("expected a Tensor or a number, got {}", type_name(ob))))
}

/// Parse `dim` (None, int or tuple of ints).
pub(crate) fn dims(ob: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Vec<i64>>> {
    match ob {
        None => Ok(None),
        Some(o) if o.is_none() => Ok(None),
        Some(o) => int_list(o).map(Some),
    }
}

impl Tensor {
    fn bin(&self, other: &Bound<'_, PyAny>, op: BinaryOp, reflected: bool) -> PyResult<Py<PyAny>> {
        self.apply(other, reflected, |a, b| elementwise::binary(a, b, op))
    }

    /// A binary operator: `f(self, other)` (`f(other, self)` reflected), or NotImplemented for an operand that is
    /// not a tensor or a number, so that Python tries the other side and then raises torch's TypeError.
    fn apply(
        &self,
        other: &Bound<'_, PyAny>,
        reflected: bool,
        f: impl Fn(&Operand, &Operand) -> vkml_core::Result<vkml_core::api::Tensor>,
    ) -> PyResult<Py<PyAny>> {
        let py = other.py();
        let Some(o) = operand(other) else { return Ok(py.NotImplemented()) };
        let me = Operand::Tensor(self.0.clone());
        let (a, b) = if reflected { (&o, &me) } else { (&me, &o) };
        Ok(Bound::new(py, Tensor(f(a, b).py()?))?.into_any().unbind())
    }

    fn value(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        if self.0.numel() != 1 {
            return Err(PyRuntimeError::new_err(format!(
                "a Tensor with {} elements cannot be converted to Scalar",
                self.0.numel()
            )));
        }
        // NumPy's item() takes the single element of an array of any shape.
        Ok(to_numpy(py, &self.0, true)?.call_method0("item")?.unbind())
    }
}

#[pymethods]
impl Tensor {
    /// `Tensor(data)`: a tensor sharing another tensor's values (without its history), or made from data as
    /// `vkml.tensor(data)`; subclasses such as `nn.Parameter` are built this way.
    #[new]
    #[pyo3(signature = (data = None))]
    fn py_new(py: Python<'_>, data: Option<&Bound<'_, PyAny>>) -> PyResult<Tensor> {
        match data {
            None => Ok(Tensor(Core::full(&[0], Scalar::Int(0), DType::F32, cpu()?).py()?)),
            Some(d) => match d.extract::<PyRef<'_, Tensor>>() {
                Ok(t) => Ok(Tensor(t.0.detach())),
                Err(_) => Ok(Tensor(crate::from_data(py, d, None, None)?)),
            },
        }
    }
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.0.shape())
    }
    #[getter]
    fn dtype(&self) -> PyDType {
        PyDType(self.0.dtype())
    }
    #[getter]
    fn device(&self) -> Device {
        Device { id: self.0.device() }
    }
    #[getter]
    fn ndim(&self) -> usize {
        self.0.ndim()
    }
    #[getter(T)]
    fn t_all(&self) -> PyResult<Tensor> {
        let perm: Vec<i64> = (0..self.0.ndim() as i64).rev().collect();
        Ok(Tensor(self.0.permute(&perm).py()?))
    }
    #[getter(mT)]
    fn mt(&self) -> PyResult<Tensor> {
        if self.0.ndim() < 2 {
            return Err(PyRuntimeError::new_err("tensor.mT is only supported on matrices or batches of matrices"));
        }
        Ok(Tensor(self.0.transpose(-2, -1).py()?))
    }
    #[pyo3(signature = (dim = None))]
    fn size<'py>(&self, py: Python<'py>, dim: Option<i64>) -> PyResult<Bound<'py, PyAny>> {
        match dim {
            None => Ok(PyTuple::new(py, self.0.shape())?.into_any()),
            Some(d) => {
                let d = vkml_core::base::view::wrap_dim(d, self.0.ndim()).py()?;
                Ok(self.0.shape()[d].into_pyobject(py)?.into_any())
            }
        }
    }
    fn dim(&self) -> usize {
        self.0.ndim()
    }
    fn numel(&self) -> usize {
        self.0.numel()
    }
    fn element_size(&self) -> usize {
        self.0.dtype().itemsize()
    }
    #[pyo3(signature = (dim = None))]
    fn stride<'py>(&self, py: Python<'py>, dim: Option<i64>) -> PyResult<Bound<'py, PyAny>> {
        match dim {
            None => Ok(PyTuple::new(py, self.0.strides())?.into_any()),
            Some(d) => {
                let d = vkml_core::base::view::wrap_dim(d, self.0.ndim()).py()?;
                Ok(self.0.strides()[d].into_pyobject(py)?.into_any())
            }
        }
    }
    fn is_contiguous(&self) -> bool {
        self.0.is_contiguous()
    }
    fn numpy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_numpy(py, &self.0, false)
    }
    #[pyo3(signature = (dtype = None, copy = None))]
    fn __array__<'py>(
        &self,
        py: Python<'py>,
        dtype: Option<&Bound<'py, PyAny>>,
        copy: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let _ = copy;
        let a = to_numpy(py, &self.0, false)?;
        match dtype {
            Some(d) if !d.is_none() => a.call_method1("astype", (d,)),
            _ => Ok(a),
        }
    }
    fn tolist(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(to_numpy(py, &self.0, true)?.call_method0("tolist")?.unbind())
    }
    fn item(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.value(py)
    }
    fn __len__(&self) -> PyResult<usize> {
        if self.0.ndim() == 0 {
            return Err(PyTypeError::new_err("len() of a 0-d tensor"));
        }
        Ok(self.0.shape()[0])
    }
    fn __bool__(&self, py: Python<'_>) -> PyResult<bool> {
        if self.0.numel() != 1 {
            return Err(PyRuntimeError::new_err(format!(
                "Boolean value of Tensor with {} values is ambiguous",
                self.0.numel()
            )));
        }
        self.value(py)?.bind(py).is_truthy()
    }
    fn __float__(&self, py: Python<'_>) -> PyResult<f64> {
        self.one_element()?;
        self.value(py)?.bind(py).extract::<f64>()
    }
    fn __int__(&self, py: Python<'_>) -> PyResult<i64> {
        self.one_element()?;
        let v = self.value(py)?;
        let b = v.bind(py);
        b.extract::<i64>().or_else(|_| b.call_method0("__int__")?.extract::<i64>())
    }
    fn __index__(&self, py: Python<'_>) -> PyResult<i64> {
        if self.0.dtype().is_float() {
            return Err(PyTypeError::new_err("only integer tensors of a single element can be converted to an index"));
        }
        self.__int__(py)
    }
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let np = py.import("numpy")?;
        let a = to_numpy(py, &self.0, true)?;
        let kw = PyDict::new(py);
        kw.set_item("separator", ", ")?;
        kw.set_item("prefix", "tensor(")?;
        let body: String = np.call_method("array2string", (a,), Some(&kw))?.extract()?;
        let mut extra = String::new();
        if !matches!(self.0.dtype(), DType::F32 | DType::I64 | DType::Bool) {
            extra.push_str(&format!(", dtype=vkml.{}", self.0.dtype().name()));
        }
        let dev = vkml_core::dispatch::label(self.0.device());
        if dev != "cpu" {
            extra.push_str(&format!(", device='{dev}'"));
        }
        Ok(format!("tensor({body}{extra})"))
    }

    // ---- conversion
    #[pyo3(signature = (*args, dtype = None, device = None))]
    fn to(
        &self,
        args: &Bound<'_, PyTuple>,
        dtype: Option<&Bound<'_, PyAny>>,
        device: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Tensor> {
        let mut dt = opt_dtype(dtype)?;
        let mut dev = match device {
            Some(d) if !d.is_none() => Some(device_arg(d)?),
            _ => None,
        };
        // Positional arguments are a dtype object or a device (object or string), in any order.
        for a in args.iter() {
            match a.extract::<PyRef<'_, PyDType>>() {
                Ok(d) => dt = Some(d.0),
                Err(_) => dev = Some(device_arg(&a)?),
            }
        }
        let mut t = self.0.clone();
        if let Some(d) = dev {
            t = t.to_device(d).py()?;
        }
        if let Some(d) = dt {
            t = t.to_dtype(d).py()?;
        }
        Ok(Tensor(t))
    }
    fn cpu(&self) -> PyResult<Tensor> {
        Ok(Tensor(self.0.to_device(cpu()?).py()?))
    }
    fn float(&self) -> PyResult<Tensor> {
        Ok(Tensor(self.0.to_dtype(DType::F32).py()?))
    }
    fn half(&self) -> PyResult<Tensor> {
        Ok(Tensor(self.0.to_dtype(DType::F16).py()?))
    }
    fn bfloat16(&self) -> PyResult<Tensor> {
        Ok(Tensor(self.0.to_dtype(DType::BF16).py()?))
    }
    fn double(&self) -> PyResult<Tensor> {
        Ok(Tensor(self.0.to_dtype(DType::F64).py()?))
    }
    fn int(&self) -> PyResult<Tensor> {
        Ok(Tensor(self.0.to_dtype(DType::I32).py()?))
    }
    fn long(&self) -> PyResult<Tensor> {
        Ok(Tensor(self.0.to_dtype(DType::I64).py()?))
    }
    fn bool(&self) -> PyResult<Tensor> {
        Ok(Tensor(self.0.to_dtype(DType::Bool).py()?))
    }
    fn contiguous(&self) -> PyResult<Tensor> {
        Ok(Tensor(self.0.contiguous().py()?))
    }
    fn clone(&self) -> PyResult<Tensor> {
        Ok(Tensor(self.0.copy().py()?))
    }
    fn detach(&self) -> Tensor {
        Tensor(self.0.detach())
    }

    // ---- autograd
    #[getter]
    fn get_requires_grad(&self) -> bool {
        self.0.requires_grad()
    }
    #[setter]
    fn set_requires_grad(&self, on: bool) -> PyResult<()> {
        self.0.set_requires_grad(on).py()
    }
    #[pyo3(signature = (requires_grad = true))]
    fn requires_grad_(slf: Bound<'_, Self>, requires_grad: bool) -> PyResult<Bound<'_, Self>> {
        slf.get().0.set_requires_grad(requires_grad).py()?;
        Ok(slf)
    }
    #[getter]
    fn is_leaf(&self) -> bool {
        self.0.is_leaf()
    }
    #[getter]
    fn get_grad(&self) -> Option<Tensor> {
        self.0.grad().map(Tensor)
    }
    #[setter]
    fn set_grad(&self, g: Option<PyRef<'_, Tensor>>) -> PyResult<()> {
        self.0.set_grad(g.map(|g| g.0.clone())).py()
    }
    #[getter]
    fn grad_fn(&self) -> Option<crate::autograd::GradNode> {
        self.0.grad_fn().map(|f| crate::autograd::GradNode(f.name()))
    }
    /// `.data`: the same values without history.
    #[getter]
    fn data(&self) -> Tensor {
        Tensor(self.0.detach())
    }
    #[pyo3(signature = (gradient = None, retain_graph = None, create_graph = false, inputs = None))]
    fn backward(
        &self,
        py: Python<'_>,
        gradient: Option<PyRef<'_, Tensor>>,
        retain_graph: Option<bool>,
        create_graph: bool,
        inputs: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let inputs = crate::autograd::inputs_arg(inputs)?;
        if create_graph {
            return Err(PyRuntimeError::new_err("create_graph=True (higher-order gradients) is not supported"));
        }
        let roots = [(self.0.clone(), gradient.map(|g| g.0.clone()))];
        py.detach(|| vkml_core::autograd::backward(&roots, retain_graph.unwrap_or(false), inputs.as_deref())).py()
    }

    // ---- views
    #[pyo3(signature = (*args, shape = None))]
    fn reshape(&self, args: &Bound<'_, PyTuple>, shape: Option<&Bound<'_, PyAny>>) -> PyResult<Tensor> {
        Ok(Tensor(self.0.reshape(&sizes_or_keyword(args, shape, "reshape", "shape")?).py()?))
    }
    #[pyo3(signature = (*args, size = None))]
    fn view(&self, args: &Bound<'_, PyTuple>, size: Option<&Bound<'_, PyAny>>) -> PyResult<Tensor> {
        Ok(Tensor(self.0.view_as_shape(&sizes_or_keyword(args, size, "view", "size")?).py()?))
    }
    #[pyo3(signature = (*args, dims = None))]
    fn permute(&self, args: &Bound<'_, PyTuple>, dims: Option<&Bound<'_, PyAny>>) -> PyResult<Tensor> {
        Ok(Tensor(self.0.permute(&sizes_or_keyword(args, dims, "permute", "dims")?).py()?))
    }
    fn transpose(&self, dim0: i64, dim1: i64) -> PyResult<Tensor> {
        Ok(Tensor(self.0.transpose(dim0, dim1).py()?))
    }
    fn t(&self) -> PyResult<Tensor> {
        Ok(Tensor(self.0.t().py()?))
    }
    #[pyo3(signature = (*args, size = None))]
    fn expand(&self, args: &Bound<'_, PyTuple>, size: Option<&Bound<'_, PyAny>>) -> PyResult<Tensor> {
        Ok(Tensor(self.0.expand_to(&sizes_or_keyword(args, size, "expand", "size")?).py()?))
    }
    fn expand_as(&self, other: PyRef<'_, Tensor>) -> PyResult<Tensor> {
        Ok(Tensor(self.0.expand(other.0.shape()).py()?))
    }
    fn broadcast_to(&self, size: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        Ok(Tensor(self.0.expand_to(&int_list(size)?).py()?))
    }
    #[pyo3(signature = (dim = None))]
    fn squeeze(&self, dim: Option<&Bound<'_, PyAny>>) -> PyResult<Tensor> {
        let d = dims(dim)?;
        Ok(Tensor(self.0.squeeze(d.as_deref()).py()?))
    }
    fn unsqueeze(&self, dim: i64) -> PyResult<Tensor> {
        Ok(Tensor(self.0.unsqueeze(dim).py()?))
    }
    #[pyo3(signature = (start_dim = 0, end_dim = -1), text_signature = "(self, /, start_dim=0, end_dim=-1)")]
    fn flatten(&self, start_dim: i64, end_dim: i64) -> PyResult<Tensor> {
        Ok(Tensor(self.0.flatten(start_dim, end_dim).py()?))
    }
    #[pyo3(signature = (*args, dims = None))]
    fn flip(&self, args: &Bound<'_, PyTuple>, dims: Option<&Bound<'_, PyAny>>) -> PyResult<Tensor> {
        Ok(Tensor(self.0.flip(&sizes_or_keyword(args, dims, "flip", "dims")?).py()?))
    }
    fn narrow(&self, dim: i64, start: i64, length: i64) -> PyResult<Tensor> {
        Ok(Tensor(self.0.narrow(dim, start, length).py()?))
    }
    #[pyo3(signature = (*args, repeats = None))]
    fn repeat(&self, args: &Bound<'_, PyTuple>, repeats: Option<&Bound<'_, PyAny>>) -> PyResult<Tensor> {
        Ok(Tensor(self.0.repeat(&sizes_or_keyword(args, repeats, "repeat", "repeats")?).py()?))
    }
    fn tile(&self, dims: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        Ok(Tensor(self.0.tile(&int_list(dims)?).py()?))
    }
    #[pyo3(signature = (split_size_or_sections, dim = 0))]
    fn split<'py>(
        &self,
        py: Python<'py>,
        split_size_or_sections: &Bound<'py, PyAny>,
        dim: i64,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let parts = match split_size_or_sections.extract::<usize>() {
            Ok(n) => self.0.split(n, dim),
            Err(_) => {
                let sizes = crate::convert::sizes(&int_list(split_size_or_sections)?)?;
                self.0.split_sizes(&sizes, dim)
            }
        };
        PyTuple::new(py, parts.py()?.into_iter().map(Tensor))
    }
    #[pyo3(signature = (chunks, dim = 0))]
    fn chunk<'py>(&self, py: Python<'py>, chunks: usize, dim: i64) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.0.chunk(chunks, dim).py()?.into_iter().map(Tensor))
    }
    #[pyo3(signature = (dim = 0))]
    fn unbind<'py>(&self, py: Python<'py>, dim: i64) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.0.unbind(dim).py()?.into_iter().map(Tensor))
    }
    fn __getitem__(&self, key: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        Ok(Tensor(self.0.index(&index_items(key)?).py()?))
    }
    fn __setitem__(&self, key: &Bound<'_, PyAny>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let items = index_items(key)?;
        if items.iter().any(|it| matches!(it, vkml_core::api::index::IndexItem::Tensor(_))) {
            let v = value_tensor(value, &self.0)?;
            return vkml_core::api::advanced::assign(&self.0, &items, &v).py();
        }
        let target = self.0.index(&items).py()?;
        let v = value_tensor(value, &target)?;
        target.assign(&v).py()
    }

    // ---- math
    fn add(&self, other: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        Ok(Tensor(elementwise::binary(&Operand::Tensor(self.0.clone()), &operand_or_err(other)?, BinaryOp::Add).py()?))
    }
    fn sub(&self, other: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        Ok(Tensor(elementwise::sub(&Operand::Tensor(self.0.clone()), &operand_or_err(other)?).py()?))
    }
    fn mul(&self, other: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        Ok(Tensor(elementwise::binary(&Operand::Tensor(self.0.clone()), &operand_or_err(other)?, BinaryOp::Mul).py()?))
    }
    #[pyo3(signature = (other, *, rounding_mode = None))]
    fn div(&self, other: &Bound<'_, PyAny>, rounding_mode: Option<&str>) -> PyResult<Tensor> {
        let (a, b) = (Operand::Tensor(self.0.clone()), operand_or_err(other)?);
        match rounding_mode {
            None => Ok(Tensor(elementwise::binary(&a, &b, BinaryOp::Div).py()?)),
            Some("floor") => Ok(Tensor(division::floor_divide(&a, &b).py()?)),
            Some("trunc") => Ok(Tensor(division::trunc_divide(&a, &b).py()?)),
            Some(other) => Err(PyValueError::new_err(format!(
                "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{other}'"
            ))),
        }
    }
    fn maximum(&self, other: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        Ok(Tensor(
            elementwise::binary(&Operand::Tensor(self.0.clone()), &operand_or_err(other)?, BinaryOp::Maximum).py()?,
        ))
    }
    fn minimum(&self, other: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        self.cmp(other, BinaryOp::Minimum)
    }
    fn bitwise_and(&self, other: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        self.cmp(other, BinaryOp::BitAnd)
    }
    fn bitwise_or(&self, other: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        self.cmp(other, BinaryOp::BitOr)
    }
    fn bitwise_xor(&self, other: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        self.cmp(other, BinaryOp::BitXor)
    }
    fn bitwise_not(&self) -> PyResult<Tensor> {
        Ok(Tensor(self.0.bitwise_not().py()?))
    }
    fn __invert__(&self) -> PyResult<Tensor> {
        if self.0.dtype().is_float() {
            let msg = "~ (operator.invert) is only implemented on integer and Boolean-type tensors";
            return Err(pyo3::exceptions::PyTypeError::new_err(msg));
        }
        self.bitwise_not()
    }
    fn __and__(&self, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.bin(o, BinaryOp::BitAnd, false)
    }
    fn __rand__(&self, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.bin(o, BinaryOp::BitAnd, true)
    }
    fn __or__(&self, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.bin(o, BinaryOp::BitOr, false)
    }
    fn __ror__(&self, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.bin(o, BinaryOp::BitOr, true)
    }
    fn __xor__(&self, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.bin(o, BinaryOp::BitXor, false)
    }
    fn __rxor__(&self, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.bin(o, BinaryOp::BitXor, true)
    }
    fn logical_and(&self, other: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        self.logical(other, BinaryOp::BitAnd)
    }
    fn logical_or(&self, other: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        self.logical(other, BinaryOp::BitOr)
    }
    fn logical_xor(&self, other: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        self.logical(other, BinaryOp::BitXor)
    }
    fn logical_not(&self) -> PyResult<Tensor> {
        Ok(Tensor(self.0.logical_not().py()?))
    }
    fn eq(&self, other: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        self.cmp(other, BinaryOp::Eq)
    }
    fn ne(&self, other: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        self.cmp(other, BinaryOp::Ne)
    }
    fn lt(&self, other: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        self.cmp(other, BinaryOp::Lt)
    }
    fn le(&self, other: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        self.cmp(other, BinaryOp::Le)
    }
    fn gt(&self, other: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        self.cmp(other, BinaryOp::Gt)
    }
    fn ge(&self, other: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        self.cmp(other, BinaryOp::Ge)
    }
    fn neg(&self) -> PyResult<Tensor> {
        Ok(Tensor(self.0.neg().py()?))
    }
    fn exp(&self) -> PyResult<Tensor> {
        Ok(Tensor(self.0.exp().py()?))
    }
    fn log(&self) -> PyResult<Tensor> {
        Ok(Tensor(self.0.log().py()?))
    }
    fn sqrt(&self) -> PyResult<Tensor> {
        Ok(Tensor(self.0.sqrt().py()?))
    }
    fn relu(&self) -> PyResult<Tensor> {
        Ok(Tensor(self.0.relu().py()?))
    }
    fn abs(&self) -> PyResult<Tensor> {
        self.un(UnaryOp::Abs)
    }
    fn __abs__(&self) -> PyResult<Tensor> {
        self.un(UnaryOp::Abs)
    }
    fn square(&self) -> PyResult<Tensor> {
        Ok(Tensor(self.0.square().py()?))
    }
    fn reciprocal(&self) -> PyResult<Tensor> {
        Ok(Tensor(self.0.reciprocal().py()?))
    }
    fn sigmoid(&self) -> PyResult<Tensor> {
        Ok(Tensor(vkml_core::nn::functional::sigmoid(&self.0).py()?))
    }
    #[pyo3(signature = (dim, dtype = None))]
    fn softmax(slf: PyRef<'_, Self>, dim: i64, dtype: Option<&Bound<'_, PyAny>>) -> PyResult<Tensor> {
        crate::nn::softmax(slf, dim, dtype)
    }
    #[pyo3(signature = (dim, dtype = None))]
    fn log_softmax(slf: PyRef<'_, Self>, dim: i64, dtype: Option<&Bound<'_, PyAny>>) -> PyResult<Tensor> {
        crate::nn::log_softmax(slf, dim, dtype)
    }
    #[pyo3(signature = (dim, keepdim = false))]
    fn logsumexp(slf: PyRef<'_, Self>, dim: &Bound<'_, PyAny>, keepdim: bool) -> PyResult<Tensor> {
        crate::nn::logsumexp(slf, dim, keepdim)
    }
    fn matmul(&self, other: PyRef<'_, Tensor>) -> PyResult<Tensor> {
        Ok(Tensor(self.0.matmul(&other.0).py()?))
    }

    fn __add__(&self, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.bin(o, BinaryOp::Add, false)
    }
    fn __radd__(&self, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.bin(o, BinaryOp::Add, true)
    }
    fn __sub__(&self, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.apply(o, false, elementwise::sub)
    }
    fn __rsub__(&self, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.apply(o, true, elementwise::sub)
    }
    fn __mul__(&self, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.bin(o, BinaryOp::Mul, false)
    }
    fn __rmul__(&self, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.bin(o, BinaryOp::Mul, true)
    }
    fn __truediv__(&self, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.bin(o, BinaryOp::Div, false)
    }
    fn __rtruediv__(&self, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.bin(o, BinaryOp::Div, true)
    }
    fn __matmul__(&self, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let Ok(t) = o.extract::<PyRef<'_, Tensor>>() else { return Ok(o.py().NotImplemented()) };
        Ok(Bound::new(o.py(), Tensor(self.0.matmul(&t.0).py()?))?.into_any().unbind())
    }
    fn __neg__(&self) -> PyResult<Tensor> {
        self.neg()
    }
    fn __pos__(&self) -> Tensor {
        self.clone_ref()
    }
    fn __eq__(&self, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.bin(o, BinaryOp::Eq, false)
    }
    fn __ne__(&self, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.bin(o, BinaryOp::Ne, false)
    }
    fn __lt__(&self, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.bin(o, BinaryOp::Lt, false)
    }
    fn __le__(&self, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.bin(o, BinaryOp::Le, false)
    }
    fn __gt__(&self, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.bin(o, BinaryOp::Gt, false)
    }
    fn __ge__(&self, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.bin(o, BinaryOp::Ge, false)
    }
    /// Identity hash, as torch: a tensor is a dict key by object (its values change in place).
    fn __hash__(slf: &Bound<'_, Self>) -> isize {
        slf.as_ptr() as isize
    }

    // ---- reductions
    #[pyo3(signature = (dim = None, keepdim = false, dtype = None))]
    fn sum(&self, dim: Option<&Bound<'_, PyAny>>, keepdim: bool, dtype: Option<&Bound<'_, PyAny>>) -> PyResult<Tensor> {
        let x = match opt_dtype(dtype)? {
            Some(d) => self.0.to_dtype(d).py()?,
            None => self.0.clone(),
        };
        Ok(Tensor(x.sum(dims(dim)?.as_deref(), keepdim).py()?))
    }
    #[pyo3(signature = (dim = None, keepdim = false))]
    fn mean(&self, dim: Option<&Bound<'_, PyAny>>, keepdim: bool) -> PyResult<Tensor> {
        Ok(Tensor(self.0.mean(dims(dim)?.as_deref(), keepdim).py()?))
    }
    #[pyo3(signature = (dim = None, keepdim = false))]
    fn amax(&self, dim: Option<&Bound<'_, PyAny>>, keepdim: bool) -> PyResult<Tensor> {
        Ok(Tensor(self.0.amax(dims(dim)?.as_deref(), keepdim).py()?))
    }
    #[pyo3(signature = (dim = None, keepdim = false))]
    fn argmax(&self, dim: Option<i64>, keepdim: bool) -> PyResult<Tensor> {
        Ok(Tensor(self.0.argmax(dim, keepdim).py()?))
    }
    #[pyo3(signature = (dim = None, keepdim = false))]
    fn max<'py>(&self, py: Python<'py>, dim: Option<&Bound<'py, PyAny>>, keepdim: bool) -> PyResult<Bound<'py, PyAny>> {
        self.extremum(py, dim, keepdim, true)
    }
    #[pyo3(signature = (dim = None, keepdim = false))]
    fn min<'py>(&self, py: Python<'py>, dim: Option<&Bound<'py, PyAny>>, keepdim: bool) -> PyResult<Bound<'py, PyAny>> {
        self.extremum(py, dim, keepdim, false)
    }
    #[pyo3(signature = (dim = None, keepdim = false))]
    fn amin(&self, dim: Option<&Bound<'_, PyAny>>, keepdim: bool) -> PyResult<Tensor> {
        Ok(Tensor(self.0.amin(dims(dim)?.as_deref(), keepdim).py()?))
    }
    #[pyo3(signature = (dim = None, keepdim = false))]
    fn argmin(&self, dim: Option<i64>, keepdim: bool) -> PyResult<Tensor> {
        Ok(Tensor(self.0.argmin(dim, keepdim).py()?))
    }
    #[pyo3(signature = (dim = None, keepdim = false))]
    fn all(&self, dim: Option<&Bound<'_, PyAny>>, keepdim: bool) -> PyResult<Tensor> {
        Ok(Tensor(self.0.all(dims(dim)?.as_deref(), keepdim).py()?))
    }
    #[pyo3(signature = (dim = None, keepdim = false))]
    fn any(&self, dim: Option<&Bound<'_, PyAny>>, keepdim: bool) -> PyResult<Tensor> {
        Ok(Tensor(self.0.any(dims(dim)?.as_deref(), keepdim).py()?))
    }

    // ---- in place
    fn add_<'py>(slf: Bound<'py, Self>, other: &Bound<'py, PyAny>) -> PyResult<Bound<'py, Self>> {
        slf.get().0.update(&operand_or_err(other)?, "add").py()?;
        Ok(slf)
    }
    fn sub_<'py>(slf: Bound<'py, Self>, other: &Bound<'py, PyAny>) -> PyResult<Bound<'py, Self>> {
        slf.get().0.update(&operand_or_err(other)?, "sub").py()?;
        Ok(slf)
    }
    fn mul_<'py>(slf: Bound<'py, Self>, other: &Bound<'py, PyAny>) -> PyResult<Bound<'py, Self>> {
        slf.get().0.update(&operand_or_err(other)?, "mul").py()?;
        Ok(slf)
    }
    fn div_<'py>(slf: Bound<'py, Self>, other: &Bound<'py, PyAny>) -> PyResult<Bound<'py, Self>> {
        slf.get().0.update(&operand_or_err(other)?, "div").py()?;
        Ok(slf)
    }
    fn __iadd__(slf: Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<()> {
        slf.get().0.update(&operand_or_err(other)?, "add").py()
    }
    fn __isub__(slf: Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<()> {
        slf.get().0.update(&operand_or_err(other)?, "sub").py()
    }
    fn __imul__(slf: Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<()> {
        slf.get().0.update(&operand_or_err(other)?, "mul").py()
    }
    fn __itruediv__(slf: Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<()> {
        slf.get().0.update(&operand_or_err(other)?, "div").py()
    }
    #[pyo3(signature = (from_ = 0.0, to = 1.0))]
    fn uniform_(slf: Bound<'_, Self>, from_: f64, to: f64) -> PyResult<Bound<'_, Self>> {
        vkml_core::nn::functional::uniform_(&slf.get().0, from_, to).py()?;
        Ok(slf)
    }
    #[pyo3(signature = (mean = 0.0, std = 1.0))]
    fn normal_(slf: Bound<'_, Self>, mean: f64, std: f64) -> PyResult<Bound<'_, Self>> {
        vkml_core::nn::functional::normal_(&slf.get().0, mean, std).py()?;
        Ok(slf)
    }
    fn zero_(slf: Bound<'_, Self>) -> PyResult<Bound<'_, Self>> {
        slf.get().0.fill(Scalar::Int(0)).py()?;
        Ok(slf)
    }
    fn fill_<'py>(slf: Bound<'py, Self>, value: &Bound<'py, PyAny>) -> PyResult<Bound<'py, Self>> {
        let s = scalar(value).ok_or_else(|| PyTypeError::new_err("fill_ expects a number"))?;
        slf.get().0.fill(s).py()?;
        Ok(slf)
    }
    fn copy_<'py>(slf: Bound<'py, Self>, src: PyRef<'py, Tensor>) -> PyResult<Bound<'py, Self>> {
        slf.get().0.assign(&src.0).py()?;
        Ok(slf)
    }
}

impl Tensor {
    /// max/min: the whole tensor, (values, indices) over a dim, or the elementwise form with a tensor argument.
    fn extremum<'py>(
        &self,
        py: Python<'py>,
        dim: Option<&Bound<'py, PyAny>>,
        keepdim: bool,
        max: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let whole = || if max { self.0.max_all() } else { self.0.min_all() };
        match dim {
            Some(d) if !d.is_none() => {
                if let Ok(t) = d.extract::<PyRef<'_, Tensor>>() {
                    let op = if max { BinaryOp::Maximum } else { BinaryOp::Minimum };
                    let r = elementwise::binary(&Operand::Tensor(self.0.clone()), &Operand::Tensor(t.0.clone()), op);
                    return Ok(Bound::new(py, Tensor(r.py()?))?.into_any());
                }
                let d: i64 = d.extract()?;
                let (v, i) = if max { self.0.max_dim(d, keepdim) } else { self.0.min_dim(d, keepdim) }.py()?;
                let ns = py.import("vkml")?.getattr(if max { "_MaxResult" } else { "_MinResult" })?;
                ns.call1((Tensor(v), Tensor(i)))
            }
            _ => Ok(Bound::new(py, Tensor(whole().py()?))?.into_any()),
        }
    }

    fn logical(&self, other: &Bound<'_, PyAny>, op: BinaryOp) -> PyResult<Tensor> {
        let me = Operand::Tensor(self.0.clone());
        Ok(Tensor(vkml_core::api::logical::logical(&me, &operand_or_err(other)?, op).py()?))
    }

    fn un(&self, op: UnaryOp) -> PyResult<Tensor> {
        Ok(Tensor(self.0.unary(op).py()?))
    }

    /// float()/int() of a multi-element tensor raise ValueError, as in torch.
    fn one_element(&self) -> PyResult<()> {
        if self.0.numel() != 1 {
            return Err(PyValueError::new_err("only one element tensors can be converted to Python scalars"));
        }
        Ok(())
    }

    fn clone_ref(&self) -> Tensor {
        Tensor(self.0.clone())
    }

    fn cmp(&self, other: &Bound<'_, PyAny>, op: BinaryOp) -> PyResult<Tensor> {
        Ok(Tensor(elementwise::binary(&Operand::Tensor(self.0.clone()), &operand_or_err(other)?, op).py()?))
    }
}
