// vkml.optim for JavaScript: the Rust optimizers (their update rules and state) behind torch's constructor shape.

export function makeOptim(wasm, { handle }) {
  const wrap = (name, Impl, defaults = {}) => {
    const cls = class {
      constructor(params, options = {}) {
        const list = [...params];
        this.param_list = list;
        this._impl = new Impl(list.map(handle), { ...defaults, ...options });
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
    };
    Object.defineProperty(cls, "name", { value: name });
    return cls;
  };
  return {
    SGD: wrap("SGD", wasm.SGD),
    Adam: wrap("Adam", wasm.Adam),
    AdamW: wrap("AdamW", wasm.Adam, { decoupled: true }),
    RMSprop: wrap("RMSprop", wasm.RMSprop),
    Adagrad: wrap("Adagrad", wasm.Adagrad),
  };
}
