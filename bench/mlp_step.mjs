// The MLP training step both wasm benchmarks time (issue #22): 784-128-10, Adam, batch 64 on the package's CPU
// device, the median of timed steps each ended by reading the loss. Node (bench/node_mlp.mjs) and Chromium
// (bench/browser_mlp.mjs) import this same module, so the two figures time the same code.
import { medianMs } from "./median.mjs";

/** The median milliseconds of `steps` steps with the package `vkml`, after `warmMs` of untimed ones: V8 first runs
 * the wasm module's functions on its baseline compiler and recompiles the hot ones with its optimizing one in the
 * background, which on two cores took a few hundred steps (the first steps ran half as fast). */
export async function mlpStepMs(vkml, steps, warmMs = 3000) {
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
  return medianMs(step, steps, warmMs);
}
