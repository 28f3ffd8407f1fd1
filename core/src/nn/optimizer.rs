//! Layer 7: a param group's optimizer rule read from torch's option names (`lr`, `betas`, `weight_decay`, ...), with
//! torch's defaults and torch's range checks and messages, and one step of a group over its parameters' state. The
//! Python and JavaScript optimizers hand their options over through `Options` and do nothing else of the math.

use crate::api::Tensor;
use crate::nn::optim::{adagrad_step, adam_step, rmsprop_step, sgd_step, Adagrad, Adam, RmsProp, Sgd, State};
use crate::util::error::{Error, Result};

/// A param group's options by torch's names, as a front end holds them (a Python dict, a JavaScript object).
/// Absent options are `None` and take torch's default.
pub trait Options {
    fn number(&self, key: &str) -> Result<Option<f64>>;
    fn flag(&self, key: &str) -> Result<Option<bool>>;
    /// A pair of numbers (`betas`).
    fn pair(&self, key: &str) -> Result<Option<(f64, f64)>>;
    /// A list of numbers (`milestones`).
    fn numbers(&self, key: &str) -> Result<Option<Vec<f64>>>;
    /// A string (`anneal_strategy`).
    fn text(&self, key: &str) -> Result<Option<String>>;
}

/// The optimizers vkml has, under torch's class names.
pub const KINDS: [&str; 5] = ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"];

/// One param group's update rule and hyper-parameters.
#[derive(Clone, Copy, Debug)]
pub enum Rule {
    Sgd(Sgd),
    Adam(Adam),
    RmsProp(RmsProp),
    Adagrad(Adagrad),
}

fn num(o: &dyn Options, key: &str, default: f64) -> Result<f64> {
    Ok(o.number(key)?.unwrap_or(default))
}

fn flag(o: &dyn Options, key: &str) -> Result<bool> {
    Ok(o.flag(key)?.unwrap_or(false))
}

/// torch's "Invalid <name> value: <v>" for the first option outside its range.
fn require(checks: &[(&str, f64, bool)]) -> Result<()> {
    match checks.iter().find(|(_, _, ok)| !ok) {
        Some((name, v, _)) if *name == "learning rate" || name.starts_with("beta") => {
            Err(Error::Value(format!("Invalid {name}: {v}")))
        }
        Some((name, v, _)) => Err(Error::Value(format!("Invalid {name} value: {v}"))),
        None => Ok(()),
    }
}

impl Rule {
    /// The rule of optimizer `kind` (one of `KINDS`) for a group with `options`; AdamW is Adam with decoupled
    /// weight decay (default 1e-2), and Adam's `decoupled_weight_decay` makes it AdamW.
    pub fn new(kind: &str, o: &dyn Options) -> Result<Rule> {
        let lr = |default| num(o, "lr", default);
        let wd = num(o, "weight_decay", 0.0)?;
        let rule = match kind {
            "SGD" => {
                let h = Sgd {
                    lr: lr(1e-3)?,
                    momentum: num(o, "momentum", 0.0)?,
                    dampening: num(o, "dampening", 0.0)?,
                    weight_decay: wd,
                    nesterov: flag(o, "nesterov")?,
                    maximize: flag(o, "maximize")?,
                };
                require(&[
                    ("learning rate", h.lr, h.lr >= 0.0),
                    ("momentum", h.momentum, h.momentum >= 0.0),
                    ("weight_decay", wd, wd >= 0.0),
                ])?;
                if h.nesterov && (h.momentum <= 0.0 || h.dampening != 0.0) {
                    return Err(Error::Value("Nesterov momentum requires a momentum and zero dampening".into()));
                }
                Rule::Sgd(h)
            }
            "Adam" | "AdamW" => {
                let decoupled = kind == "AdamW" || flag(o, "decoupled_weight_decay")?;
                let (beta1, beta2) = o.pair("betas")?.unwrap_or((0.9, 0.999));
                let h = Adam {
                    lr: lr(1e-3)?,
                    beta1,
                    beta2,
                    eps: num(o, "eps", 1e-8)?,
                    weight_decay: num(o, "weight_decay", if kind == "AdamW" { 1e-2 } else { 0.0 })?,
                    amsgrad: flag(o, "amsgrad")?,
                    maximize: flag(o, "maximize")?,
                    decoupled,
                };
                require(&[
                    ("learning rate", h.lr, h.lr >= 0.0),
                    ("epsilon", h.eps, h.eps >= 0.0),
                    ("beta parameter at index 0", beta1, (0.0..1.0).contains(&beta1)),
                    ("beta parameter at index 1", beta2, (0.0..1.0).contains(&beta2)),
                    ("weight_decay", h.weight_decay, h.weight_decay >= 0.0),
                ])?;
                Rule::Adam(h)
            }
            "RMSprop" => {
                let h = RmsProp {
                    lr: lr(1e-2)?,
                    alpha: num(o, "alpha", 0.99)?,
                    eps: num(o, "eps", 1e-8)?,
                    weight_decay: wd,
                    momentum: num(o, "momentum", 0.0)?,
                    centered: flag(o, "centered")?,
                    maximize: flag(o, "maximize")?,
                };
                require(&[
                    ("learning rate", h.lr, h.lr >= 0.0),
                    ("epsilon", h.eps, h.eps >= 0.0),
                    ("momentum", h.momentum, h.momentum >= 0.0),
                    ("weight_decay", wd, wd >= 0.0),
                    ("alpha", h.alpha, h.alpha >= 0.0),
                ])?;
                Rule::RmsProp(h)
            }
            "Adagrad" => {
                let h = Adagrad {
                    lr: lr(1e-2)?,
                    lr_decay: num(o, "lr_decay", 0.0)?,
                    weight_decay: wd,
                    eps: num(o, "eps", 1e-10)?,
                    initial_accumulator_value: num(o, "initial_accumulator_value", 0.0)?,
                    maximize: flag(o, "maximize")?,
                };
                require(&[
                    ("learning rate", h.lr, h.lr >= 0.0),
                    ("lr_decay", h.lr_decay, h.lr_decay >= 0.0),
                    ("weight_decay", wd, wd >= 0.0),
                    ("initial_accumulator_value", h.initial_accumulator_value, h.initial_accumulator_value >= 0.0),
                    ("epsilon", h.eps, h.eps >= 0.0),
                ])?;
                Rule::Adagrad(h)
            }
            other => {
                return Err(Error::Value(format!("unknown optimizer {other:?}; vkml has {}", KINDS.join(", "))));
            }
        };
        Ok(rule)
    }

    pub fn lr(&self) -> f64 {
        match self {
            Rule::Sgd(h) => h.lr,
            Rule::Adam(h) => h.lr,
            Rule::RmsProp(h) => h.lr,
            Rule::Adagrad(h) => h.lr,
        }
    }

    /// A scheduler's new rate.
    pub fn set_lr(&mut self, lr: f64) {
        match self {
            Rule::Sgd(h) => h.lr = lr,
            Rule::Adam(h) => h.lr = lr,
            Rule::RmsProp(h) => h.lr = lr,
            Rule::Adagrad(h) => h.lr = lr,
        }
    }

    /// The momentum a schedule cycles: SGD's and RMSprop's `momentum`, Adam's first beta; None for Adagrad.
    pub fn momentum(&self) -> Option<f64> {
        match self {
            Rule::Sgd(h) => Some(h.momentum),
            Rule::Adam(h) => Some(h.beta1),
            Rule::RmsProp(h) => Some(h.momentum),
            Rule::Adagrad(_) => None,
        }
    }

    pub fn set_momentum(&mut self, m: f64) -> Result<()> {
        match self {
            Rule::Sgd(h) => h.momentum = m,
            Rule::Adam(h) => h.beta1 = m,
            Rule::RmsProp(h) => h.momentum = m,
            Rule::Adagrad(_) => {
                return Err(Error::Value(
                    "optimizer must support momentum or beta1 with `cycle_momentum` option enabled".into(),
                ))
            }
        }
        Ok(())
    }

    /// One step of the group: each parameter with a gradient is updated with its state (`states[i]` for
    /// `params[i]`), and the new values are realized.
    pub fn step(&self, params: &[Tensor], states: &mut [State]) -> Result<()> {
        if states.len() != params.len() {
            return Err(Error::Value(format!("{} parameters and {} states", params.len(), states.len())));
        }
        match self {
            Rule::Sgd(h) => sgd_step(h, params, states),
            Rule::Adam(h) => adam_step(h, params, states),
            Rule::RmsProp(h) => rmsprop_step(h, params, states),
            Rule::Adagrad(h) => adagrad_step(h, params, states),
        }
    }
}
