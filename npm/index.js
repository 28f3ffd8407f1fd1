// vkml for JavaScript: the engine (Rust, compiled to wasm) plus the thin shells that give it the Python API's
// shape. Importing this module loads and instantiates the wasm (top-level await), in Node and in a page alike.
import initWasm, * as wasm from "./pkg/vkml_web.js";
import { makeData } from "./data.js";
import { makeDescribed } from "./described.js";
import { makeNn } from "./nn.js";
import { makeOptim } from "./optim.js";

// A bundler (Vite, webpack) turns `new URL("literal", import.meta.url)` into an asset URL; esbuild leaves it, so the
// wasm file must sit at pkg/ beside the bundle (npm/README.md). Node's file module is named through a variable so
// that a bundler for the browser does not try to resolve it.
const wasmUrl = new URL("./pkg/vkml_web_bg.wasm", import.meta.url);
if (typeof process !== "undefined" && process.versions && process.versions.node) {
  const nodeFs = "node:fs/promises";
  const { readFile } = await import(/* webpackIgnore: true */ /* @vite-ignore */ nodeFs);
  await initWasm({ module_or_path: await readFile(wasmUrl) });
} else {
  await initWasm({ module_or_path: wasmUrl });
}

export const Tensor = wasm.Tensor;

// One name per binary op: a tensor or a number (or boolean) on the right, as in Python.
const BINARY = ["add", "sub", "mul", "div", "maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge",
  "logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor", "fmod", "remainder",
  "floor_divide", "atan2", "copysign", "hypot", "pow"];
for (const name of BINARY) {
  const withTensor = Tensor.prototype[`${name}_tensor`];
  const withScalar = Tensor.prototype[`${name}_scalar`];
  Tensor.prototype[name] = function (other) {
    return other instanceof Tensor ? withTensor.call(this, other) : withScalar.call(this, other);
  };
}

/** A fresh handle for arguments wasm-bindgen takes ownership of (the caller's tensor stays usable). */
export const handle = (t) => {
  if (t === undefined || t === null) return undefined;
  if (!(t instanceof Tensor)) throw new TypeError(`expected a vkml Tensor, got ${typeof t}`);
  return t._handle();
};

Tensor.prototype.backward = function (gradient, options) {
  return this._backward(handle(gradient), options);
};

/** `t.get(0, "1:3", null, "...")` is Python's `t[0, 1:3, None, ...]`: a view. */
Tensor.prototype.get = function (...items) {
  return this._index(items);
};

/** `t.set([0, ":"], value)` is Python's `t[0, :] = value`, for a tensor (broadcast) or a number. */
Tensor.prototype.set = function (items, value) {
  const list = Array.isArray(items) ? items : [items];
  return value instanceof Tensor ? this._index_put(list, undefined, handle(value)) : this._index_put(list, value);
};

// Indexing by tensors: each returns at once; an index computed on the device is checked at the next read.
Tensor.prototype.gather = function (dim, index) {
  return wasm._gather(handle(this), dim, handle(index));
};
const scatterSource = (x, index, src) =>
  src instanceof Tensor ? handle(src) : wasm.full(index.shape, src, { dtype: x.dtype, device: x.device });
Tensor.prototype.scatter = function (dim, index, src) {
  return wasm._scatter(handle(this), dim, handle(index), scatterSource(this, index, src), false);
};
Tensor.prototype.scatter_add = function (dim, index, src) {
  return wasm._scatter(handle(this), dim, handle(index), handle(src), true);
};
Tensor.prototype.index_select = function (dim, index) {
  return wasm._index_select(handle(this), dim, handle(index));
};
Tensor.prototype.take_along_dim = function (indices, dim) {
  return wasm._take_along_dim(handle(this), handle(indices), dim);
};

Tensor.prototype.toString = function () {
  return this.disposed ? "tensor(<disposed>)" : `tensor(shape=[${this.shape}], dtype=${this.dtype}, device=${this.device})`;
};

export const {
  tensor, zeros, ones, full, rand, randn, arange, linspace, eye, manual_seed, no_grad, is_grad_enabled, init_webgpu,
  best_device, devices, load_safetensors, load, randint, randperm, normal, empty, set_eager, is_eager, stats,
  memory_stats, memory_allocated, max_memory_allocated, memory_reserved, reset_peak_memory_stats, empty_cache,
} = wasm;

const described = makeDescribed(wasm, { Tensor, handle });
/** The described functions of torch's own namespace (a Node test checks that each is exported here). */
export const { addmm, addcmul, addcdiv, diagonal, diag, tril, triu, nan_to_num } = described.torch;

/** `vkml.bernoulli(p)`: 1 with probability p (each element). */
export const bernoulli = (p) => p.bernoulli();

/** `vkml.backward(loss)`, as in Python's seed loop. */
export const backward = (t, gradient, options) => t.backward(gradient, options);

/** `vkml.where(cond, a, b)`. */
export const where = (cond, a, b) => cond.where_(a, b);

export const cat = (tensors, dim) => wasm._cat([...tensors].map(handle), dim);
export const stack = (tensors, dim) => wasm._stack([...tensors].map(handle), dim);
/** `vkml.einsum("ij,jk->ik", [a, b])`: one or two operands. */
export const einsum = (equation, operands) => wasm._einsum(equation, [...operands].map(handle));

/** A Promise of the safetensors bytes (Uint8Array) of an object from names to tensors, e.g. `model.state_dict()`. */
export function save_safetensors(obj) {
  const names = Object.keys(obj);
  return wasm._save_safetensors(names, names.map((n) => handle(obj[n])));
}

/**
 * `const p = await vkml.profile(async () => { ... })`: record every kernel the devices run and every realization
 * while `fn` runs (as Python's `with vkml.profile() as p:`); the session has `table()`, `chrome_trace()` (the JSON
 * Perfetto opens), `kernels`, `device_ms`, `host_ms` and `notes`. Work is lazy: what `fn` realizes (its reads) is
 * recorded. Device times come from WebGPU's timestamp-query where the browser offers it, and arrive with a read, so
 * one small read per device ends the recording.
 */
export async function profile(fn) {
  wasm._profile_start();
  let session;
  try {
    await fn();
    for (const device of wasm.devices()) await wasm.tensor([0], { device }).data();
  } finally {
    // Stopped whatever happened, so that a failed run leaves no recording behind.
    session = wasm._profile_stop();
  }
  return session;
}

export const nn = makeNn(wasm, {
  Tensor, handle, no_grad: wasm.no_grad, load_safetensors: wasm.load_safetensors, described: described.F,
});
export const optim = makeOptim(wasm, { handle });
export const data = makeData({ Tensor, tensor, stack, randperm });
