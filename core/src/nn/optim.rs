//! Layer 7: the optimizers (SGD, Adam/AdamW, RMSprop, Adagrad): each param group's rule parsed from torch's option
//! names with torch's defaults and checks (`Rule::new`), and its update in torch's order of operations, applied in
//! place to parameters and their state (`State`, torch's `optimizer.state[p]`) under no-grad. Both front ends hand
//! their options over through `Options` and keep nothing of the math. Each new value is one fused elementwise program
//! (api::fused: one dispatch for float32 parameters, the same bytes as the primitives it stands for). A step
//! realizes the parameters and state it wrote, so a training loop that never reads a value still does not grow a
//! graph across steps.

use std::ops::{Add, Div, Mul, Neg, Sub};

use crate::api::fused::{eval, Expr};
use crate::api::Tensor;
use crate::base::scalar::Scalar;
use crate::tensor::grad::no_grad;
use crate::tensor::realize::realize;
use crate::util::error::{Error, Result};

fn x(k: usize) -> Expr {
    Expr::Input(k)
}

fn c(v: f64) -> Expr {
    Expr::Const(v)
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
    if !maximize && l2 == 0.0 {
        return Ok(Some(g));
    }
    let mut e = if maximize { x(0).neg() } else { x(0) };
    if l2 != 0.0 {
        e = e.add(x(1).scale(l2));
    }
    Ok(Some(eval(&e, &[&g, p])?))
}

/// One parameter's state under torch's names (`optimizer.state[p]`): the step count and the state tensors
/// (`momentum_buffer`, `exp_avg`, `exp_avg_sq`, `max_exp_avg_sq`, `square_avg`, `grad_avg`, `sum`).
#[derive(Clone, Debug, Default)]
pub struct State {
    pub step: u64,
    pub tensors: Vec<(String, Tensor)>,
}

impl State {
    pub fn get(&self, name: &str) -> Option<&Tensor> {
        self.tensors.iter().find(|(n, _)| n == name).map(|(_, t)| t)
    }

    /// The named state tensor, made by `init` on first use.
    fn slot(&mut self, name: &str, init: impl FnOnce() -> Result<Tensor>) -> Result<Tensor> {
        if let Some(t) = self.get(name) {
            return Ok(t.clone());
        }
        let t = init()?;
        self.tensors.push((name.to_string(), t.clone()));
        Ok(t)
    }

    /// The named state tensor, zeros like `p` on first use.
    fn zeros(&mut self, name: &str, p: &Tensor) -> Result<Tensor> {
        self.slot(name, || zeros_like(p))
    }
}

/// Write the new values and realize them together (one submission per device).
fn commit(writes: Writes) -> Result<()> {
    for (dst, v) in &writes {
        dst.assign(v)?;
    }
    let dsts: Vec<&Tensor> = writes.iter().map(|(d, _)| d).collect();
    realize(&dsts)
}

/// Write (destination, new value) pairs.
type Writes = Vec<(Tensor, Tensor)>;

/// The loop every rule shares: under no_grad, each parameter that has a gradient (negated with `maximize`, plus
/// `l2`·p) goes to `update` with its state; `update` pushes the new values, which are written together.
fn each_param(
    params: &[Tensor],
    states: &mut [State],
    (maximize, l2): (bool, f64),
    mut update: impl FnMut(&Tensor, Tensor, &mut State, &mut Writes) -> Result<()>,
) -> Result<()> {
    no_grad(|| {
        let mut writes = Vec::new();
        for (p, st) in params.iter().zip(states.iter_mut()) {
            if let Some(g) = effective_grad(p, maximize, l2)? {
                update(p, g, st, &mut writes)?;
            }
        }
        commit(writes)
    })
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

/// One SGD step for `params`; the momentum buffer is made on the first step that has a gradient.
pub fn sgd_step(h: &Sgd, params: &[Tensor], states: &mut [State]) -> Result<()> {
    each_param(params, states, (h.maximize, h.weight_decay), |p, d, st, writes| {
        if h.momentum == 0.0 {
            writes.push((p.clone(), eval(&x(0).add(x(1).scale(-h.lr)), &[p, &d])?));
            return Ok(());
        }
        // torch: b = momentum·b + (1 − dampening)·d (d itself on the first step), then d = d + momentum·b
        // (nesterov) or b.
        let b = match st.get("momentum_buffer") {
            None => st.slot("momentum_buffer", || d.copy())?,
            Some(old) => {
                let b = eval(&x(0).scale(h.momentum).add(x(1).scale(1.0 - h.dampening)), &[old, &d])?;
                writes.push((old.clone(), b.clone()));
                b
            }
        };
        let dir = if h.nesterov { x(1).add(x(2).scale(h.momentum)) } else { x(2) };
        writes.push((p.clone(), eval(&x(0).add(dir.scale(-h.lr)), &[p, &d, &b])?));
        Ok(())
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

/// One Adam/AdamW step, in torch's single-tensor order of operations.
pub fn adam_step(h: &Adam, params: &[Tensor], states: &mut [State]) -> Result<()> {
    each_param(params, states, (h.maximize, if h.decoupled { 0.0 } else { h.weight_decay }), |p, g, st, writes| {
        // AdamW's decay scales the parameter first: p·(1 − lr·wd).
        let p_dec = if h.decoupled && h.weight_decay != 0.0 { x(0).scale(1.0 - h.lr * h.weight_decay) } else { x(0) };
        st.step += 1;
        let m = st.zeros("exp_avg", p)?;
        let v = st.zeros("exp_avg_sq", p)?;
        // m.lerp_(g, 1 − β1): m + w·(g − m) for w < 0.5, as torch computes it; v·β2 + (1 − β2)·g².
        let m_new = eval(&x(0).add(x(1).sub(x(0)).scale(1.0 - h.beta1)), &[&m, &g])?;
        let v_new = eval(&x(0).scale(h.beta2).add(x(1).mul(x(1)).scale(1.0 - h.beta2)), &[&v, &g])?;
        let step = st.step as f64;
        let bc1 = 1.0 - h.beta1.powf(step);
        let bc2_sqrt = (1.0 - h.beta2.powf(step)).sqrt();
        let step_size = h.lr / bc1;
        let second = if h.amsgrad {
            let vmax = st.zeros("max_exp_avg_sq", p)?;
            let vmax_new = eval(&x(0).maximum(x(1)), &[&vmax, &v_new])?;
            writes.push((vmax, vmax_new.clone()));
            vmax_new
        } else {
            v_new.clone()
        };
        // p − step_size · m / (√second / √bc2 + eps).
        let denom = x(2).sqrt().div(c(bc2_sqrt)).add(c(h.eps));
        let p_new = eval(&p_dec.add(x(1).div(denom).scale(-step_size)), &[p, &m_new, &second])?;
        writes.push((m, m_new));
        writes.push((v, v_new));
        writes.push((p.clone(), p_new));
        Ok(())
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

/// One RMSprop step, in torch's single-tensor order of operations.
pub fn rmsprop_step(h: &RmsProp, params: &[Tensor], states: &mut [State]) -> Result<()> {
    each_param(params, states, (h.maximize, h.weight_decay), |p, g, st, writes| {
        st.step += 1;
        let sq = st.zeros("square_avg", p)?;
        let sq_new = eval(&x(0).scale(h.alpha).add(x(1).mul(x(1)).scale(1.0 - h.alpha)), &[&sq, &g])?;
        // The divisor √(E[g²] − E[g]²) + eps (centered) or √E[g²] + eps, as input 2 of the programs below.
        let (avg_in, avg) = if h.centered {
            let ga = st.zeros("grad_avg", p)?;
            let ga_new = eval(&x(0).add(x(1).sub(x(0)).scale(1.0 - h.alpha)), &[&ga, &g])?;
            let avg = eval(&x(0).sub(x(1).mul(x(1))).sqrt().add(c(h.eps)), &[&sq_new, &ga_new])?;
            writes.push((ga, ga_new));
            (avg, x(2))
        } else {
            (sq_new.clone(), x(2).sqrt().add(c(h.eps)))
        };
        writes.push((sq, sq_new));
        if h.momentum > 0.0 {
            let buf = st.zeros("momentum_buffer", p)?;
            let buf_new = eval(&x(0).scale(h.momentum).add(x(1).div(avg)), &[&buf, &g, &avg_in])?;
            writes.push((p.clone(), eval(&x(0).add(x(1).scale(-h.lr)), &[p, &buf_new])?));
            writes.push((buf, buf_new));
        } else {
            writes.push((p.clone(), eval(&x(0).add(x(1).div(avg).scale(-h.lr)), &[p, &g, &avg_in])?));
        }
        Ok(())
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

/// One Adagrad step, in torch's single-tensor order of operations.
pub fn adagrad_step(h: &Adagrad, params: &[Tensor], states: &mut [State]) -> Result<()> {
    each_param(params, states, (h.maximize, h.weight_decay), |p, g, st, writes| {
        st.step += 1;
        let clr = h.lr / (1.0 + (st.step - 1) as f64 * h.lr_decay);
        let init = Scalar::Float(h.initial_accumulator_value);
        let sum = st.slot("sum", || Tensor::full(p.shape(), init, p.dtype(), p.device()))?;
        let sum_new = eval(&x(0).add(x(1).mul(x(1))), &[&sum, &g])?;
        let p_new = eval(&x(0).add(x(1).div(x(2).sqrt().add(c(h.eps))).scale(-clr)), &[p, &g, &sum_new])?;
        writes.push((p.clone(), p_new));
        writes.push((sum, sum_new));
        Ok(())
    })
}
