// The JavaScript checks, shared by Node (CPU) and Chromium (WebGPU): every fixture case of make_fixtures.py run on
// one device and compared with torch under the contract the fixture carries, and on a GPU also with the CPU oracle
// (twice the bound); gradients, optimizer trajectories, a torch state_dict from safetensors, and error messages.

const decode = (v) => (v === "nan" ? NaN : v === "inf" ? Infinity : v === "-inf" ? -Infinity : v === "-0" ? -0 : v);
const values = (list) => Float64Array.from(list, decode);
const same = (a, b) => (Number.isNaN(a) && Number.isNaN(b)) || (a === b && Object.is(a === 0 ? a : 1, b === 0 ? b : 1));

/** An input tensor on `device`: integers from integer arrays (host data the engine can check without a readback). */
function input(vkml, spec, device, requires_grad = false) {
  const v = values(spec.data);
  const { shape, dtype } = spec;
  let t;
  if (dtype === "int64") t = vkml.tensor(BigInt64Array.from(v, (x) => BigInt(x)), { shape, device });
  else if (dtype === "int32") t = vkml.tensor(Int32Array.from(v), { shape, device });
  else t = vkml.tensor(v, { shape, dtype, device });
  if (requires_grad) t.requires_grad = true;
  const leaf = t;
  if (spec.view) t = t[spec.view[0]](...spec.view.slice(1));
  return { leaf, t };
}

/** A layer case (make_fixtures.layer_cases): the module built on the inputs' device with torch's state_dict keys,
 * loaded with torch's weights, run in eval mode as make_fixtures.invoke runs torch's; its outputs, flat. */
function layer(vkml, L, xs) {
  const m = new vkml.nn[L.kind](...L.args, { ...L.options, device: xs[0].device });
  const keys = Object.keys(m.state_dict());
  if (keys.join() !== L.names.join()) throw new Error(`${L.kind}: state_dict keys ${keys}, torch's ${L.names}`);
  m.load_state_dict(Object.fromEntries(L.names.map((n, i) => [n, xs[L.data.length + i]])));
  m.eval();
  const d = Object.fromEntries(L.data.map((n, i) => [n, xs[i]]));
  if (L.kind === "LSTM") {
    const [out, [h, c]] = m.forward(d.input, d.h0 ? [d.h0, d.c0] : undefined);
    return [out, h, c];
  }
  if (L.kind === "RNN" || L.kind === "GRU") return m.forward(d.input, d.h0);
  if (L.kind === "MultiheadAttention") {
    const { key_padding_mask, attn_mask } = d;
    return m.forward(d.query, d.key, d.value, { key_padding_mask, attn_mask, ...L.call });
  }
  return m.forward(d.src, L.call);
}

/** The case's lambda, as make_fixtures.torch_call runs it in torch. */
export function call(vkml, c, xs) {
  if (c.call === "layer") return layer(vkml, c.layer, xs);
  if (c.call.startsWith("list:")) return vkml[c.call.slice(5)](xs, ...c.args);
  if (c.call.startsWith("einsum:")) return vkml.einsum(c.call.slice(7), xs);
  if (c.call.startsWith("fn:")) return vkml[c.call.slice(3)](...xs, ...c.args);
  if (c.call.startsWith("nn.functional.")) {
    const options = Object.keys(c.kw).length ? [c.kw] : [];
    return vkml.nn.functional[c.call.slice(14)](...xs, ...c.args, ...options);
  }
  if (c.call === "to") return xs[0].to({ dtype: c.args[0] });
  // "pre:NAME": a method whose numbers come before its tensors, as gather(dim, index).
  if (c.call.startsWith("pre:")) return xs[0][c.call.slice(4)](...c.args, ...xs.slice(1));
  return xs[0][c.call](...xs.slice(1), ...c.args);
}

async function numbers(t) {
  const d = await t.data();
  return d instanceof BigInt64Array ? Float64Array.from(d, Number) : Float64Array.from(d);
}

/** Indices where `ours` breaks the output's contract, against torch (the fixture) or against `oracle` values; as in
 * helpers._compare, a GPU may also match torch's result of flushed inputs wherever the op's contract allows it. */
function outside(out, ours, gpu, oracle) {
  const bad = [];
  const cands = out.cands.filter((c) => gpu || !c.gpu).map((c) => ({
    special: c.special ? values(c.special) : null,
    center: values(c.center),
    gpu: Boolean(c.gpu),
  }));
  const bound = out.exact ? null : values(out.bound);
  const fits = (c, i) => {
    if (out.exact) return same(ours[i], c.center[i]);
    return Number.isFinite(c.special[i]) ? Number.isFinite(ours[i]) && Math.abs(ours[i] - c.center[i]) <= bound[i]
      : same(ours[i], c.special[i]);
  };
  for (let i = 0; i < ours.length; i++) {
    let ok;
    if (oracle) {
      const near = out.exact || !Number.isFinite(oracle[i]) ? same(ours[i], oracle[i])
        : Math.abs(ours[i] - oracle[i]) <= 2 * bound[i];
      ok = near || cands.some((c) => c.gpu && fits(c, i));
    } else {
      ok = cands.some((c) => fits(c, i));
    }
    if (!ok) bad.push(i);
  }
  return bad;
}

function explain(what, out, ours, bad, oracle) {
  const at = bad.slice(0, 4).map((i) => {
    const ref = oracle ? `cpu ${oracle[i]}` : `torch ${decode(out.cands[0].center[i])}`;
    return `[${i}] ours ${ours[i]}, ${ref}${out.exact ? "" : `, bound ${decode(out.bound[i])}`}`;
  });
  return `${what}: ${bad.length} of ${ours.length} elements outside the contract: ${at.join("; ")}`;
}

/** Run one forward case on `device` (every output, for ops that return several); an error message or null. */
export async function forwardCase(vkml, c, device) {
  const gpu = device !== "cpu";
  const run = async (dev) => {
    const xs = c.inputs.map((s) => input(vkml, s, dev).t);
    const result = await call(vkml, c, xs);  // one_hot is async
    const outs = Array.isArray(result) ? result : [result];
    for (const o of outs) if (o.device !== dev) throw new Error(`result on ${o.device}, expected ${dev}`);
    return { outs, values: await Promise.all(outs.map(numbers)) };
  };
  const { outs, values } = await run(device);
  if (outs.length !== c.outputs.length) return `${c.id}: ${outs.length} outputs, torch gives ${c.outputs.length}`;
  const oracle = gpu ? (await run("cpu")).values : null;
  for (let k = 0; k < outs.length; k++) {
    const [out, ours, want] = [outs[k], values[k], c.outputs[k]];
    const what = `${c.id} (output ${k})`;
    if (String(out.shape) !== String(want.shape)) return `${what}: shape [${out.shape}], torch [${want.shape}]`;
    if (out.dtype !== want.dtype) return `${what}: dtype ${out.dtype}, torch ${want.dtype}`;
    let bad = outside(want, ours, gpu, null);
    if (bad.length) return explain(`${what} on ${device} vs torch`, want, ours, bad, null);
    if (oracle) {
      bad = outside(want, ours, gpu, oracle[k]);
      if (bad.length) return explain(`${what} on ${device} vs the cpu oracle`, want, ours, bad, oracle[k]);
    }
  }
  return null;
}

/** Gradients of Σ⟨w, out⟩ against torch's float64 gradients under the op's gradient contract. */
export async function gradCase(vkml, c, device) {
  const ins = c.inputs.map((s) => input(vkml, s, device, s.dtype === "float32"));
  const out = await call(vkml, c, ins.map((i) => i.t));
  const w = vkml.tensor(values(c.weights[0].data), { shape: c.weights[0].shape, dtype: "float32", device });
  out.mul(w).sum().backward();
  for (let k = 0; k < ins.length; k++) {
    const ref = c.grads[k];
    const g = ins[k].leaf.grad;
    if (!ref) {
      if (g && c.inputs[k].dtype === "float32") return `${c.id}: input ${k} has a gradient, torch gives none`;
      continue;
    }
    if (!g) return `${c.id}: input ${k} has no gradient`;
    const ours = await numbers(g);
    const r = values(ref.ref);
    const b = values(ref.bound);
    const bad = [];
    for (let i = 0; i < r.length; i++) if (!(Math.abs(ours[i] - r[i]) <= b[i])) bad.push(i);
    if (ours.length !== r.length) return `${c.id}: gradient of input ${k} has ${ours.length} elements, not ${r.length}`;
    if (bad.length) {
      const i = bad[0];
      return `${c.id} on ${device}: gradient of input ${k}: ${bad.length} elements outside the contract, ` +
        `e.g. [${i}] ours ${ours[i]}, torch f64 ${r[i]}, bound ${b[i]}`;
    }
  }
  return null;
}

const b64 = (s) => Uint8Array.from(atob(s), (ch) => ch.charCodeAt(0));

function mlp(vkml, device) {
  const { nn } = vkml;
  return new nn.Sequential(new nn.Linear(6, 5), new nn.ReLU(), new nn.Linear(5, 3)).to(device);
}

/** A torch state_dict (safetensors written by an independent writer) loads untranslated and gives torch's logits. */
export async function stateDictCase(vkml, tr, device) {
  const model = mlp(vkml, device);
  const names = model.named_parameters().map(([n]) => n);
  if (String(names) !== String(tr.names)) return `parameter names [${names}], torch [${tr.names}]`;
  model.load_state_dict(b64(tr.state_dict));
  const x = vkml.tensor(values(tr.x), { shape: [8, 6], dtype: "float32", device });
  const ours = await numbers(model.forward(x));
  const ref = values(tr.logits);
  const bound = values(tr.logits_bound);
  for (let i = 0; i < ref.length; i++) {
    if (!(Math.abs(ours[i] - ref[i]) <= bound[i])) {
      return `logits[${i}] of the loaded torch model: ours ${ours[i]}, torch f64 ${ref[i]}, bound ${bound[i]}`;
    }
  }
  return null;
}

/** 5 optimizer steps from torch's weights and batch stay within the training contract of trajectory.py. */
export async function trainingCase(vkml, tr, run, device) {
  const model = mlp(vkml, device);
  model.load_state_dict(b64(tr.state_dict));
  const Opt = vkml.optim[run.optimizer];
  const opt = new Opt(model.parameters(), run.options);
  const x = vkml.tensor(values(tr.x), { shape: [8, 6], dtype: "float32", device });
  const y = vkml.tensor(BigInt64Array.from(tr.y, (v) => BigInt(v)), { device });
  for (let s = 0; s < run.steps; s++) {
    opt.zero_grad();
    vkml.backward(vkml.nn.cross_entropy(model.forward(x), y));
    opt.step();
  }
  for (const [name, p] of model.named_parameters()) {
    const ours = await numbers(p);
    const ref = values(run.torch64[name]);
    const allowed = values(run.allowed[name]);
    for (let i = 0; i < ref.length; i++) {
      if (!(Math.abs(ours[i] - ref[i]) <= allowed[i])) {
        return `${run.optimizer} step ${run.steps}: ${name}[${i}] is ${ours[i]}, torch f64 ${ref[i]} ` +
          `(allowed ${allowed[i]})`;
      }
    }
  }
  return null;
}

/** A scheduler's rate (and cycled momentum) at each step is torch's, to float64 rounding. */
export function scheduleCase(vkml, c) {
  const opt = new vkml.optim[c.optimizer]([vkml.zeros([1])], c.optimizer_options);
  const sched = new vkml.optim.lr_scheduler[c.scheduler](opt, c.options);
  const close = (a, b) => Math.abs(a - b) <= 1e-12 * Math.abs(b) + 1e-15;
  for (let s = 0; s < c.steps; s++) {
    if (!close(opt.lr, c.lrs[s])) return `${c.id} step ${s}: lr ${opt.lr}, torch ${c.lrs[s]}`;
    if (c.momenta[s] !== null && !close(opt.momentum, c.momenta[s])) {
      return `${c.id} step ${s}: momentum ${opt.momentum}, torch ${c.momenta[s]}`;
    }
    opt.step();
    sched.step();
  }
  return null;
}

/** A DataLoader's batches are torch's: the labels are the sample indices, the inputs twice them. */
export async function dataCase(vkml, n, c, device) {
  const x = vkml.arange(0, n, 1, { dtype: "float32", device }).mul(2);
  const y = vkml.arange(0, n, 1, { dtype: "int64", device });
  const loader = new vkml.data.DataLoader(new vkml.data.TensorDataset(x, y), c.options);
  const got = [];
  for await (const [bx, by] of loader) {
    const ids = Array.from(await by.data(), Number);
    const xs = Array.from(await bx.data(), Number);
    if (xs.some((v, i) => v !== 2 * ids[i])) return `${c.id}: inputs ${xs} for samples ${ids}`;
    got.push(ids);
  }
  const want = JSON.stringify(c.batches);
  if (JSON.stringify(got) !== want) return `${c.id}: batches ${JSON.stringify(got)}, torch ${want}`;
  if (loader.length !== c.batches.length) return `${c.id}: length ${loader.length}, torch ${c.batches.length}`;
  return null;
}

/** Shuffled batches cover every sample once, in an order that follows vkml.manual_seed. */
export async function shuffleCase(vkml, device) {
  const order = async () => {
    vkml.manual_seed(7);
    const y = vkml.arange(0, 10, 1, { dtype: "int64", device });
    const out = [];
    for await (const [b] of new vkml.data.DataLoader(new vkml.data.TensorDataset(y), { batch_size: 4, shuffle: true })) {
      out.push(...Array.from(await b.data(), Number));
    }
    return out;
  };
  const a = await order();
  const b = await order();
  if ([...a].sort((p, q) => p - q).join() !== "0,1,2,3,4,5,6,7,8,9") return `shuffle: not a permutation: ${a}`;
  if (a.join() !== b.join()) return `shuffle: the same seed gave ${a} and ${b}`;
  return null;
}

/** ConvTranspose2d and Upsample from torch's weights and inputs, a torch.save checkpoint, calculate_gain. */
export async function moduleCases(vkml, m, device) {
  const ct = m.conv_transpose;
  const convt = new vkml.nn.ConvTranspose2d(3, 4, 3, { stride: 2, padding: 1, output_padding: 1, device });
  convt.load_state_dict(b64(ct.state_dict));
  const x = vkml.tensor(values(ct.x), { shape: [2, 3, 5, 5], dtype: "float32", device });
  const got = await numbers(convt.forward(x));
  const want = values(ct.y);
  const bound = values(ct.bound);
  const bad = want.findIndex((v, i) => !(Math.abs(got[i] - v) <= bound[i]));
  if (bad >= 0) return `ConvTranspose2d[${bad}] is ${got[bad]}, torch ${want[bad]} (bound ${bound[bad]})`;
  const up = new vkml.nn.Upsample({ scale_factor: 2 });
  const ux = vkml.tensor(values(m.upsample.x), { shape: [1, 2, 3, 4], dtype: "float32", device });
  const uy = await numbers(up.forward(ux));
  if (uy.join() !== values(m.upsample.y).join()) return "Upsample differs from torch's";
  const sd = vkml.load(b64(m.torch_save), device);
  const st = vkml.load_safetensors(b64(ct.state_dict), device);
  for (const k of ["weight", "bias"]) {
    if ((await numbers(sd[k])).join() !== (await numbers(st[k])).join()) return `torch.save: ${k} differs`;
  }
  // A list and a tensor the checkpoint shares load as one object each (as torch.load gives them); equal ones apart.
  const sh = vkml.load(b64(m.shared_save), device);
  if (!(sh.a === sh.b && sh.t === sh.u[0] && sh.a !== sh.g && sh.g.join() === "1,2,3")) {
    return "torch.save: a shared list or tensor did not load as one object";
  }
  for (const [name, param, gain] of m.gains) {
    const ours = vkml.nn.init.calculate_gain(name, param ?? undefined);
    if (Math.abs(ours - gain) > 1e-15 * gain) return `calculate_gain(${name}, ${param}) is ${ours}, torch ${gain}`;
  }
  return null;
}

/** vkml.profile records the kernels a run realizes (op, pipeline, shapes, arithmetic) and changes no result; device
 * times are there for every kernel, in order, where the device measures them, else absent with a note naming it. */
export async function profileCase(vkml, device) {
  const a = vkml.tensor(Float32Array.from({ length: 96 }, (_, i) => Math.sin(i)), { shape: [12, 8], device });
  const b = vkml.tensor(Float32Array.from({ length: 40 }, (_, i) => Math.cos(i)), { shape: [8, 5], device });
  const run = () => a.matmul(b).relu().sum(1).data();
  let inside;
  const p = await vkml.profile(async () => {
    inside = await run();
  });
  if ((await run()).join() !== inside.join()) return "profile: a profiled run gave other values";
  const kernels = p.kernels.filter((k) => k.device === device);
  if (kernels.length !== p.kernels.length) return `profile: kernels of other devices: ${p.kernels.map((k) => k.device)}`;
  const mm = kernels.find((k) => k.op === "matmul");
  if (!mm || mm.shape.join() !== "12,5" || mm.flops !== 2 * 12 * 5 * 8 || !mm.pipeline) {
    return `profile: the matmul record is ${JSON.stringify(mm)}`;
  }
  if (!kernels.some((k) => k.op === "sum")) return `profile: no sum among ${kernels.map((k) => k.op)}`;
  const timed = kernels.filter((k) => k.device_ms !== undefined);
  if (timed.length === 0) {
    const note = `${device} has no timestamp queries: its kernels are listed without device time`;
    if (!p.notes.includes(note)) return `profile: no device time and notes ${JSON.stringify(p.notes)}`;
  } else if (timed.length !== kernels.length || !(p.device_ms > 0) || p.notes.length) {
    return `profile: ${timed.length} of ${kernels.length} kernels timed, ${p.device_ms} ms, notes ${p.notes}`;
  }
  if (!p.table().includes("matmul")) return "profile: the table lacks the matmul";
  const trace = JSON.parse(p.chrome_trace()).traceEvents;
  if (trace.filter((e) => e.pid === 1).length !== timed.length) return "profile: the trace lacks timed kernels";
  const failed = await vkml.profile(() => {
    throw new RangeError("inside");
  }).then(() => null, (e) => e);
  if (!(failed instanceof RangeError)) return `profile: a failing run gave ${failed}`;
  return null; // and the failed run stopped its recording: the next profile starts cleanly (runAll runs it again)
}

/** Memory with torch's names: a realized 4 MiB tensor counts as allocated until it is freed; a GPU pool keeps it
 * reserved until empty_cache; the peak remembers it until reset. While the check awaits its read, the garbage
 * collector may free tensors that earlier checks dropped, which moves the figures under it: such a run is tried
 * again, up to three times. */
export async function memoryCase(vkml, device) {
  let failure = null;
  for (let attempt = 0; attempt < 3; attempt++) {
    failure = await memoryOnce(vkml, device);
    if (failure === null) return null;
  }
  return failure;
}

async function memoryOnce(vkml, device) {
  vkml.empty_cache(device);
  vkml.reset_peak_memory_stats(device);
  const before = vkml.memory_allocated(device);
  const x = vkml.zeros([1 << 20], { device });
  await x.data();
  const held = vkml.memory_allocated(device) - before;
  x.free();
  const stats = vkml.memory_stats(device);
  const pooled = device === "cpu" ? 0 : 4 << 20;
  const want = { "allocated_bytes.all.current": before, "allocated_bytes.all.peak": before + (4 << 20),
    "reserved_bytes.all.current": before + pooled };
  if (held !== 4 << 20 || JSON.stringify(stats) !== JSON.stringify(want)) {
    return `memory: held ${held}, stats ${JSON.stringify(stats)}, want ${JSON.stringify(want)}`;
  }
  vkml.empty_cache(device);
  vkml.reset_peak_memory_stats(device);
  if (vkml.memory_reserved(device) !== before || vkml.max_memory_allocated(device) !== before) {
    return "memory: empty_cache or reset_peak_memory_stats left the old figures";
  }
  return null;
}

/** A seeded fuzz over the op table's unary, binary and reduce ops (fixtures.fuzz_ops) that the package spells as
 * Tensor methods: random shapes (0-d, empty, broadcast), dtypes, special values, dims and keepdim. Each call gives a
 * readable result or throws an Error with a message; a wasm trap (a Rust panic: WebAssembly.RuntimeError) fails it,
 * and the engine must still work afterwards. Returns null, or what went wrong; `reached` collects the ops called. */
export async function fuzzCase(vkml, ops, device, examples, reached = new Set()) {
  let state = 0x9e3779b9;
  const rand = () => {
    state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return state / 2 ** 32;
  };
  const pick = (list) => list[Math.floor(rand() * list.length)];
  const usable = ops.filter(([name]) => typeof vkml.Tensor.prototype[name] === "function");
  const specials = [0, -0, 1, -1, 0.5, 3, -7, 1e30, -1e-30, Infinity, -Infinity, NaN];
  const make = (shape, dtype) => {
    const n = shape.reduce((a, b) => a * b, 1);
    const floats = dtype.startsWith("float") || dtype === "bfloat16";
    const values = Array.from({ length: n }, () => (floats ? pick(specials) : Math.floor(rand() * 7) - 3));
    const data = dtype === "bool" ? Uint8Array.from(values, (v) => (v > 0 ? 1 : 0))
      : dtype === "int64" ? BigInt64Array.from(values, (v) => BigInt(v))
        : dtype === "int32" ? Int32Array.from(values) : Float32Array.from(values);
    return vkml.tensor(data, { shape, dtype, device });
  };
  for (let i = 0; i < examples; i++) {
    const [name, kind] = pick(usable);
    const shape = Array.from({ length: Math.floor(rand() * 4) }, () => pick([0, 1, 2, 3, 5]));
    const dtype = pick(["float32", "float16", "bfloat16", "int32", "int64", "bool"]);
    let call;
    try {
      const x = make(shape, dtype);
      if (kind === "unary") call = () => x[name]();
      else if (kind === "binary") {
        const other = rand() < 0.3 ? shape.map((d) => (rand() < 0.5 ? 1 : d)) : shape;
        const y = rand() < 0.2 ? pick(specials) : make(other, pick(["float32", "int32", "bool", dtype]));
        call = () => x[name](y);
      } else {
        const dim = shape.length && rand() < 0.8 ? Math.floor(rand() * 2 * shape.length) - shape.length : undefined;
        call = () => x[name](dim, rand() < 0.5);
      }
      reached.add(name);
      const out = call();
      for (const t of [out].flat()) if (t instanceof vkml.Tensor) await t.data();
    } catch (e) {
      if (e instanceof WebAssembly.RuntimeError || !(e instanceof Error) || !e.message) {
        return `fuzz ${i}: ${name} on ${dtype} [${shape}] on ${device} trapped or threw ${e}`;
      }
    }
  }
  const still = await vkml.tensor([1, 2, 3], { device }).sum().item();
  return still === 6 ? null : `fuzz: the engine is broken after the run (sum ${still})`;
}

/** What `f` throws or rejects with, or null. */
async function caught(f) {
  try {
    await f();
    return null;
  } catch (e) {
    return e;
  }
}

/** Indexing stays synchronous: an index computed on the device is checked at the next read, which throws torch's
 * RangeError once; an index from a JavaScript array is checked at once. */
export async function deferredCase(vkml, device) {
  const x = vkml.tensor([1, 2, 3], { dtype: "float32", device });
  const idx = vkml.arange(0, 2, 1, { dtype: "int64", device }).mul(3); // [0, 3], computed on the device
  const y = x.gather(0, idx);
  if (!(y instanceof vkml.Tensor)) return "gather did not return a Tensor at once";
  const err = await caught(() => y.data());
  if (!(err instanceof RangeError) || !/index 3 is out of bounds for dimension 0 with size 3/.test(err.message)) {
    return `the deferred index fault: ${err?.constructor?.name}: ${err?.message}`;
  }
  if ((await numbers(x)).join() !== "1,2,3") return "the fault was raised twice";
  const host = await caught(() => x.index_select(0, vkml.tensor(BigInt64Array.from([5n]), { device })));
  if (!(host instanceof RangeError)) return `a host index out of range: ${host?.constructor?.name}: ${host?.message}`;
  const ok = x.index_select(0, vkml.arange(0, 3, 1, { dtype: "int64", device }).flip([0]));
  if ((await numbers(ok)).join() !== "3,2,1") return "a device index in range gave the wrong rows";
  const hot = vkml.nn.functional.one_hot(idx, 3);
  if (!(hot instanceof vkml.Tensor)) return "one_hot with a class count is not synchronous";
  const hotErr = await caught(() => hot.data());
  if (!/Class values must be smaller than num_classes/.test(hotErr?.message)) return `one_hot: ${hotErr?.message}`;
  const emb = new vkml.nn.Embedding(4, 2, { device });
  const rows = emb.forward(vkml.tensor(BigInt64Array.from([0n, 3n]), { device }));
  if (!(rows instanceof vkml.Tensor) || rows.shape.join() !== "2,2") return "Embedding.forward is not synchronous";
  return null;
}

/** Planner fusion: issue #19's chain gives the bytes eager mode gives (every op its own kernel) over edge values,
 * and its seven intermediate nodes (two scalars among them), their handles freed, run inside the last one's kernel. */
/**
 * A product of a million outputs: 1024 x 12 @ 12 x 1024 of small integers, exact in any order, also through a
 * transposed view. In Chromium's SwiftShader it did not finish on the tiled pipeline, which a browser now leaves to
 * the 16x16 one (docs/matmul.md).
 */
export async function largeMatmulCase(vkml, device) {
  const [m, k, n] = [1024, 12, 1024];
  const a = Float32Array.from({ length: m * k }, (_, i) => ((i * 7) % 9) - 4);
  const b = Float32Array.from({ length: k * n }, (_, i) => ((i * 5) % 7) - 3);
  const want = new Float32Array(m * n);
  for (let r = 0; r < m; r++) {
    for (let p = 0; p < k; p++) {
      const x = a[r * k + p];
      for (let c = 0; c < n; c++) want[r * n + c] += x * b[p * n + c];
    }
  }
  const at = Float32Array.from({ length: m * k }, (_, i) => a[(i % m) * k + Math.floor(i / m)]); // a, column-major
  const va = vkml.tensor(a, { shape: [m, k], device });
  const vat = vkml.tensor(at, { shape: [k, m], device }).transpose(0, 1);
  const vb = vkml.tensor(b, { shape: [k, n], device });
  for (const [name, x] of [["row-major", va], ["transposed", vat]]) {
    const got = await x.matmul(vb).data();
    const bad = want.findIndex((w, i) => got[i] !== w);
    if (bad >= 0) return `${m}x${k} @ ${k}x${n} (${name} a): element ${bad} is ${got[bad]}, expected ${want[bad]}`;
  }
  return null;
}

export async function fusionCase(vkml, device) {
  const edge = [0, -0, Infinity, -Infinity, NaN, 1e-40, -1e-45, 3e38];
  const v = Float32Array.from({ length: 64 }, (_, i) => (i < 8 ? edge[i] : Math.sin(i) * 3));
  const x = vkml.tensor(v, { shape: [8, 8], device });
  const y = vkml.tensor(v.map((a) => 0.5 - a), { shape: [8, 8], device });
  await Promise.all([x.data(), y.data()]);
  const chain = () => {
    let t = x.mul(y);
    for (const step of [(v) => v.add(1), (v) => v.relu(), (v) => v.sub(y), (v) => v.exp()]) {
      const next = step(t);
      t.free(); // a JavaScript handle holds its value (out of fusion) until it is freed or collected
      t = next;
    }
    return t.data();
  };
  const before = vkml.stats().nodes_fused;
  const lazy = await chain();
  const fused = vkml.stats().nodes_fused - before;
  vkml.set_eager(true);
  let eager;
  try {
    eager = await chain();
  } finally {
    vkml.set_eager(false);
  }
  const [p, q] = [lazy, eager].map((a) => new Uint32Array(a.buffer, a.byteOffset, a.length));
  const bad = [...p].findIndex((b, i) => b !== q[i] && !(Number.isNaN(lazy[i]) && Number.isNaN(eager[i])));
  if (bad >= 0) return `fusion: element ${bad} is ${lazy[bad]} fused, ${eager[bad]} eager`;
  return fused === 7 ? null : `fusion: ${fused} nodes ran inside another's kernel, expected 7`;
}

/** Bad input gives a clear exception of the right class; returns an error message or null. */
export async function errorCases(vkml, device) {
  const expect = (what, Cls, re, f) => {
    try {
      f();
    } catch (e) {
      if (!(e instanceof Cls)) return `${what}: threw ${e?.constructor?.name}, expected ${Cls.name}: ${e?.message}`;
      if (!re.test(e.message)) return `${what}: message "${e.message}" does not match ${re}`;
      return null;
    }
    return `${what}: no exception`;
  };
  const a = vkml.tensor([[1, 2], [3, 4]], { device });
  const disposed = vkml.tensor([1, 2], { device });
  disposed.dispose();
  const model = mlp(vkml, device);
  const checks = [
    expect("matmul of mismatched shapes", Error, /cannot be multiplied/, () => a.matmul(vkml.ones([3, 2], { device }))),
    expect("add of unbroadcastable shapes", Error, /size|broadcast/i, () => a.add(vkml.ones([3], { device }))),
    expect("unknown dtype", TypeError, /float8/, () => vkml.tensor([1], { dtype: "float8" })),
    expect("dim out of range", RangeError, /dim|range/i, () => a.sum(5)),
    expect("string as dim", TypeError, /dim/, () => a.sum("x")),
    expect("ragged nested array", TypeError, /rectangular/, () => vkml.tensor([[1, 2], [3]])),
    expect("non-number data", TypeError, /numbers or booleans/, () => vkml.tensor(["a"])),
    expect("using a disposed tensor", Error, /disposed/, () => disposed.relu()),
    expect("passing a disposed tensor", Error, /disposed/, () => a.add(disposed)),
    expect("typed array of the wrong length", Error, /bytes|shape/, () => vkml.tensor(new Float32Array(5), { shape: [2, 2] })),
    expect("cross_entropy with a target out of range", Error, /out of bounds|range/i, () =>
      vkml.nn.cross_entropy(vkml.ones([2, 3], { device }), vkml.tensor(new BigInt64Array([0n, 7n]), { device }))),
    expect("state_dict with missing keys", Error, /missing keys/, () => model.load_state_dict({})),
    expect("safetensors that are not", Error, /safetensors/, () => model.load_state_dict(new Uint8Array([1, 2, 3]))),
    expect("unknown device", Error, /unknown or unopened device 'tpu'/, () => vkml.zeros([2], { device: "tpu" })),
  ];
  const failed = checks.filter(Boolean);
  return failed.length ? failed.join("\n") : null;
}

/** Every check on `device`: {passed, failures, ops} where ops are the op-table names verified there. */
export async function runAll(vkml, fixtures, device, log = () => {}) {
  const failures = [];
  const ops = new Set();
  const failedOps = new Set();
  let passed = 0;
  const record = async (what, op, f) => {
    let msg;
    try {
      msg = await f();
    } catch (e) {
      msg = `${what}: threw ${e?.constructor?.name}: ${e?.message}`;
    }
    if (msg) {
      failures.push(msg);
      if (op) failedOps.add(op);
      log(`FAIL ${msg}`);
    } else {
      passed++;
      if (op) ops.add(op);
    }
  };
  for (const c of fixtures.forward) await record(c.id, c.op, () => forwardCase(vkml, c, device));
  for (const c of fixtures.grads) await record(c.id, null, () => gradCase(vkml, c, device));
  const tr = fixtures.training;
  await record("torch state_dict", null, () => stateDictCase(vkml, tr, device));
  for (const run of tr.runs) await record(`${run.optimizer} trajectory`, null, () => trainingCase(vkml, tr, run, device));
  for (const c of fixtures.schedules) await record(c.id, null, () => scheduleCase(vkml, c));
  for (const c of fixtures.data.cases) await record(c.id, null, () => dataCase(vkml, fixtures.data.n, c, device));
  await record("shuffle", null, () => shuffleCase(vkml, device));
  await record("modules", null, () => moduleCases(vkml, fixtures.modules, device));
  await record("deferred index checks", null, () => deferredCase(vkml, device));
  await record("errors", null, () => errorCases(vkml, device));
  await record("profile", null, () => profileCase(vkml, device));
  await record("memory", null, () => memoryCase(vkml, device));
  await record("fusion", null, () => fusionCase(vkml, device));
  await record("large matmul", null, () => largeMatmulCase(vkml, device));
  await record("fuzz", null, () => fuzzCase(vkml, fixtures.fuzz_ops, device, 200));
  for (const op of failedOps) ops.delete(op);
  return { passed, failures, ops: [...ops].sort() };
}
