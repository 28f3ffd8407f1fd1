// vkml.optim for JavaScript: the Rust optimizers (their update rules and state) behind torch's constructor shape,
// and the learning-rate schedulers (lr_scheduler.js).
import { makeLrScheduler } from "./lr_scheduler.js";

export function makeOptim(wasm, { handle }) {
  const wrap = (name) => {
    const cls = class {
      constructor(params, options = {}) {
        const list = [...params];
        this.param_list = list;
        this._impl = new wasm.Optimizer(name, list.map(handle), options);
      }
      /** Update every parameter from its gradient; the values are computed on the device and realized. */
      step() {
        this._impl.step();
      }
      zero_grad() {
        this._impl.zero_grad();
      }
      get lr() {
        return this._impl.lr;
      }
      set lr(v) {
        this._impl.lr = v;
      }
      /** The momentum a schedule cycles: SGD's and RMSprop's momentum, Adam's first beta. */
      get momentum() {
        return this._impl.momentum;
      }
      set momentum(v) {
        this._impl.momentum = v;
      }
    };
    Object.defineProperty(cls, "name", { value: name });
    return cls;
  };
  return {
    SGD: wrap("SGD"),
    Adam: wrap("Adam"),
    AdamW: wrap("AdamW"),
    RMSprop: wrap("RMSprop"),
    Adagrad: wrap("Adagrad"),
    lr_scheduler: makeLrScheduler(wasm),
  };
}
