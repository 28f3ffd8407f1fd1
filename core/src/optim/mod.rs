//! Layer 7: optimizer update rules (SGD, Adam/AdamW, RMSprop, Adagrad) in torch's order of operations, applied
//! in place to parameters and their state under no-grad. A step realizes the parameters and state it wrote, so a
//! training loop that never reads a value still does not grow a graph across steps.

use crate::api::elementwise::{add, binary, mul, s, scale, sub, t};
use crate::api::grad::no_grad;
use crate::api::realize::realize;
use crate::api::Tensor;
use crate::base::scalar::Scalar;
use crate::graph::op::BinaryOp;
use crate::util::error::{Error, Result};

/// a + c·b (torch's `add(b, alpha=c)`).
fn add_scaled(a: &Tensor, b: &Tensor, c: f64) -> Result<Tensor> {
    add(a, &scale(b, c)?)
}

fn zeros_like(x: &Tensor) -> Result<Tensor> {
    Tensor::full(x.shape(), Scalar::Int(0), x.dtype(), x.device())
}

/// The gradient a rule uses: `.grad` (negated to maximize), plus weight decay `wd·p` when it is L2-style.
fn effective_grad(p: &Tensor, maximize: bool, l2: f64) -> Result<Option<Tensor>> {
    let Some(g) = p.grad() else { return Ok(None) };
    if g.shape() != p.shape() {
        return Err(Error::Runtime(format!("grad of shape {:?} for a parameter of shape {:?}", g.shape(), p.shape())));
    }
    let g = if maximize { g.neg()? } else { g };
    Ok(Some(if l2 != 0.0 { add_scaled(&g, p, l2)? } else { g }))
}

/// State tensors, created as zeros on first use.
fn state(slot: &mut Option<Tensor>, like: &Tensor) -> Result<Tensor> {
    match slot {
        Some(x) => Ok(x.clone()),
        None => {
            let z = zeros_like(like)?;
            *slot = Some(z.clone());
            Ok(z)
        }
    }
}

/// Write the new values and realize them together (one submission per device).
fn commit(writes: Vec<(Tensor, Tensor)>) -> Result<()> {
    for (dst, v) in &writes {
        dst.assign(v)?;
    }
    let dsts: Vec<&Tensor> = writes.iter().map(|(d, _)| d).collect();
    realize(&dsts)
}

/// Hyper-parameters of SGD.
#[derive(Clone, Copy, Debug)]
pub struct Sgd {
    pub lr: f64,
    pub momentum: f64,
    pub dampening: f64,
    pub weight_decay: f64,
    pub nesterov: bool,
    pub maximize: bool,
}

/// One SGD step for `params` with their momentum buffers (None until the first step that has a gradient).
pub fn sgd_step(h: &Sgd, params: &[Tensor], bufs: &mut [Option<Tensor>]) -> Result<()> {
    no_grad(|| {
        let mut writes = Vec::new();
        for (p, buf) in params.iter().zip(bufs.iter_mut()) {
            let Some(mut d) = effective_grad(p, h.maximize, h.weight_decay)? else { continue };
            if h.momentum != 0.0 {
                let b = match buf {
                    None => d.copy()?,
                    Some(b) => add_scaled(&scale(b, h.momentum)?, &d, 1.0 - h.dampening)?,
                };
                match buf {
                    Some(old) => writes.push((old.clone(), b.clone())),
                    None => *buf = Some(b.clone()),
                }
                d = if h.nesterov { add_scaled(&d, &b, h.momentum)? } else { b };
            }
            writes.push((p.clone(), add_scaled(p, &d, -h.lr)?));
        }
        commit(writes)
    })
}

/// Hyper-parameters of Adam and AdamW (`decoupled`: weight decay scales the parameter, as AdamW).
#[derive(Clone, Copy, Debug)]
pub struct Adam {
    pub lr: f64,
    pub beta1: f64,
    pub beta2: f64,
    pub eps: f64,
    pub weight_decay: f64,
    pub amsgrad: bool,
    pub maximize: bool,
    pub decoupled: bool,
}

/// Per-parameter Adam state.
#[derive(Clone, Debug, Default)]
pub struct AdamState {
    pub step: u64,
    pub exp_avg: Option<Tensor>,
    pub exp_avg_sq: Option<Tensor>,
    pub max_exp_avg_sq: Option<Tensor>,
}

/// One Adam/AdamW step, in torch's single-tensor order of operations.
pub fn adam_step(h: &Adam, params: &[Tensor], states: &mut [AdamState]) -> Result<()> {
    no_grad(|| {
        let mut writes = Vec::new();
        for (p, st) in params.iter().zip(states.iter_mut()) {
            let l2 = if h.decoupled { 0.0 } else { h.weight_decay };
            let Some(g) = effective_grad(p, h.maximize, l2)? else { continue };
            let mut p_new = p.clone();
            if h.decoupled && h.weight_decay != 0.0 {
                p_new = scale(p, 1.0 - h.lr * h.weight_decay)?;
            }
            st.step += 1;
            let m = state(&mut st.exp_avg, p)?;
            let v = state(&mut st.exp_avg_sq, p)?;
            // m.lerp_(g, 1 − β1): m + w·(g − m) for w < 0.5, as torch computes it.
            let m_new = add_scaled(&m, &sub(&t(&g), &t(&m))?, 1.0 - h.beta1)?;
            let v_new = add(&scale(&v, h.beta2)?, &scale(&mul(&g, &g)?, 1.0 - h.beta2)?)?;
            let step = st.step as f64;
            let bc1 = 1.0 - h.beta1.powf(step);
            let bc2_sqrt = (1.0 - h.beta2.powf(step)).sqrt();
            let step_size = h.lr / bc1;
            let second = if h.amsgrad {
                let vmax = state(&mut st.max_exp_avg_sq, p)?;
                let vmax_new = binary(&t(&vmax), &t(&v_new), BinaryOp::Maximum)?;
                writes.push((vmax, vmax_new.clone()));
                vmax_new
            } else {
                v_new.clone()
            };
            let denom =
                binary(&binary(&t(&second.sqrt()?), &s(bc2_sqrt), BinaryOp::Div)?.into(), &s(h.eps), BinaryOp::Add)?;
            let upd = binary(&t(&m_new), &t(&denom), BinaryOp::Div)?;
            writes.push((m, m_new));
            writes.push((v, v_new));
            writes.push((p.clone(), add_scaled(&p_new, &upd, -step_size)?));
        }
        commit(writes)
    })
}

/// Hyper-parameters of RMSprop.
#[derive(Clone, Copy, Debug)]
pub struct RmsProp {
    pub lr: f64,
    pub alpha: f64,
    pub eps: f64,
    pub weight_decay: f64,
    pub momentum: f64,
    pub centered: bool,
    pub maximize: bool,
}

/// Per-parameter RMSprop state.
#[derive(Clone, Debug, Default)]
pub struct RmsPropState {
    pub square_avg: Option<Tensor>,
    pub grad_avg: Option<Tensor>,
    pub momentum_buffer: Option<Tensor>,
}

/// One RMSprop step, in torch's single-tensor order of operations.
pub fn rmsprop_step(h: &RmsProp, params: &[Tensor], states: &mut [RmsPropState]) -> Result<()> {
    no_grad(|| {
        let mut writes = Vec::new();
        for (p, st) in params.iter().zip(states.iter_mut()) {
            let Some(g) = effective_grad(p, h.maximize, h.weight_decay)? else { continue };
            let sq = state(&mut st.square_avg, p)?;
            let sq_new = add(&scale(&sq, h.alpha)?, &scale(&mul(&g, &g)?, 1.0 - h.alpha)?)?;
            let avg = if h.centered {
                let ga = state(&mut st.grad_avg, p)?;
                let ga_new = add_scaled(&ga, &sub(&t(&g), &t(&ga))?, 1.0 - h.alpha)?;
                let var = sub(&t(&sq_new), &t(&mul(&ga_new, &ga_new)?))?;
                writes.push((ga, ga_new));
                var.sqrt()?
            } else {
                sq_new.sqrt()?
            };
            let avg = binary(&t(&avg), &s(h.eps), BinaryOp::Add)?;
            let step = binary(&t(&g), &t(&avg), BinaryOp::Div)?;
            writes.push((sq, sq_new));
            if h.momentum > 0.0 {
                let buf = state(&mut st.momentum_buffer, p)?;
                let buf_new = add(&scale(&buf, h.momentum)?, &step)?;
                writes.push((p.clone(), add_scaled(p, &buf_new, -h.lr)?));
                writes.push((buf, buf_new));
            } else {
                writes.push((p.clone(), add_scaled(p, &step, -h.lr)?));
            }
        }
        commit(writes)
    })
}

/// Hyper-parameters of Adagrad.
#[derive(Clone, Copy, Debug)]
pub struct Adagrad {
    pub lr: f64,
    pub lr_decay: f64,
    pub weight_decay: f64,
    pub eps: f64,
    pub initial_accumulator_value: f64,
    pub maximize: bool,
}

/// Per-parameter Adagrad state.
#[derive(Clone, Debug, Default)]
pub struct AdagradState {
    pub step: u64,
    pub sum: Option<Tensor>,
}

/// One Adagrad step, in torch's single-tensor order of operations.
pub fn adagrad_step(h: &Adagrad, params: &[Tensor], states: &mut [AdagradState]) -> Result<()> {
    no_grad(|| {
        let mut writes = Vec::new();
        for (p, st) in params.iter().zip(states.iter_mut()) {
            let Some(g) = effective_grad(p, h.maximize, h.weight_decay)? else { continue };
            st.step += 1;
            let clr = h.lr / (1.0 + (st.step - 1) as f64 * h.lr_decay);
            let sum = match &st.sum {
                Some(x) => x.clone(),
                None => {
                    let init =
                        Tensor::full(p.shape(), Scalar::Float(h.initial_accumulator_value), p.dtype(), p.device())?;
                    st.sum = Some(init.clone());
                    init
                }
            };
            let sum_new = add(&sum, &mul(&g, &g)?)?;
            let std = binary(&t(&sum_new.sqrt()?), &s(h.eps), BinaryOp::Add)?;
            writes.push((p.clone(), add_scaled(p, &binary(&t(&g), &t(&std), BinaryOp::Div)?, -clr)?));
            writes.push((sum, sum_new));
        }
        commit(writes)
    })
}
