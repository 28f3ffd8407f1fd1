//! Layer 7: reverse-mode differentiation over the history that layer 6 records (`api::grad`). `backward` walks
//! the recorded steps from the outputs, applies each step's rule (`rules`), sums what reaches each tensor and adds
//! it to the leaves' `.grad`. The gradient graph is built from API ops, so it is lazy like any other.

mod rules;

use std::collections::{HashMap, HashSet};

use crate::api::elementwise::binary;
use crate::api::Tensor;
use crate::base::scalar::Scalar;
use crate::graph::op::BinaryOp;
use crate::plan::run::realize_with_next;
use crate::tensor::grad::set_grad_enabled;
use crate::tensor::promote::Operand;
use crate::util::error::{Error, Result};

/// `backward` of each output with its gradient (`None`: 1 for a one-element output, as torch's implicit grad).
/// Without `retain_graph` the walked history is released and a second pass through it fails, as in torch.
/// `inputs` (torch's `backward(inputs=...)`): the tensors whose `.grad` receives the gradient, leaves or not;
/// `None`: every leaf that requires grad.
pub fn backward(outputs: &[(Tensor, Option<Tensor>)], retain_graph: bool, inputs: Option<&[Tensor]>) -> Result<()> {
    let targets = match inputs {
        Some(ts) => {
            if ts.is_empty() {
                return Err(Error::Runtime("backward(): 'inputs' argument to backward() cannot be empty".into()));
            }
            if let Some(i) = ts.iter().position(|t| !t.requires_grad()) {
                return Err(Error::Runtime(format!("backward(): input {i} of 'inputs' does not require grad")));
            }
            Some(ts.iter().map(Tensor::grad_key).collect::<HashSet<usize>>())
        }
        None => None,
    };
    let prev = set_grad_enabled(false);
    let r = run(outputs, retain_graph, targets.as_ref());
    set_grad_enabled(prev);
    // A loss is read after the optimizer's step, whose realization computes it too instead of one of its own.
    for (t, _) in outputs.iter().filter(|(t, _)| t.numel() == 1) {
        realize_with_next(&t.node());
    }
    r
}

/// Add `g` to `t.grad`.
fn add_to_grad(t: &Tensor, g: &Tensor) -> Result<()> {
    let total = match t.grad() {
        Some(old) => binary(&Operand::Tensor(old), &Operand::Tensor(g.clone()), BinaryOp::Add)?,
        None => g.contiguous()?,
    };
    t.set_grad(Some(total.detach()))
}

fn run(outputs: &[(Tensor, Option<Tensor>)], retain_graph: bool, targets: Option<&HashSet<usize>>) -> Result<()> {
    let mut pending: HashMap<usize, Tensor> = HashMap::new();
    for (i, (t, g)) in outputs.iter().enumerate() {
        if !t.requires_grad() {
            return Err(Error::Runtime(format!(
                "element {i} of tensors does not require grad and does not have a grad_fn"
            )));
        }
        let g = match g {
            Some(g) => {
                if g.shape() != t.shape() {
                    return Err(Error::Runtime(format!(
                        "Mismatch in shape: grad_output[{i}] has a shape of {:?} and output[{i}] has a shape of {:?}.",
                        g.shape(),
                        t.shape()
                    )));
                }
                g.to_device(t.device())?.to_dtype(t.dtype())?
            }
            None if t.numel() == 1 => Tensor::full(t.shape(), Scalar::Int(1), t.dtype(), t.device())?,
            None => return Err(Error::Runtime("grad can be implicitly created only for scalar outputs".into())),
        };
        accumulate(&mut pending, t, g)?;
    }
    for t in topo_order(outputs.iter().map(|(t, _)| t.clone()).collect()) {
        let Some(g) = pending.remove(&t.grad_key()) else { continue };
        let wanted = targets.is_none_or(|k| k.contains(&t.grad_key()));
        let Some(f) = t.grad_fn() else {
            if wanted {
                add_to_grad(&t, &g)?;
            }
            continue;
        };
        if targets.is_some() && wanted {
            add_to_grad(&t, &g)?;
        }
        f.check_not_released()?;
        let inputs = f.inputs();
        let needs: Vec<bool> = inputs.iter().map(Tensor::requires_grad).collect();
        let grads = rules::input_grads(&f, &g, &needs)?;
        for ((input, gi), need) in inputs.iter().zip(grads).zip(needs) {
            if let (Some(gi), true) = (gi, need) {
                let gi = gi.to_device(input.device())?.to_dtype(input.dtype())?;
                if gi.shape() != input.shape() {
                    return Err(Error::Backend(format!(
                        "{}: gradient of shape {:?} for an input of shape {:?}",
                        f.name(),
                        gi.shape(),
                        input.shape()
                    )));
                }
                accumulate(&mut pending, input, gi)?;
            }
        }
        if !retain_graph {
            f.release();
        }
    }
    Ok(())
}

fn accumulate(pending: &mut HashMap<usize, Tensor>, t: &Tensor, g: Tensor) -> Result<()> {
    let key = t.grad_key();
    let total = match pending.remove(&key) {
        Some(old) => binary(&Operand::Tensor(old), &Operand::Tensor(g), BinaryOp::Add)?,
        None => g,
    };
    pending.insert(key, total);
    Ok(())
}

/// Tensors that require grad, reachable from `roots` through recorded history, each after every tensor computed
/// from it (reverse post-order of an iterative depth-first walk, so deep histories do not overflow the stack).
fn topo_order(roots: Vec<Tensor>) -> Vec<Tensor> {
    let mut seen: HashSet<usize> = HashSet::new();
    let mut post: Vec<Tensor> = Vec::new();
    let mut stack: Vec<(Tensor, bool)> = roots.into_iter().rev().map(|t| (t, false)).collect();
    while let Some((t, expanded)) = stack.pop() {
        if expanded {
            post.push(t);
            continue;
        }
        if !t.requires_grad() || !seen.insert(t.grad_key()) {
            continue;
        }
        let inputs = t.grad_fn().map(|f| f.inputs()).unwrap_or_default();
        stack.push((t, true));
        for i in inputs.into_iter().rev() {
            if !seen.contains(&i.grad_key()) {
                stack.push((i, false));
            }
        }
    }
    post.reverse();
    post
}
