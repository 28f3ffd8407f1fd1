// The wasm CPU device's MLP training step in Node (issue #22): 784-128-10, Adam, batch 64, the median of timed
// steps each ended by reading the loss. Compare with the native `cpu` device on one thread:
//   RAYON_NUM_THREADS=1 PYTHONPATH=.pyinstall python bench/suite.py --device cpu (its "MLP train step" row).
// Usage: node bench/node_mlp.mjs [steps]  (env VKML_NPM_PKG: the package folder, default npm/, built by tools/npm.sh)
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const ROOT = resolve(import.meta.dirname, "..");
const pkg = resolve(ROOT, process.env.VKML_NPM_PKG ?? "npm");
const vkml = await import(pathToFileURL(resolve(pkg, "index.js")).href);
const steps = Number(process.argv[2] ?? 30);

const { nn } = vkml;
const model = new nn.Sequential(new nn.Linear(784, 128), new nn.ReLU(), new nn.Linear(128, 10)).to("cpu");
const opt = new vkml.optim.Adam(model.parameters(), { lr: 1e-3 });
const batches = [0, 1].map((b) => {
  const x = Float32Array.from({ length: 64 * 784 }, (_, i) => Math.sin(i * 0.37 + b));
  const y = BigInt64Array.from({ length: 64 }, (_, i) => BigInt((i * 7 + b) % 10));
  return [vkml.tensor(x, { shape: [64, 784], dtype: "float32", device: "cpu" }), vkml.tensor(y, { device: "cpu" })];
});

async function step(i) {
  const [x, y] = batches[i % 2];
  opt.zero_grad();
  const loss = vkml.nn.cross_entropy(model.forward(x), y);
  vkml.backward(loss);
  opt.step();
  return loss.item();
}

for (let i = 0; i < 5; i++) await step(i);
const times = [];
for (let i = 0; i < steps; i++) {
  const t0 = performance.now();
  await step(i);
  times.push(performance.now() - t0);
}
times.sort((a, b) => a - b);
console.log(`wasm cpu MLP Adam step, batch 64: ${times[times.length >> 1].toFixed(3)} ms (median of ${steps})`);
