// The host cost of one op in JavaScript (issue #19), the cases bench/suite.py times natively: a chain of 64
// one-element adds, and 1,000 adds to a 4-element tensor (chained: the package has no in-place add), each chain
// recorded lazily and then realized by one read. bench/browser_host.mjs runs these in Chromium on its WebGPU device
// and the wasm CPU device.
import { medianMs } from "./median.mjs";

/** Median microseconds per op over `runs` chains of `ops` adds to a tensor of `numel` elements on `device`, after
 * `warmMs` of untimed chains (V8 tiers the wasm up, a GPU compiles its pipelines). */
export async function perOpUs(vkml, device, ops, numel, runs, warmMs = 2000) {
  const starts = [1, 2].map((v) => vkml.full([numel], v, { device }));
  async function chain(i) {
    let t = starts[i % 2];
    for (let k = 0; k < ops; k++) t = t.add(1);
    await t.data();
  }
  return ((await medianMs(chain, runs, warmMs)) * 1000) / ops;
}
