//! Fused elementwise programs: an expression over tensors and constants, written once and run either as one
//! `Op::Fused` dispatch (float32 inputs on one device) or as the chain of primitives it stands for (16-bit
//! inputs, which round after every primitive). Every fused step computes exactly what its primitive computes, so
//! both runs give the same bytes on a device; the optimizers write their updates with it.

use crate::api::elementwise::{binary, s, t};
use crate::base::dtype::DType;
use crate::base::view::broadcast_shapes;
use crate::graph::op::{fits, BinaryOp, BinaryRule, Op, Step, UnaryOp, FUSED_INPUTS};
use crate::tensor::Tensor;
use crate::util::error::{Error, Result};

/// An elementwise expression over the inputs of `eval` and float constants.
#[derive(Clone, Debug)]
pub enum Expr {
    Input(usize),
    Const(f64),
    Unary(UnaryOp, Box<Expr>),
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
}

macro_rules! binary_ops {
    ($($trait:ident :: $method:ident => $op:ident),*) => {$(
        impl std::ops::$trait for Expr {
            type Output = Expr;
            fn $method(self, o: Expr) -> Expr {
                Expr::Binary(BinaryOp::$op, Box::new(self), Box::new(o))
            }
        }
    )*};
}
binary_ops!(Add::add => Add, Mul::mul => Mul, Div::div => Div);

/// self − o as `sub` computes it: self + (−o).
impl std::ops::Sub for Expr {
    type Output = Expr;
    fn sub(self, o: Expr) -> Expr {
        self + -o
    }
}

impl std::ops::Neg for Expr {
    type Output = Expr;
    fn neg(self) -> Expr {
        Expr::Unary(UnaryOp::Neg, Box::new(self))
    }
}

impl Expr {
    pub fn maximum(self, o: Expr) -> Expr {
        Expr::Binary(BinaryOp::Maximum, Box::new(self), Box::new(o))
    }
    /// self · c.
    pub fn scale(self, c: f64) -> Expr {
        self * Expr::Const(c)
    }
    pub fn sqrt(self) -> Expr {
        Expr::Unary(UnaryOp::Sqrt, Box::new(self))
    }
}

/// `e` over `inputs`: one fused dispatch where the program fits the kernel, else the primitives.
pub fn eval(e: &Expr, inputs: &[&Tensor]) -> Result<Tensor> {
    match compile(e, inputs) {
        Some(steps) => fused(steps, inputs),
        None => composite(e, inputs),
    }
}

/// The program for `e`, or None where it cannot run fused: inputs not all float32 on one device, more than the
/// kernel binds, or a program past its words or stack.
fn compile(e: &Expr, inputs: &[&Tensor]) -> Option<Vec<Step>> {
    let device = inputs.first()?.device();
    if inputs.len() > FUSED_INPUTS || inputs.iter().any(|x| x.dtype() != DType::F32 || x.device() != device) {
        return None;
    }
    let mut steps = Vec::new();
    emit(e, &mut steps)?;
    fits(&steps).then_some(steps)
}

/// Append `e` in postfix order; None for an input index past a step's range, or a comparison or bitwise op (whose
/// primitive gives bool, or refuses floats), which the composite runs as written.
fn emit(e: &Expr, steps: &mut Vec<Step>) -> Option<()> {
    match e {
        Expr::Input(k) => steps.push(Step::Input(u8::try_from(*k).ok()?)),
        Expr::Const(c) => steps.push(Step::Const(*c as f32)),
        Expr::Unary(op, x) => {
            emit(x, steps)?;
            steps.push(Step::Unary(*op));
        }
        Expr::Binary(op, x, y) => {
            if matches!(op.rule(), BinaryRule::Compare | BinaryRule::Bits) {
                return None;
            }
            emit(x, steps)?;
            emit(y, steps)?;
            steps.push(Step::Binary(*op));
        }
    }
    Some(())
}

fn fused(steps: Vec<Step>, inputs: &[&Tensor]) -> Result<Tensor> {
    if inputs.iter().any(|x| x.requires_grad()) && crate::tensor::grad::is_grad_enabled() {
        return Err(Error::Runtime("a fused program records no gradient; run it under no_grad".into()));
    }
    let mut shape: Vec<usize> = Vec::new();
    for x in inputs {
        shape = broadcast_shapes(&shape, x.shape())?;
    }
    let views = inputs.iter().map(|x| x.expand(&shape)).collect::<Result<Vec<_>>>()?;
    let refs: Vec<&Tensor> = views.iter().collect();
    Tensor::make(Op::Fused(steps.into()), &refs, shape, DType::F32, inputs[0].device())
}

/// `e` as the chain of primitives (what `eval` runs where it cannot fuse; tests compare the two): constants are
/// Python-style float scalars, as the composites write them.
pub fn composite(e: &Expr, inputs: &[&Tensor]) -> Result<Tensor> {
    let operand = |x: &Expr| -> Result<crate::tensor::promote::Operand> {
        Ok(match x {
            Expr::Const(c) => s(*c),
            other => t(&composite(other, inputs)?),
        })
    };
    match e {
        Expr::Input(k) => {
            inputs.get(*k).map(|x| (*x).clone()).ok_or_else(|| Error::Value(format!("no input {k} in a program")))
        }
        Expr::Const(_) => Err(Error::Value("a program needs a tensor input".into())),
        Expr::Unary(op, x) => composite(x, inputs)?.unary(*op),
        Expr::Binary(op, x, y) => binary(&operand(x)?, &operand(y)?, *op),
    }
}
