// The Node suite: the npm package (installed from its tarball into a fresh folder by tools/test.sh, or npm/ itself)
// on the CPU, against torch's fixtures; plus what is special to Node (no WebGPU, and best_device says so).
// Usage: node --test tests/web/node.test.mjs  (env: VKML_NPM_PKG, the package folder, default npm/;
// VKML_WEB_FIXTURES, the folder of fixtures.json, default tests/out/web)
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import {
  dataCase,
  deferredCase,
  errorCases,
  forwardCase,
  fusionCase,
  largeMatmulCase,
  fuzzCase,
  gradCase,
  memoryCase,
  moduleCases,
  profileCase,
  scheduleCase,
  shuffleCase,
  stateDictCase,
  trainingCase,
} from "./checks.mjs";

const ROOT = resolve(import.meta.dirname, "../..");
const pkg = resolve(ROOT, process.env.VKML_NPM_PKG ?? "npm");
const vkml = await import(pathToFileURL(resolve(pkg, "index.js")).href);
const fx = JSON.parse(readFileSync(resolve(ROOT, process.env.VKML_WEB_FIXTURES ?? "tests/out/web", "fixtures.json")));

test("the package is the one built from this checkout", () => {
  assert.ok(import.meta.resolve(resolve(pkg, "index.js")).startsWith("file://"));
  assert.ok(vkml.Tensor && vkml.nn && vkml.optim);
});

test("index.d.ts declares every name of vkml.nn, its functional and init, optim, its schedulers and data", () => {
  const dts = ["index.d.ts", "pkg/vkml_web.d.ts"].map((f) => readFileSync(resolve(pkg, f), "utf8")).join("\n");
  const spaces = { nn: vkml.nn, functional: vkml.nn.functional, init: vkml.nn.init, optim: vkml.optim,
    lr_scheduler: vkml.optim.lr_scheduler, data: vkml.data };
  const missing = Object.entries(spaces).flatMap(([space, obj]) =>
    Object.keys(obj).filter((k) => !new RegExp(`^\\s+${k}\\??[:(<]`, "m").test(dts)).map((k) => `${space}.${k}`));
  assert.deepEqual(missing, []);
});

test("every described function is in torch's namespace, its options positional or one object", async () => {
  const engine = await import(pathToFileURL(resolve(pkg, "pkg/vkml_web.js")).href);
  const t = (v) => vkml.tensor(v);
  const x = t([-2, -0.5, 0, 0.5, 2]);
  const rows = { torch: vkml, F: vkml.nn.functional, Tensor: vkml };
  const placed = [];
  for (const [ns, name] of engine._described()) {
    assert.equal(typeof rows[ns][name], "function", `${ns}.${name}`);
    if (ns === "Tensor") assert.equal(typeof vkml.Tensor.prototype[name], "function", `Tensor.${name}`);
    placed.push(name);
  }
  assert.ok(placed.includes("hardtanh") && placed.includes("addmm"));
  // A Tensor row is a function of vkml and a method, positional or one object.
  const m = vkml.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]]);
  const rowsOf = async (a) => Array.from(await a.data());
  assert.deepEqual(await rowsOf(m.tril(-1)), [0, 0, 0, 4, 0, 0, 7, 8, 0]);
  assert.deepEqual(await rowsOf(vkml.tril(m, -1)), await rowsOf(m.tril({ diagonal: -1 })));
  assert.deepEqual(await rowsOf(m.diagonal(1)), [2, 6]);
  assert.deepEqual(await rowsOf(vkml.diagonal(m, { dim1: 1, dim2: 0 })), [1, 5, 9]);
  assert.deepEqual(await rowsOf(vkml.tensor([NaN, Infinity, -1]).nan_to_num({ posinf: 5 })), [0, 5, -1]);
  assert.throws(() => m.triu(0.5), { name: "TypeError", message: /must be an integer/ });
  const F = vkml.nn.functional;
  const values = async (a) => Array.from(await a.data());
  const same = async (a, b) => assert.deepEqual(await values(a), await values(b));
  await same(F.hardtanh(x, -0.5, 0.25), F.hardtanh(x, { min_val: -0.5, max_val: 0.25 }));
  await same(F.hardtanh(x, -0.5, { max_val: 0.25 }), F.hardtanh(x, { min_val: -0.5, max_val: 0.25 }));
  await same(F.hardtanh(x, undefined, 0.25), F.hardtanh(x, { max_val: 0.25 }));
  assert.deepEqual(await values(F.hardtanh(x, -0.5, 0.25)), [-0.5, -0.5, 0, 0.25, 0.25]);
  const w = t([1, 2, 1, 2, 1]);
  const p = t([0.1, 0.2, 0.5, 0.7, 0.9]);
  const q = t([0, 1, 1, 0, 1]);
  await same(F.binary_cross_entropy(p, q, w, "sum"), F.binary_cross_entropy(p, q, { weight: w, reduction: "sum" }));
  // The class losses: an integer option, int32 class indices widened to int64, positional or one object.
  const logits = vkml.tensor([[1, 2, 0.5], [0.1, -1, 3], [2, 2, 2]]);
  const y64 = vkml.tensor(new BigInt64Array([2n, 1n, 0n]));
  const y32 = vkml.tensor(new Int32Array([2, 1, 0]));
  await same(F.cross_entropy(logits, y32, null, 1, "sum", 0.1),
    F.cross_entropy(logits, y64, { ignore_index: 1, reduction: "sum", label_smoothing: 0.1 }));
  await same(F.nll_loss(logits, y32, t([1, 2, 3]), 0), F.nll_loss(logits, y64, { weight: t([1, 2, 3]), ignore_index: 0 }));
  assert.notDeepEqual(await values(F.nll_loss(logits, y64, null, 0)), await values(F.nll_loss(logits, y64)));
  assert.throws(() => F.nll_loss(logits, y64, { ignore_index: 0.5 }), { name: "TypeError", message: /must be an integer/ });
  await same(F.dropout(x, 0.9, false), x);
  const [wt, bt] = [t([[1, 2], [3, 4], [5, 6]]), t([0.5, -1, 2])];
  await same(F.linear(t([[1, -1], [2, 0.5]]), wt, bt), F.linear(t([[1, -1], [2, 0.5]]), wt, { bias: bt }));
  assert.deepEqual(await values(F.linear(t([[1, -1]]), wt, bt)), [-0.5, -2, 1]);
  const [qa, ka] = [vkml.randn([2, 3, 4]), vkml.randn([2, 5, 4])];
  await same(F.scaled_dot_product_attention(qa, ka, ka, null, 0, false, 0.25),
    F.scaled_dot_product_attention(qa, ka, ka, { scale: 0.25 }));
  assert.notDeepEqual(await values(F.scaled_dot_product_attention(qa, ka, ka, { scale: 0.25 })),
    await values(F.scaled_dot_product_attention(qa, ka, ka)));
  assert.throws(() => F.scaled_dot_product_attention(qa, ka, ka, { enable_gqa: true }), /enable_gqa=True/);
  await same(F.dropout(x, 0), F.dropout(x, { p: 0, training: true }));
  assert.throws(() => F.hardtanh(x, { min: 0 }), { name: "TypeError", message: /unexpected keyword argument 'min'/ });
  assert.throws(() => F.hardtanh(x, 0, 1, 2), { name: "TypeError", message: /at most 3 positional/ });
  assert.throws(() => F.hardtanh(x, 0, { min_val: 0 }), { name: "TypeError", message: /multiple values/ });
  assert.throws(() => F.mse_loss(x), { name: "TypeError", message: /missing 1 required/ });
  // Required arguments after the tensors, positional or in the object; max_pool2d's indices as torch's.
  const img = t([[[[1, 5, 2, 0], [3, 4, 8, 1], [0, 2, 6, 7], [9, 1, 3, 2]]]]);
  await same(F.max_pool2d(img, 2), F.max_pool2d(img, { kernel_size: [2, 2] }));
  const [mv, mi] = F.max_pool2d(img, 2, { return_indices: true });
  assert.deepEqual(await values(mv), [5, 8, 9, 7]);
  assert.deepEqual(Array.from(await mi.data(), Number), [1, 6, 12, 11]);
  assert.deepEqual(await values(F.avg_pool2d(img, 2, { divisor_override: 2 })), [6.5, 5.5, 6, 9]);
  assert.throws(() => F.max_pool2d(img), { name: "TypeError", message: /missing required argument\(s\): 'kernel_size'/ });
  assert.throws(() => F.max_pool2d(img, [1, 2, 3]), /kernel_size to be a single integer value or a list of 2 values/);
  assert.throws(() => F.pad(img, [1.5, 1]), { name: "TypeError", message: /pad must be ints/ });
  // wasm32's sizes stop at 2^32 - 1: a kernel of 2^32 + 2 is refused, not wrapped to 2.
  assert.throws(() => F.max_pool2d(img, 2 ** 32 + 2), /kernel_size is too large for this platform/);
  assert.deepEqual((F.pad(img, [1, -1], { value: 7 })).shape, [1, 1, 4, 4]);
});

test("the modules applying one function keep torch's arguments, positional or one object, and apply it", async () => {
  const engine = await import(pathToFileURL(resolve(pkg, "pkg/vkml_web.js")).href);
  for (const [name] of engine._modules()) assert.equal(typeof vkml.nn[name], "function", name);
  const { nn } = vkml;
  const F = nn.functional;
  const values = async (a) => Array.from(await a.data(), Number);
  const img = vkml.tensor([[[[1, 5, 2, 0], [3, 4, 8, 1], [0, 2, 6, 7], [9, 1, 3, 2]]]]);
  const mp = new nn.MaxPool2d(2);
  assert.deepEqual([mp.kernel_size, mp.stride, mp.padding, mp.dilation, mp.return_indices, mp.ceil_mode],
    [2, 2, 0, 1, false, false]);
  assert.deepEqual(await values(mp.forward(img)), [5, 8, 9, 7]);
  const [, idx] = new nn.MaxPool2d(2, { return_indices: true }).forward(img);
  assert.deepEqual(await values(idx), [1, 6, 12, 11]);
  const ap = new nn.AvgPool2d(3, 1, 1, false, false);
  assert.equal(ap.count_include_pad, false);
  assert.deepEqual(await values(ap.forward(img)),
    await values(F.avg_pool2d(img, 3, { stride: 1, padding: 1, count_include_pad: false })));
  const x = vkml.tensor([-2, -0.5, 0.5, 2]);
  const elu = new nn.ELU({ alpha: 0.5 });
  assert.deepEqual([elu.alpha, elu.inplace], [0.5, false]);
  assert.deepEqual(await values(elu.forward(x)), await values(F.elu(x, 0.5)));
  const y = vkml.tensor([-2, -0.5, 0.5, 2]);
  assert.equal(new nn.ReLU(true).forward(y), y);
  assert.deepEqual(await values(y), [0, 0, 0.5, 2]);
  assert.deepEqual(await values(new nn.Fold([3, 3], 2).forward(new nn.Unfold(2).forward(img.narrow(2, 0, 3).narrow(3, 0, 3)))),
    await values(F.fold(F.unfold(img.narrow(2, 0, 3).narrow(3, 0, 3), 2), [3, 3], 2)));
  assert.throws(() => new nn.MaxPool2d(), { name: "TypeError", message: /missing required argument\(s\): 'kernel_size'/ });
  assert.throws(() => new nn.ELU(1, false, 3), { name: "TypeError", message: /at most 2 positional/ });
});

test("normalisation layers and Embedding hold their layout's parameters and buffers, reset as torch's", async () => {
  const { nn } = vkml;
  const values = async (t) => Array.from(await t.data(), Number);
  const bn = new nn.BatchNorm1d(3);
  assert.deepEqual(Object.keys(bn.state_dict()), ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]);
  assert.equal(bn.num_batches_tracked.dtype, "int64");
  bn.forward(vkml.randn([8, 3]).mul(3).add(1));
  assert.deepEqual(await values(bn.num_batches_tracked), [1]);
  assert.notDeepEqual(await values(bn.running_mean), [0, 0, 0]);
  vkml.no_grad(() => bn.weight.copy_(vkml.full([3], 2)));
  bn.reset_running_stats();
  assert.deepEqual(await values(bn.running_mean), [0, 0, 0]);
  assert.deepEqual(await values(bn.running_var), [1, 1, 1]);
  assert.deepEqual(await values(bn.num_batches_tracked), [0]);
  assert.deepEqual(await values(bn.weight), [2, 2, 2]);
  bn.reset_parameters();
  assert.deepEqual(await values(bn.weight), [1, 1, 1]);
  assert.deepEqual(Object.keys(new nn.BatchNorm2d(2, { affine: false, track_running_stats: false }).state_dict()), []);
  assert.deepEqual(Object.keys(new nn.LayerNorm(4, { bias: false }).state_dict()), ["weight"]);
  assert.deepEqual(Object.keys(new nn.GroupNorm(2, 4).state_dict()), ["weight", "bias"]);
  const emb = new nn.Embedding(5, 3, { padding_idx: -2 });
  assert.equal(emb.padding_idx, 3);
  const rows = async () => (await values(emb.weight)).reduce((r, v, i) => (r[Math.floor(i / 3)].push(v), r), [[], [], [], [], []]);
  assert.deepEqual((await rows())[3], [0, 0, 0]);
  assert.ok((await rows()).every((r, i) => i === 3 || r.every((v) => v !== 0)));
  emb.reset_parameters();
  assert.deepEqual((await rows())[3], [0, 0, 0]);
  assert.throws(() => new nn.Embedding(5, 3, { padding_idx: 5 }), /Padding_idx must be within num_embeddings/);
});

test("vkml.profile records the kernels a run realizes, timed by the host clock on the CPU", async () => {
  assert.equal(await profileCase(vkml, "cpu"), null);
  assert.equal(await profileCase(vkml, "cpu"), null); // a second recording starts after the failed one stopped
});

test("the planner fuses an elementwise chain with eager mode's bytes", async () => {
  assert.equal(await fusionCase(vkml, "cpu"), null);
});

test("a 1024 x 12 @ 12 x 1024 product of small integers is exact, through a transposed view too", async () => {
  assert.equal(await largeMatmulCase(vkml, "cpu"), null);
});

test("memory_stats and its kin follow the tensors, with torch's names", async () => {
  assert.equal(await memoryCase(vkml, "cpu"), null);
});

test("training steps through a Sequential of vkml's modules do not pile up old weights and activations", async () => {
  // Sequential releases the activations its built-in modules pass on, and a released autograd record drops the
  // value it saved: before, each step of this loop left about 560 KB in WebAssembly memory until V8's garbage
  // collector ran (it seldom does: the handles are small), 100 steps 56 MB.
  const { nn } = vkml;
  const model = new nn.Sequential(new nn.Linear(784, 128), new nn.ReLU(), new nn.Linear(128, 10));
  const opt = new vkml.optim.Adam(model.parameters(), { lr: 1e-3 });
  const x = vkml.tensor(Float32Array.from({ length: 64 * 784 }, (_, i) => Math.sin(i)), { shape: [64, 784] });
  const y = vkml.tensor(BigInt64Array.from({ length: 64 }, (_, i) => BigInt(i % 10)));
  const step = async () => {
    opt.zero_grad();
    const loss = vkml.nn.cross_entropy(model.forward(x), y);
    vkml.backward(loss);
    opt.step();
    await loss.item();
  };
  for (let i = 0; i < 3; i++) await step();
  const before = vkml.memory_allocated("cpu");
  for (let i = 0; i < 20; i++) await step();
  const grown = vkml.memory_allocated("cpu") - before;
  // What is left is the unreleased logits and loss themselves, about 2.6 KB a step. Until backward released the
  // records' inputs too, their records kept the activations they were computed from, about 150 KB a step (3.0 MB).
  assert.ok(grown < 1_000_000, `${grown} bytes left behind by 20 steps`);
});

test("a seeded fuzz over the op table never traps the engine", async () => {
  const reached = new Set();
  assert.equal(await fuzzCase(vkml, fx.fuzz_ops, "cpu", 2000, reached), null);
  assert.ok(reached.size >= 60, `only ${reached.size} ops reached`);
});

test("Node has no WebGPU: init_webgpu rejects and best_device says why", async () => {
  await assert.rejects(vkml.init_webgpu(), /no WebGPU/);
  const { device, why } = vkml.best_device();
  assert.equal(device, "cpu");
  assert.match(why, /^using the CPU: this JavaScript runtime has no WebGPU/);
});

for (const c of fx.forward) {
  test(`forward ${c.id}`, async () => assert.equal(await forwardCase(vkml, c, "cpu"), null));
}
for (const c of fx.grads) {
  test(c.id, async () => assert.equal(await gradCase(vkml, c, "cpu"), null));
}
test("a torch state_dict loads untranslated from safetensors", async () => {
  assert.equal(await stateDictCase(vkml, fx.training, "cpu"), null);
});
for (const run of fx.training.runs) {
  test(`${run.optimizer}: ${run.steps} steps match torch`, async () => {
    assert.equal(await trainingCase(vkml, fx.training, run, "cpu"), null);
  });
}
for (const c of fx.data.cases) {
  test(c.id, async () => assert.equal(await dataCase(vkml, fx.data.n, c, "cpu"), null));
}
test("shuffled batches follow manual_seed", async () => assert.equal(await shuffleCase(vkml, "cpu"), null));
test("ConvTranspose2d, Upsample, a torch.save checkpoint and calculate_gain match torch", async () => {
  assert.equal(await moduleCases(vkml, fx.modules, "cpu"), null);
});
test("indexing is synchronous; a device index is checked at the next read", async () => {
  assert.equal(await deferredCase(vkml, "cpu"), null);
});
test("eager mode and counters, as Python's", () => {
  assert.equal(vkml.is_eager(), false);
  vkml.set_eager(true);
  assert.equal(vkml.is_eager(), true);
  vkml.set_eager(false);
  const s = vkml.stats();
  assert.ok(Object.keys(s).length > 0 && Object.values(s).every((v) => typeof v === "number"));
});
for (const c of fx.schedules) {
  test(c.id, () => assert.equal(scheduleCase(vkml, c), null));
}
test("bad input raises clear errors", async () => assert.equal(await errorCases(vkml, "cpu"), null));

test("save_safetensors round-trips a state_dict", async () => {
  const m = new vkml.nn.Sequential(new vkml.nn.Linear(3, 2));
  const bytes = await vkml.save_safetensors(m.state_dict());
  const back = vkml.load_safetensors(bytes);
  assert.deepEqual(Object.keys(back).sort(), ["0.bias", "0.weight"]);
  assert.deepEqual(await back["0.weight"].data(), await m["0"].weight.data());
  assert.deepEqual(await back["0.bias"].data(), await m["0"].bias.data());
});

test("typed arrays keep their dtype; small integers widen to int32", async () => {
  assert.equal(vkml.tensor(new Float64Array([1])).dtype, "float64");
  assert.equal(vkml.tensor(new BigInt64Array([1n])).dtype, "int64");
  const px = vkml.tensor(new Uint8Array([0, 128, 255]).subarray(1));
  assert.equal(px.dtype, "int32");
  assert.deepEqual([...(await px.data())], [128, 255]);
  assert.equal(await vkml.tensor([true, false]).any().item(), true);
});

test("BatchNorm keeps torch's state_dict names and updates its running statistics in training", async () => {
  const bn = new vkml.nn.BatchNorm1d(3);
  assert.deepEqual(Object.keys(bn.state_dict()), ["weight", "bias", "running_mean", "running_var",
    "num_batches_tracked"]);
  const x = vkml.tensor([[1, 2, 3], [3, 6, 9]]);
  await bn.forward(x).data();
  assert.equal(await bn.num_batches_tracked.item(), 1);
  // momentum 0.1 of the batch mean [2, 4, 6] and of the unbiased batch variance [2, 8, 18].
  assert.deepEqual([...(await bn.running_mean.data())].map((v) => +v.toFixed(5)), [0.2, 0.4, 0.6]);
  assert.deepEqual([...(await bn.running_var.data())].map((v) => +v.toFixed(5)), [1.1, 1.7, 2.7]);
  bn.eval();
  await bn.forward(x).data();
  assert.equal(await bn.num_batches_tracked.item(), 1, "eval mode leaves the statistics alone");
  assert.deepEqual([...(await bn.running_mean.data())].map((v) => +v.toFixed(5)), [0.2, 0.4, 0.6]);
});

test("indexing: get is Python's t[...] (a view), set writes through it", async () => {
  const t = vkml.arange(0, 12).reshape([3, 4]);
  assert.deepEqual([...(await t.get(1, "1:3").data())], [5, 6]);
  assert.deepEqual(t.get(null, "...", -1).shape, [1, 3]);
  t.set([0, ":"], 7);
  t.set(["1:", 0], vkml.tensor([-1, -2]));
  assert.deepEqual([...(await t.data())], [7, 7, 7, 7, -1, 5, 6, 7, -2, 9, 10, 11]);
  assert.throws(() => t.get(5), RangeError);
  assert.throws(() => t.get("1:2:3:4"), TypeError);
});

test("containers name their children as torch does", () => {
  const { nn } = vkml;
  const list = new nn.ModuleList([new nn.Linear(2, 3), new nn.ReLU()]);
  list.append(new nn.Linear(3, 1));
  assert.equal(list.length, 3);
  assert.deepEqual(list.named_parameters().map(([n]) => n), ["0.weight", "0.bias", "2.weight", "2.bias"]);
  const dict = new nn.ModuleDict({ enc: new nn.Linear(2, 2) });
  assert.deepEqual(Object.keys(dict.state_dict()), ["enc.weight", "enc.bias"]);
  assert.deepEqual(new nn.Unflatten(1, [2, 3]).forward(vkml.zeros([4, 6])).shape, [4, 2, 3]);
});

test("recurrent and attention layers start as torch's and refuse what torch refuses", async () => {
  const { nn } = vkml;
  for (const [name, p] of new nn.LSTM(3, 4, { num_layers: 2 }).named_parameters()) {
    const v = [...(await p.data())];
    assert.ok(v.every((x) => Math.abs(x) <= 0.5) && v.some((x) => x !== 0), `${name} is not U(±1/√4)`);
  }
  const mha = new nn.MultiheadAttention(8, 2);
  assert.deepEqual(mha.named_parameters().map(([n]) => n),
    ["in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"]);
  assert.ok([...(await mha.in_proj_bias.data()), ...(await mha.out_proj.bias.data())].every((x) => x === 0));
  const bound = Math.sqrt(6 / 32); // xavier_uniform_ on (24, 8)
  assert.ok([...(await mha.in_proj_weight.data())].every((x) => Math.abs(x) <= bound));
  assert.throws(() => new nn.LSTM(3, 4, { proj_size: 4 }), /proj_size has to be smaller than hidden_size/);
  assert.throws(() => new nn.GRU(3, 4, { proj_size: 2 }), /only supported for LSTM/);
  assert.throws(() => new nn.RNN(3, 4, { dropout: 2 }), /dropout should be a number in range \[0, 1\]/);
  assert.throws(() => new nn.RNN(3, 0), /hidden_size must be greater than zero/);
  assert.throws(() => new nn.MultiheadAttention(5, 2), /embed_dim must be divisible by num_heads/);
});

test("a module's own parameters come before its children's, as in torch", () => {
  class Net extends vkml.nn.Module {
    constructor() {
      super();
      this.fc = new vkml.nn.Linear(2, 2);
      this.scale = vkml.nn.Parameter(vkml.ones([2]));
      this.register_buffer("count", vkml.zeros([]));
    }
  }
  const net = new Net();
  assert.deepEqual(net.named_parameters().map(([n]) => n), ["scale", "fc.weight", "fc.bias"]);
  assert.deepEqual(Object.keys(net.state_dict()), ["scale", "count", "fc.weight", "fc.bias"]);
});

test("a failed load_state_dict changes nothing", async () => {
  const m = new vkml.nn.Sequential(new vkml.nn.Linear(3, 2), new vkml.nn.Linear(2, 4));
  const before = await m["0"].weight.data();
  const bad = Object.fromEntries(Object.entries(m.state_dict()).map(([k, v]) => [k, vkml.zeros(v.shape)]));
  bad["1.weight"] = vkml.zeros([5, 2]);
  assert.throws(() => m.load_state_dict(bad), /size mismatch for 1.weight/);
  assert.deepEqual(await m["0"].weight.data(), before);
});

test("sizes past wasm32's and arrays nested past 64 levels are refused, not capped or overflowing", () => {
  assert.throws(() => vkml.zeros([2 ** 32 + 5, 0]), RangeError);
  let deep = [1];
  for (let i = 0; i < 10000; i++) deep = [deep];
  assert.throws(() => vkml.tensor(deep), /past 64 levels/);
  assert.deepEqual(vkml.zeros([2 ** 20, 0]).shape, [2 ** 20, 0]);
});
