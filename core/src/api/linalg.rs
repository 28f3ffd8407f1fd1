//! torch's fixed-rank products over the one matmul primitive: mm, bmm, addmm, outer and dot, with their shape and
//! dtype checks and messages.

use crate::api::elementwise::{binary, s, t};
use crate::base::scalar::Scalar;
use crate::graph::op::BinaryOp;
use crate::tensor::check::declared;
use crate::tensor::promote::Operand;
use crate::tensor::Tensor;
use crate::util::error::{Error, Result};

fn rank(x: &Tensor, want: usize, what: &str) -> Result<()> {
    if x.ndim() != want {
        return Err(Error::Runtime(format!("{what} must be a {}, got {}-D tensor", noun(want), x.ndim())));
    }
    Ok(())
}

fn noun(rank: usize) -> &'static str {
    match rank {
        1 => "vector",
        2 => "matrix",
        _ => "3D tensor",
    }
}

/// `mm(a, b)`: (n, k) @ (k, m).
pub fn mm(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    rank(a, 2, "self")?;
    rank(b, 2, "mat2")?;
    declared("mm", a)?;
    a.matmul(b)
}

/// `bmm(a, b)`: (B, n, k) @ (B, k, m) with equal batch sizes (no broadcasting, as torch).
pub fn bmm(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    rank(a, 3, "batch1")?;
    rank(b, 3, "batch2")?;
    if a.shape()[0] != b.shape()[0] {
        return Err(Error::Runtime(format!(
            "batch1 and batch2 must have same number of batches, got {} and {}",
            a.shape()[0],
            b.shape()[0]
        )));
    }
    declared("bmm", a)?;
    a.matmul(b)
}

/// `addmm(c, a, b, beta, alpha)` = β·c + α·(a @ b), the product accumulated before one rounding for 16-bit inputs;
/// β = 0 ignores c (nan and inf in it do not propagate), as torch.
pub fn addmm(c: &Tensor, a: &Tensor, b: &Tensor, beta: f64, alpha: f64) -> Result<Tensor> {
    rank(a, 2, "mat1")?;
    rank(b, 2, "mat2")?;
    declared("addmm", a)?;
    if c.dtype() != a.dtype() {
        return Err(Error::Runtime(format!(
            "self and mat2 must have the same dtype, but got {} and {}",
            c.dtype().name(),
            a.dtype().name()
        )));
    }
    // Integer products scale by integers (torch converts α and β to the tensor's type).
    let (alpha, beta) = if a.dtype().is_float() { (alpha, beta) } else { (alpha.trunc(), beta.trunc()) };
    let scale = |x: &Tensor, v: f64| -> Result<Tensor> {
        if a.dtype().is_float() {
            binary(&t(x), &s(v), BinaryOp::Mul)
        } else {
            binary(&t(x), &Operand::Scalar(Scalar::Int(v as i64)), BinaryOp::Mul)
        }
    };
    let p = a.matmul_acc(b)?;
    let p = if alpha == 1.0 { p } else { scale(&p, alpha)? };
    let shape = p.shape().to_vec();
    let c = c.expand(&shape).map_err(|_| {
        Error::Runtime(format!(
            "The expanded size of the tensor ({shape:?}) must match the existing size ({:?}) of input",
            c.shape()
        ))
    })?;
    let r = if beta == 0.0 {
        p
    } else {
        let cb = c.to_dtype(p.dtype())?;
        let cb = if beta == 1.0 { cb } else { scale(&cb, beta)? };
        binary(&t(&cb), &t(&p), BinaryOp::Add)?
    };
    r.to_dtype(a.dtype())
}

/// `outer(a, b)`: a[i]·b[j] for vectors a and b.
pub fn outer(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    rank(a, 1, "self")?;
    rank(b, 1, "vec2")?;
    binary(&t(&a.unsqueeze(1)?), &t(&b.unsqueeze(0)?), BinaryOp::Mul)
}

/// `dot(a, b)`: Σ a[i]·b[i] for vectors of one length and dtype, a 0-d result.
pub fn dot(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    if a.ndim() != 1 || b.ndim() != 1 {
        return Err(Error::Runtime(format!("1D tensors expected, but got {}D and {}D tensors", a.ndim(), b.ndim())));
    }
    if a.dtype() != b.dtype() {
        return Err(Error::Runtime(format!(
            "dot : expected both vectors to have same dtype, but found {} and {}",
            a.dtype().name(),
            b.dtype().name()
        )));
    }
    if a.shape()[0] != b.shape()[0] {
        return Err(Error::Runtime(format!(
            "inconsistent tensor size, expected tensor [{}] and src [{}] to have the same number of elements, but \
             got {} and {} elements respectively",
            a.shape()[0],
            b.shape()[0],
            a.shape()[0],
            b.shape()[0]
        )));
    }
    declared("dot", a)?;
    a.matmul(b)
}
