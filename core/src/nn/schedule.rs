//! Layer 7: torch's learning-rate schedules (StepLR, MultiStepLR, ExponentialLR, CosineAnnealingLR, OneCycleLR) as
//! closed forms of the step count, read from torch's option names with torch's checks and messages. A front end
//! keeps the count and each group's base rate and asks for the rate (and OneCycle's momentum) at a step.

use crate::nn::optimizer::Options;
use crate::util::error::{Error, Result};

/// The schedules vkml computes, under torch's class names (LambdaLR calls the front end's own function).
pub const KINDS: [&str; 5] = ["StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR", "OneCycleLR"];

/// A schedule's parameters.
#[derive(Clone, Debug)]
pub enum Schedule {
    Step { step_size: f64, gamma: f64 },
    MultiStep { milestones: Vec<f64>, gamma: f64 },
    Exponential { gamma: f64 },
    CosineAnnealing { t_max: f64, eta_min: f64 },
    OneCycle(OneCycle),
}

/// OneCycleLR: phases of (last step, rate from, rate to, momentum from, momentum to), annealed by cosine or linearly.
#[derive(Clone, Debug)]
pub struct OneCycle {
    pub total_steps: f64,
    pub cycle_momentum: bool,
    linear: bool,
    div_factor: f64,
    final_div_factor: f64,
    phases: Vec<(f64, Corner, Corner, Corner, Corner)>,
}

/// The per-group values a OneCycle phase starts and ends at.
#[derive(Clone, Copy, Debug)]
enum Corner {
    Initial,
    Max,
    Min,
    MaxMomentum,
    BaseMomentum,
}

/// A group's OneCycle values (torch keeps them in the param group under these names).
#[derive(Clone, Copy, Debug, Default)]
pub struct CycleGroup {
    pub initial_lr: f64,
    pub max_lr: f64,
    pub min_lr: f64,
    pub max_momentum: f64,
    pub base_momentum: f64,
}

impl CycleGroup {
    fn get(&self, c: Corner) -> f64 {
        match c {
            Corner::Initial => self.initial_lr,
            Corner::Max => self.max_lr,
            Corner::Min => self.min_lr,
            Corner::MaxMomentum => self.max_momentum,
            Corner::BaseMomentum => self.base_momentum,
        }
    }
}

fn required(o: &dyn Options, key: &str, kind: &str) -> Result<f64> {
    o.number(key)?.ok_or_else(|| Error::Value(format!("{kind}: missing required argument '{key}'")))
}

impl Schedule {
    /// The schedule `kind` (one of `KINDS`) with `options` by torch's names.
    pub fn new(kind: &str, o: &dyn Options) -> Result<Schedule> {
        let gamma = |default| Ok::<f64, Error>(o.number("gamma")?.unwrap_or(default));
        Ok(match kind {
            "StepLR" => Schedule::Step { step_size: required(o, "step_size", kind)?, gamma: gamma(0.1)? },
            "MultiStepLR" => {
                let mut milestones = o.numbers("milestones")?.unwrap_or_default();
                milestones.sort_by(f64::total_cmp);
                Schedule::MultiStep { milestones, gamma: gamma(0.1)? }
            }
            "ExponentialLR" => Schedule::Exponential { gamma: required(o, "gamma", kind)? },
            "CosineAnnealingLR" => Schedule::CosineAnnealing {
                t_max: required(o, "T_max", kind)?,
                eta_min: o.number("eta_min")?.unwrap_or(0.0),
            },
            "OneCycleLR" => Schedule::OneCycle(OneCycle::new(o)?),
            other => {
                return Err(Error::Value(format!("unknown schedule {other:?}; vkml has {}", KINDS.join(", "))));
            }
        })
    }

    /// The rate at step `epoch` of a group whose base rate is `base` (the closed-form schedules).
    pub fn lr(&self, base: f64, epoch: f64) -> Result<f64> {
        Ok(match self {
            Schedule::Step { step_size, gamma } => base * gamma.powf((epoch / step_size).floor()),
            Schedule::MultiStep { milestones, gamma } => {
                base * gamma.powi(milestones.iter().filter(|&&m| m <= epoch).count() as i32)
            }
            Schedule::Exponential { gamma } => base * gamma.powf(epoch),
            Schedule::CosineAnnealing { t_max, eta_min } => {
                eta_min + (base - eta_min) * (1.0 + (std::f64::consts::PI * epoch / t_max).cos()) / 2.0
            }
            Schedule::OneCycle(_) => {
                return Err(Error::Value("OneCycleLR: a group's rate comes from OneCycle::at".into()));
            }
        })
    }
}

impl OneCycle {
    fn new(o: &dyn Options) -> Result<OneCycle> {
        let total_steps = match (o.number("total_steps")?, o.number("epochs")?, o.number("steps_per_epoch")?) {
            (Some(t), _, _) => t,
            (None, Some(e), Some(s)) => e * s,
            _ => return Err(Error::Value("You must define either total_steps OR (epochs AND steps_per_epoch)".into())),
        };
        if total_steps <= 0.0 || total_steps.fract() != 0.0 {
            return Err(Error::Value(format!("Expected positive integer total_steps, but got {total_steps}")));
        }
        let pct = o.number("pct_start")?.unwrap_or(0.3);
        if !(0.0..=1.0).contains(&pct) {
            return Err(Error::Value(format!("Expected float between 0 and 1 pct_start, but got {pct}")));
        }
        let linear = match o.text("anneal_strategy")?.as_deref() {
            None | Some("cos") => false,
            Some("linear") => true,
            Some(other) => {
                return Err(Error::Value(format!(
                    "anneal_strategy must be one of 'cos' or 'linear', instead got {other}"
                )))
            }
        };
        use Corner::*;
        let up = pct * total_steps - 1.0;
        let phases = if o.flag("three_phase")?.unwrap_or(false) {
            vec![
                (up, Initial, Max, MaxMomentum, BaseMomentum),
                (2.0 * pct * total_steps - 2.0, Max, Initial, BaseMomentum, MaxMomentum),
                (total_steps - 1.0, Initial, Min, MaxMomentum, MaxMomentum),
            ]
        } else {
            vec![
                (up, Initial, Max, MaxMomentum, BaseMomentum),
                (total_steps - 1.0, Max, Min, BaseMomentum, MaxMomentum),
            ]
        };
        Ok(OneCycle {
            total_steps,
            cycle_momentum: o.flag("cycle_momentum")?.unwrap_or(true),
            linear,
            div_factor: o.number("div_factor")?.unwrap_or(25.0),
            final_div_factor: o.number("final_div_factor")?.unwrap_or(1e4),
            phases,
        })
    }

    /// A group's values from its `max_lr` and momentum bounds, as torch sets them at the start.
    pub fn group(&self, max_lr: f64, base_momentum: f64, max_momentum: f64) -> CycleGroup {
        let initial_lr = max_lr / self.div_factor;
        CycleGroup { initial_lr, max_lr, min_lr: initial_lr / self.final_div_factor, max_momentum, base_momentum }
    }

    fn anneal(&self, start: f64, end: f64, pct: f64) -> f64 {
        if self.linear {
            (end - start) * pct + start
        } else {
            end + (start - end) / 2.0 * ((std::f64::consts::PI * pct).cos() + 1.0)
        }
    }

    /// (rate, momentum) of group `g` at `step`; torch's error past the last step.
    pub fn at(&self, g: &CycleGroup, step: f64) -> Result<(f64, f64)> {
        if step > self.total_steps {
            return Err(Error::Value(format!(
                "Tried to step {step} times. The specified number of total steps is {}",
                self.total_steps
            )));
        }
        let mut start = 0.0;
        for (i, &(end, lr0, lr1, m0, m1)) in self.phases.iter().enumerate() {
            if step <= end || i == self.phases.len() - 1 {
                let pct = (step - start) / (end - start);
                return Ok((self.anneal(g.get(lr0), g.get(lr1), pct), self.anneal(g.get(m0), g.get(m1), pct)));
            }
            start = end;
        }
        Err(Error::Value("OneCycleLR: no phases".into()))
    }
}
