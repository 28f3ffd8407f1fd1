// vkml.nn for JavaScript: Module (subclass it), Parameter, layers, losses, init and functional. The math is the
// Rust engine's; this file only keeps parameters in order, moves them, and maps torch's names.

import { bindArgs, optionsPredicate, requireArgs } from "./described.js";

export function makeNn(wasm, { Tensor, handle, no_grad, load_safetensors, described }) {
  const PARAMS = new WeakSet();
  /** vkml's own module classes (not their subclasses): Sequential releases the intermediates they pass on. */
  const BUILTIN = new Set();

  /** Mark a tensor as a parameter (requires_grad on); a Module finds it among its properties. */
  function Parameter(t, requires_grad = true) {
    if (!(t instanceof Tensor)) throw new TypeError("Parameter takes a vkml Tensor");
    t.requires_grad = requires_grad;
    PARAMS.add(t);
    return t;
  }

  /** int32 class indices widened to torch's int64: JavaScript has no int64 arrays in everyday use. */
  const classIndices = (t) => (t instanceof Tensor && t.dtype === "int32" ? t.long() : t);

  const F = {
    ...described,
    relu: (x) => x.relu(),
    sigmoid: (x) => x.sigmoid(),
    tanh: (x) => x.tanh(),
    silu: (x) => wasm.silu(x),
    mish: (x) => wasm.mish(x),
    selu: (x) => wasm.selu(x),
    logsigmoid: (x) => wasm.logsigmoid(x),
    softsign: (x) => wasm.softsign(x),
    hardsigmoid: (x) => wasm.hardsigmoid(x),
    hardswish: (x) => wasm.hardswish(x),
    relu6: (x) => wasm.relu6(x),
    /** With num_classes: a Tensor at once (device values are checked at the next read); without it (-1): a
     * Promise, as the class count is read from the values first. */
    one_hot: (x, num_classes = -1) =>
      num_classes === -1 ? wasm._one_hot_infer(handle(x)) : wasm._one_hot(handle(x), num_classes),
    softmax: (x, dim) => x.softmax(dim),
    log_softmax: (x, dim) => x.log_softmax(dim),
    cross_entropy: (input, target, ...rest) => described.cross_entropy(input, classIndices(target), ...rest),
    nll_loss: (input, target, ...rest) => described.nll_loss(input, classIndices(target), ...rest),
    /** A device-computed index is checked at the next read (an out-of-range one is clamped meanwhile). */
    embedding: (input, weight, options = {}) => wasm._embedding(handle(input), handle(weight), options),
  };

  // torch.nn.init: bounds from fan-in/fan-out, filled by the engine's Philox generator.
  const fans = (t) => {
    const s = t.shape;
    if (s.length < 2) throw new Error("fan in and fan out need a tensor of at least 2 dims");
    const field = s.slice(2).reduce((a, b) => a * b, 1);
    return [s[1] * field, s[0] * field];
  };
  const LINEAR = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "sigmoid"];
  /** torch's calculate_gain(nonlinearity, param): param is leaky_relu's negative slope (0.01 when undefined). */
  const calculate_gain = (nonlinearity, param) => {
    if (LINEAR.includes(nonlinearity)) return 1;
    if (nonlinearity === "tanh") return 5 / 3;
    if (nonlinearity === "relu") return Math.SQRT2;
    if (nonlinearity === "leaky_relu") return Math.sqrt(2 / (1 + (param ?? 0.01) ** 2));
    if (nonlinearity === "selu") return 3 / 4;
    throw new RangeError(`Unsupported nonlinearity ${nonlinearity}`);
  };
  const fan = (t, mode) => {
    if (mode !== "fan_in" && mode !== "fan_out") {
      throw new RangeError(`Mode ${mode} not supported, please use one of fan_in, fan_out`);
    }
    return fans(t)[mode === "fan_in" ? 0 : 1];
  };
  const init = {
    calculate_gain,
    uniform_: (t, a = 0, b = 1) => (no_grad(() => t.uniform_(a, b)), t),
    normal_: (t, mean = 0, std = 1) => (no_grad(() => t.normal_(mean, std)), t),
    constant_: (t, val) => (no_grad(() => t.copy_(wasm.full([], val, { dtype: t.dtype, device: t.device }))), t),
    zeros_: (t) => init.constant_(t, 0),
    ones_: (t) => init.constant_(t, 1),
    /** kaiming_uniform_(t, {a, mode, nonlinearity}) with torch's defaults (a = 0, fan_in, leaky_relu). */
    kaiming_uniform_: (t, { a = 0, mode = "fan_in", nonlinearity = "leaky_relu" } = {}) => {
      const bound = Math.sqrt(3) * (calculate_gain(nonlinearity, a) / Math.sqrt(fan(t, mode)));
      return init.uniform_(t, -bound, bound);
    },
    kaiming_normal_: (t, { a = 0, mode = "fan_in", nonlinearity = "leaky_relu" } = {}) =>
      init.normal_(t, 0, calculate_gain(nonlinearity, a) / Math.sqrt(fan(t, mode))),
    xavier_uniform_: (t, gain = 1) => {
      const [fanIn, fanOut] = fans(t);
      const bound = gain * Math.sqrt(6 / (fanIn + fanOut));
      return init.uniform_(t, -bound, bound);
    },
    xavier_normal_: (t, gain = 1) => {
      const [fanIn, fanOut] = fans(t);
      return init.normal_(t, 0, gain * Math.sqrt(2 / (fanIn + fanOut)));
    },
  };

  const isParam = (m, k, v) => PARAMS.has(v);
  const isBuffer = (m, k) => m._buffers.has(k);

  class Module {
    constructor() {
      this.training = true;
      Object.defineProperty(this, "_buffers", { value: new Set(), enumerable: false });
    }

    /** Run the module: `model.forward(x)` (JavaScript objects cannot be called like Python's). */
    forward() {
      throw new Error(`${this.constructor.name} has no forward()`);
    }

    register_buffer(name, t) {
      this._buffers.add(name);
      this[name] = t;
    }

    *named_children() {
      for (const [k, v] of Object.entries(this)) if (v instanceof Module) yield [k, v];
    }
    children() {
      return [...this.named_children()].map(([, m]) => m);
    }
    *named_modules(prefix = "") {
      yield [prefix, this];
      for (const [k, m] of this.named_children()) yield* m.named_modules(prefix ? `${prefix}.${k}` : k);
    }
    modules() {
      return [...this.named_modules()].map(([, m]) => m);
    }
    /** [name, tensor] for every parameter, in torch's order: each module's own (as registered), then its
     * children's ("fc.bias", "0.weight"). */
    named_parameters(prefix = "") {
      return this._named(prefix, isParam);
    }
    parameters() {
      return this.named_parameters().map(([, p]) => p);
    }
    named_buffers(prefix = "") {
      return this._named(prefix, isBuffer);
    }
    buffers() {
      return this.named_buffers().map(([, b]) => b);
    }
    /** [name, tensor] module by module (each module's own before its children's), in each module the tensors
     * each `keep` picks, in turn. */
    _named(prefix, ...keeps) {
      const out = [];
      for (const [path, m] of this.named_modules(prefix)) {
        for (const keep of keeps) {
          for (const [k, v] of Object.entries(m)) {
            if (v instanceof Tensor && keep(m, k, v)) out.push([path ? `${path}.${k}` : k, v]);
          }
        }
      }
      return out;
    }
    train(mode = true) {
      for (const m of this.modules()) m.training = mode;
      return this;
    }
    eval() {
      return this.train(false);
    }
    zero_grad() {
      for (const p of this.parameters()) p.zero_grad();
    }
    apply(fn) {
      for (const m of this.children()) m.apply(fn);
      fn(this);
      return this;
    }
    /** Move parameters and buffers to `device` ("cpu", "webgpu"); returns this module, as in torch. */
    to(device) {
      for (const m of this.modules()) {
        for (const [k, v] of Object.entries(m)) {
          if (!(v instanceof Tensor)) continue;
          if (PARAMS.has(v)) m[k] = Parameter(v.detach().to(device), v.requires_grad);
          else if (m._buffers.has(k)) m[k] = v.to(device);
        }
      }
      return this;
    }
    /** An object from torch's names to tensors: each module's parameters, then its buffers, then its children's. */
    state_dict() {
      return Object.fromEntries(this._named("", isParam, isBuffer).map(([k, v]) => [k, v.detach()]));
    }
    /**
     * Copy values in from an object of tensors (e.g. `load_safetensors(bytes)` of a torch state_dict) or from
     * safetensors bytes. Returns {missing_keys, unexpected_keys}; with strict (the default) either is an error.
     */
    load_state_dict(sd, { strict = true } = {}) {
      if (sd instanceof Uint8Array || sd instanceof ArrayBuffer) sd = load_safetensors(new Uint8Array(sd));
      const own = Object.fromEntries([...this.named_parameters(), ...this.named_buffers()]);
      const missing = Object.keys(own).filter((k) => !(k in sd));
      const unexpected = Object.keys(sd).filter((k) => !(k in own));
      if (strict && (missing.length || unexpected.length)) {
        throw new Error(`Error(s) in loading state_dict for ${this.constructor.name}: missing keys ` +
          `[${missing.join(", ")}], unexpected keys [${unexpected.join(", ")}]`);
      }
      // Every shape is checked before anything is written, so a failed call leaves the module as it was.
      const loads = Object.entries(own).filter(([k]) => k in sd);
      for (const [k, dst] of loads) {
        if (String(sd[k].shape) !== String(dst.shape)) {
          throw new Error(`size mismatch for ${k}: copying a param with shape [${sd[k].shape}] from checkpoint, ` +
            `the shape in current model is [${dst.shape}]`);
        }
      }
      no_grad(() => {
        for (const [k, dst] of loads) dst.copy_(sd[k].to({ device: dst.device, dtype: dst.dtype }));
      });
      return { missing_keys: missing, unexpected_keys: unexpected };
    }
  }

  class Linear extends Module {
    constructor(in_features, out_features, { bias = true, device, dtype } = {}) {
      super();
      this.in_features = in_features;
      this.out_features = out_features;
      hold(this, new wasm._Weighted([out_features, in_features], bias ? out_features : undefined), { device, dtype });
    }
    reset_parameters() {
      reset(this);
    }
    forward(x) {
      return F.linear(x, this.weight, this.bias);
    }
  }

  /** Embedding: weight (num_embeddings, embedding_dim) from N(0, 1), the padding row zero. */
  class Embedding extends Module {
    constructor(num_embeddings, embedding_dim, { padding_idx, device, dtype } = {}) {
      super();
      this.num_embeddings = num_embeddings;
      this.embedding_dim = embedding_dim;
      if (padding_idx !== undefined && padding_idx < 0) padding_idx += num_embeddings;
      this.padding_idx = padding_idx;
      hold(this, wasm._Weighted.embedding(num_embeddings, embedding_dim, padding_idx), { device, dtype });
    }
    reset_parameters() {
      reset(this);
    }
    forward(input) {
      return F.embedding(input, this.weight, { padding_idx: this.padding_idx });
    }
  }

  /** Conv1d and Conv2d: torch's parameters (weight (out, in/groups, ...kernel), bias) and initialisation. */
  const conv = (name, dims, fn) => {
    const cls = class extends Module {
      constructor(in_channels, out_channels, kernel_size, options = {}) {
        super();
        const { stride = 1, padding = 0, dilation = 1, groups = 1, bias = true, device, dtype } = options;
        const kernel = Array.isArray(kernel_size) ? kernel_size : Array(dims).fill(kernel_size);
        Object.assign(this, { in_channels, out_channels, kernel_size: kernel, stride, padding, dilation, groups });
        const weight = [out_channels, in_channels / groups, ...kernel];
        hold(this, new wasm._Weighted(weight, bias ? out_channels : undefined), { device, dtype });
      }
      reset_parameters() {
        reset(this);
      }
      forward(x) {
        const { stride, padding, dilation, groups } = this;
        return fn(x, this.weight, this.bias, { stride, padding, dilation, groups });
      }
    };
    Object.defineProperty(cls, "name", { value: name });
    return cls;
  };

  /** ConvTranspose2d: torch's weight (in, out/groups, kH, kW) and bias, initialised as torch does. */
  class ConvTranspose2d extends Module {
    constructor(in_channels, out_channels, kernel_size, options = {}) {
      super();
      const { stride = 1, padding = 0, output_padding = 0, groups = 1, dilation = 1, bias = true } = options;
      const kernel = Array.isArray(kernel_size) ? kernel_size : [kernel_size, kernel_size];
      Object.assign(this, { in_channels, out_channels, kernel_size: kernel, stride, padding, output_padding, groups });
      this.dilation = dilation;
      const weight = [in_channels, out_channels / groups, ...kernel];
      hold(this, new wasm._Weighted(weight, bias ? out_channels : undefined), options);
    }
    reset_parameters() {
      reset(this);
    }
    forward(x) {
      const { stride, padding, output_padding, groups, dilation } = this;
      return F.conv_transpose2d(x, this.weight, this.bias, { stride, padding, output_padding, groups, dilation });
    }
  }

  /** A normalisation layer's shell: the affine parameters and running statistics its layout (`_Affine`) names. */
  class Norm extends Module {
    constructor(shape, { weight, bias, running_stats = false, device, dtype }) {
      super();
      hold(this, new wasm._Affine(shape, weight, bias, running_stats), { device, dtype });
    }
    reset_parameters() {
      reset(this);
    }
  }

  /** BatchNorm1d/2d: torch's parameters and buffers (running_mean, running_var, num_batches_tracked). */
  const batchNorm = (name, dims) => {
    const cls = class extends Norm {
      constructor(num_features, options = {}) {
        const { eps = 1e-5, momentum = 0.1, affine = true, track_running_stats = true, device, dtype } = options;
        super([num_features], { weight: affine, bias: affine, running_stats: track_running_stats, device, dtype });
        Object.assign(this, { num_features, eps, momentum, affine, track_running_stats });
      }
      reset_running_stats() {
        resetRunningStats(this);
      }
      forward(x) {
        if (!dims.includes(x.ndim)) throw new Error(`expected ${dims.map((d) => `${d}D`).join(" or ")} input (got ${x.ndim}D input)`);
        const useBatch = this.training || !this.track_running_stats;
        if (this.training && this.track_running_stats) {
          this.num_batches_tracked = no_grad(() => this.num_batches_tracked.add(1));
        }
        return F.batch_norm(x, this.running_mean, this.running_var, this.weight, this.bias,
          { training: useBatch, momentum: this.momentum, eps: this.eps });
      }
    };
    Object.defineProperty(cls, "name", { value: name });
    return cls;
  };

  class LayerNorm extends Norm {
    constructor(normalized_shape, { eps = 1e-5, elementwise_affine = true, bias = true, device, dtype } = {}) {
      const shape = Array.isArray(normalized_shape) ? normalized_shape : [normalized_shape];
      super(shape, { weight: elementwise_affine, bias: elementwise_affine && bias, device, dtype });
      Object.assign(this, { normalized_shape: shape, eps });
    }
    forward(x) {
      return F.layer_norm(x, this.normalized_shape, this.weight, this.bias, { eps: this.eps });
    }
  }

  class GroupNorm extends Norm {
    constructor(num_groups, num_channels, { eps = 1e-5, affine = true, device, dtype } = {}) {
      super([num_channels], { weight: affine, bias: affine, device, dtype });
      Object.assign(this, { num_groups, num_channels, eps });
    }
    forward(x) {
      return F.group_norm(x, this.num_groups, this.weight, this.bias, { eps: this.eps });
    }
  }

  /** The parameters of a layer whose layout is the engine's (`_Weighted`, `_Rnn`, `_Mha`), in its order. */
  const held = (m) => m._layoutNames.map((n) => n.split(".").reduce((o, k) => o[k], m));

  /** Start a layout's running statistics again as torch does (BatchNorm's reset_running_stats). */
  const resetRunningStats = (m) => {
    if (m._bufferNames.length) no_grad(() => m._layout.reset_running_stats(m._bufferNames.map((n) => handle(m[n]))));
  };

  /** Start a layout's parameters (and running statistics) again as torch does. */
  const reset = (m) => {
    resetRunningStats(m);
    no_grad(() => m._layout.reset(held(m).map(handle)));
  };

  /** Hold a layout's parameters (and buffers) under its names (a dotted name inside a submodule), started as torch
   * does. */
  const hold = (m, layout, { device, dtype }) => {
    const names = [];
    for (const [name, shape] of layout.parameters()) {
      const path = name.split(".");
      const leaf = path.pop();
      path.reduce((o, k) => o[k], m)[leaf] = Parameter(wasm.zeros(shape, { device, dtype }));
      names.push(name);
    }
    const buffers = layout.buffers?.() ?? [];
    for (const [name, shape, kind] of buffers) {
      m.register_buffer(name, wasm.zeros(shape, { device, dtype: kind ?? dtype }));
    }
    Object.defineProperty(m, "_layout", { value: layout, enumerable: false });
    Object.defineProperty(m, "_layoutNames", { value: names, enumerable: false });
    Object.defineProperty(m, "_bufferNames", { value: buffers.map(([name]) => name), enumerable: false });
    reset(m);
  };

  /** RNN (tanh or relu), LSTM and GRU with torch's parameter names, shapes and initialisation; forward(input, hx)
   * gives [output, h_n], LSTM [output, [h_n, c_n]] with hx = [h_0, c_0]. */
  const recurrent = (name) => {
    const cls = class extends Module {
      constructor(input_size, hidden_size, options = {}) {
        super();
        const { num_layers = 1, nonlinearity = "tanh", bias = true, batch_first = false, dropout = 0,
          bidirectional = false, proj_size = 0, device, dtype } = options;
        let mode = name.toUpperCase();
        if (name === "RNN") {
          if (nonlinearity !== "tanh" && nonlinearity !== "relu") {
            throw new RangeError(`Unknown nonlinearity '${nonlinearity}'. Select from 'tanh' or 'relu'.`);
          }
          this.nonlinearity = nonlinearity;
          mode = `RNN_${nonlinearity.toUpperCase()}`;
        }
        Object.assign(this, { input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional, proj_size });
        const layout = new wasm._Rnn(mode, input_size, hidden_size, { num_layers, bias, bidirectional, proj_size, dropout });
        hold(this, layout, { device, dtype });
      }
      reset_parameters() {
        reset(this);
      }
      forward(input, hx) {
        const [h0, c0] = name === "LSTM" ? hx ?? [] : [hx];
        const { batch_first, dropout, training } = this;
        const [out, h, c] = this._layout.forward(held(this).map(handle), input, handle(h0), handle(c0),
          { batch_first, dropout, training });
        return [out, name === "LSTM" ? [h, c] : h];
      }
    };
    Object.defineProperty(cls, "name", { value: name });
    return cls;
  };

  /** MultiheadAttention with torch's parameters (packed or separate in_proj, bias_k/bias_v, out_proj) and
   * initialisation; forward(query, key, value, {key_padding_mask, need_weights, attn_mask, average_attn_weights,
   * is_causal}) gives [output, weights] (weights undefined without need_weights). */
  class MultiheadAttention extends Module {
    constructor(embed_dim, num_heads, options = {}) {
      super();
      const { dropout = 0, bias = true, add_bias_kv = false, add_zero_attn = false, kdim, vdim, batch_first = false,
        device, dtype } = options;
      const layout = new wasm._Mha(embed_dim, num_heads, { bias, add_bias_kv, add_zero_attn, kdim, vdim });
      Object.assign(this, { embed_dim, num_heads, dropout, batch_first, add_zero_attn });
      Object.assign(this, { kdim: kdim ?? embed_dim, vdim: vdim ?? embed_dim, head_dim: embed_dim / num_heads });
      this.out_proj = new Linear(embed_dim, embed_dim, { bias, device, dtype });
      hold(this, layout, { device, dtype });
    }
    forward(query, key, value, options = {}) {
      const { key_padding_mask, attn_mask, ...flags } = options;
      const { dropout, training, batch_first } = this;
      return this._layout.forward(held(this).map(handle), query, key, value, handle(key_padding_mask),
        handle(attn_mask), { ...flags, dropout, training, batch_first });
    }
  }

  /** TransformerEncoderLayer: self-attention and a feed-forward block, each with dropout, a residual and LayerNorm
   * (after the block, or before it with norm_first); forward(src, {src_mask, src_key_padding_mask, is_causal}). */
  class TransformerEncoderLayer extends Module {
    constructor(d_model, nhead, options = {}) {
      super();
      const { dim_feedforward = 2048, dropout = 0.1, activation = "relu", layer_norm_eps = 1e-5, batch_first = false,
        norm_first = false, bias = true, device, dtype } = options;
      const kw = { device, dtype };
      this.self_attn = new MultiheadAttention(d_model, nhead, { dropout, bias, batch_first, ...kw });
      this.linear1 = new Linear(d_model, dim_feedforward, { bias, ...kw });
      this.dropout = new Dropout(dropout);
      this.linear2 = new Linear(dim_feedforward, d_model, { bias, ...kw });
      this.norm_first = norm_first;
      this.norm1 = new LayerNorm(d_model, { eps: layer_norm_eps, bias, ...kw });
      this.norm2 = new LayerNorm(d_model, { eps: layer_norm_eps, bias, ...kw });
      this.dropout1 = new Dropout(dropout);
      this.dropout2 = new Dropout(dropout);
      const named = { relu: F.relu, gelu: F.gelu };
      this.activation = typeof activation === "function" ? activation : named[activation];
      if (!this.activation) throw new Error(`activation should be relu/gelu, not ${activation}`);
    }
    forward(src, { src_mask, src_key_padding_mask, is_causal = false } = {}) {
      const sa = (x) => this.dropout1.forward(this.self_attn.forward(x, x, x,
        { attn_mask: src_mask, key_padding_mask: src_key_padding_mask, need_weights: false, is_causal })[0]);
      const ff = (x) => this.dropout2.forward(
        this.linear2.forward(this.dropout.forward(this.activation(this.linear1.forward(x)))));
      if (this.norm_first) {
        const x = src.add(sa(this.norm1.forward(src)));
        return x.add(ff(this.norm2.forward(x)));
      }
      const x = this.norm1.forward(src.add(sa(src)));
      return this.norm2.forward(x.add(ff(x)));
    }
  }

  /** The modules that apply one function with the arguments they were made with (vkml_core::described_modules!):
   * each keeps its arguments as properties of those names, given in torch's order or as one object; a default naming
   * a required argument is that argument's value (a pool's stride); `inplace` writes the result into the input. */
  const isOptions = optionsPredicate(Tensor);
  const applied = (name, fn, required, options) => {
    const names = [...required, ...options.map(([k]) => k)];
    const cls = class extends Module {
      constructor(...args) {
        super();
        const given = bindArgs(name, names, args, isOptions);
        requireArgs(name, required, given);
        for (const k of required) this[k] = given[k];
        for (const [k, text] of options) {
          this[k] = given[k] ?? (required.includes(text) ? given[text] : text === "None" ? null : JSON.parse(text));
        }
      }
      forward(x) {
        const values = {};
        for (const k of names) if (k !== "inplace" && this[k] !== null) values[k] = this[k];
        const out = F[fn](x, values);
        if (!this.inplace) return out;
        x.copy_(out);
        return x;
      }
    };
    Object.defineProperty(cls, "name", { value: name });
    return [name, cls];
  };
  const APPLIED = Object.fromEntries(wasm._modules().map(([name, fn, required, options]) =>
    applied(name, fn, required, options)));

  /** A module from a function of the input (reshapes, dropout, upsampling). */
  const simple = (name, forward) => {
    const cls = class extends Module {
      constructor(...args) {
        super();
        Object.defineProperty(this, "_args", { value: args, enumerable: false });
      }
      forward(x) {
        return forward.call(this, x, ...this._args);
      }
    };
    Object.defineProperty(cls, "name", { value: name });
    return cls;
  };

  const Dropout = simple("Dropout", function (x, p = 0.5) {
    return F.dropout(x, { p, training: this.training });
  });

  class Sequential extends Module {
    constructor(...modules) {
      super();
      modules.forEach((m, i) => {
        if (!(m instanceof Module)) throw new TypeError(`Sequential: item ${i} is not a Module`);
        this[String(i)] = m;
      });
    }
    forward(x) {
      let cur = x;
      let producer;
      for (const m of this.children()) {
        const next = m.forward(cur);
        // An intermediate that one of vkml's own modules made and another consumed is held by nothing else (the
        // autograd graph keeps handles of its own): release its handle now rather than when the garbage collector
        // finds it, which in a training loop lets every step's activations pile up in WebAssembly memory. A user's
        // module, or a subclass, might keep what it is given or returns, so it is left to the collector.
        const own = producer && BUILTIN.has(producer.constructor) && BUILTIN.has(m.constructor);
        if (own && cur !== x && cur !== next && cur instanceof Tensor) cur.dispose();
        cur = next;
        producer = m;
      }
      return cur;
    }
  }

  /** Submodules in a list, named "0", "1", ... as torch names them. */
  class ModuleList extends Module {
    constructor(modules = []) {
      super();
      Object.defineProperty(this, "length", { get: () => this.children().length, enumerable: false });
      for (const m of modules) this.append(m);
    }
    append(m) {
      if (!(m instanceof Module)) throw new TypeError("ModuleList holds Modules only");
      this[String(this.children().length)] = m;
      return this;
    }
    at(i) {
      return this.children().at(i);
    }
    [Symbol.iterator]() {
      return this.children()[Symbol.iterator]();
    }
  }

  /** Submodules by name, in insertion order. */
  class ModuleDict extends Module {
    constructor(modules = {}) {
      super();
      for (const [k, m] of Object.entries(modules)) {
        if (!(m instanceof Module)) throw new TypeError(`ModuleDict: '${k}' is not a Module`);
        this[k] = m;
      }
    }
    keys() {
      return [...this.named_children()].map(([k]) => k);
    }
  }

  const lossModule = (name, fn) => {
    const cls = class extends Module {
      constructor(options = {}) {
        super();
        Object.defineProperty(this, "_options", { value: options, enumerable: false });
      }
      forward(input, target) {
        return fn(input, target, this._options);
      }
    };
    Object.defineProperty(cls, "name", { value: name });
    return cls;
  };

  const exported = {
    ...APPLIED,
    Module,
    Parameter,
    Sequential,
    Linear,
    Conv1d: conv("Conv1d", 1, F.conv1d),
    Conv2d: conv("Conv2d", 2, F.conv2d),
    ConvTranspose2d,
    Upsample: simple("Upsample", (x, options = {}) => F.interpolate(x, { mode: "nearest", ...options })),
    BatchNorm1d: batchNorm("BatchNorm1d", [2, 3]),
    BatchNorm2d: batchNorm("BatchNorm2d", [4]),
    LayerNorm,
    GroupNorm,
    Hardtanh: simple("Hardtanh", (x, lo, hi) => F.hardtanh(x, lo, hi)),
    Identity: simple("Identity", (x) => x),
    Softmax: simple("Softmax", (x, dim) => x.softmax(dim)),
    LogSoftmax: simple("LogSoftmax", (x, dim) => x.log_softmax(dim)),
    Flatten: simple("Flatten", (x, start = 1, end = -1) => x.flatten(start, end)),
    Dropout,
    Unflatten: simple("Unflatten", (x, dim, sizes) => {
      const d = dim < 0 ? dim + x.ndim : dim;
      return x.reshape([...x.shape.slice(0, d), ...sizes, ...x.shape.slice(d + 1)]);
    }),
    ModuleList,
    ModuleDict,
    CrossEntropyLoss: lossModule("CrossEntropyLoss", F.cross_entropy),
    NLLLoss: lossModule("NLLLoss", F.nll_loss),
    MSELoss: lossModule("MSELoss", F.mse_loss),
    L1Loss: lossModule("L1Loss", F.l1_loss),
    SmoothL1Loss: lossModule("SmoothL1Loss", F.smooth_l1_loss),
    HuberLoss: lossModule("HuberLoss", F.huber_loss),
    BCELoss: lossModule("BCELoss", F.binary_cross_entropy),
    BCEWithLogitsLoss: lossModule("BCEWithLogitsLoss", F.binary_cross_entropy_with_logits),
    KLDivLoss: lossModule("KLDivLoss", F.kl_div),
    Embedding,
    RNN: recurrent("RNN"),
    LSTM: recurrent("LSTM"),
    GRU: recurrent("GRU"),
    MultiheadAttention,
    TransformerEncoderLayer,
    functional: F,
    init,
    cross_entropy: F.cross_entropy,
  };
  for (const v of Object.values(exported)) {
    if (typeof v === "function" && v.prototype instanceof Module && v !== ModuleList && v !== ModuleDict) BUILTIN.add(v);
  }
  return exported;
}
