// vkml.optim.lr_scheduler for JavaScript: torch's schedulers over the Rust schedules (vkml_core::nn::schedule);
// each keeps the step count and sets its optimizer's `lr` (and OneCycleLR's momentum) on every step().

export function makeLrScheduler(wasm) {
  class LRScheduler {
    /** `rate(epoch)` gives [lr, momentum or undefined] at a step; the constructor takes step 0, as torch's does. */
    constructor(optimizer, rate) {
      this.optimizer = optimizer;
      this.base_lrs = [optimizer.lr];
      this.last_epoch = -1;
      this._rate = rate;
      this.step();
    }
    step() {
      this.last_epoch += 1;
      const [lr, momentum] = this._rate(this.last_epoch);
      this.optimizer.lr = lr;
      if (momentum !== undefined) this.optimizer.momentum = momentum;
    }
    get_last_lr() {
      return [this.optimizer.lr];
    }
  }
  const closedForm = (kind) =>
    class extends LRScheduler {
      constructor(optimizer, options = {}) {
        const schedule = new wasm.Schedule(kind, options);
        const base = optimizer.lr;
        super(optimizer, (epoch) => [schedule.lr(base, epoch)]);
      }
    };
  class LambdaLR extends LRScheduler {
    constructor(optimizer, { lr_lambda }) {
      if (typeof lr_lambda !== "function") throw new TypeError("LambdaLR: lr_lambda must be a function");
      const base = optimizer.lr;
      super(optimizer, (epoch) => [base * lr_lambda(epoch)]);
    }
  }
  class OneCycleLR extends LRScheduler {
    constructor(optimizer, options = {}) {
      const { max_lr, base_momentum = 0.85, max_momentum = 0.95 } = options;
      if (typeof max_lr !== "number") throw new TypeError("OneCycleLR: max_lr must be a number");
      const schedule = new wasm.Schedule("OneCycleLR", options);
      const cycle = schedule.cycle_momentum;
      super(optimizer, (step) => {
        const [lr, momentum] = schedule.cycle_at(max_lr, base_momentum, max_momentum, step);
        return cycle ? [lr, momentum] : [lr];
      });
    }
  }
  const named = (name, cls) => Object.defineProperty(cls, "name", { value: name });
  return {
    LRScheduler,
    StepLR: named("StepLR", closedForm("StepLR")),
    MultiStepLR: named("MultiStepLR", closedForm("MultiStepLR")),
    ExponentialLR: named("ExponentialLR", closedForm("ExponentialLR")),
    CosineAnnealingLR: named("CosineAnnealingLR", closedForm("CosineAnnealingLR")),
    LambdaLR,
    OneCycleLR,
  };
}
