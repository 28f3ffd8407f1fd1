// The host cost of one op in headless Chromium (issue #19: "measure the per-op host cost on WebGPU in Chromium
// too"), on the page's WebGPU device and on the wasm CPU device, with bench/host_ops.mjs's cases.
// Usage: node bench/browser_host.mjs [runs]  (after `source tools/setup.sh` with VKML_SETUP_FOR=test; env
// VKML_NPM_PKG: the package folder, default npm/, built by tools/npm.sh). Chromium here runs WebGPU on SwiftShader,
// a CPU implementation, so its figures say what the host pays around each op, not what a GPU would.
import { resolve } from "node:path";
import { ROOT, withPage } from "../tests/web/browser.mjs";

const pkg = resolve(ROOT, process.env.VKML_NPM_PKG ?? "npm");
const runs = Number(process.argv[2] ?? 20);
const [rows, agent] = await withPage([`/vkml/=${pkg}`, `/bench/=${resolve(ROOT, "bench")}`], "bench/host_ops.mjs",
  (page) => page.evaluate(async (n) => {
    const vkml = await import("/vkml/index.js");
    const { perOpUs } = await import("/bench/host_ops.mjs");
    const gpu = await vkml.init_webgpu().then(() => vkml.best_device().device, () => null);
    const rows = [];
    for (const device of ["cpu", gpu].filter(Boolean)) {
      rows.push([device, "64 chained one-element adds", await perOpUs(vkml, device, 64, 1, n)]);
      rows.push([device, "1,000 chained adds to 4 elements", await perOpUs(vkml, device, 1000, 4, n)]);
    }
    return [rows, navigator.userAgent];
  }, runs));
const version = agent.match(/Chrome\/(\S+)/)?.[1] ?? agent;
for (const [device, name, us] of rows) {
  console.log(`Chromium ${version}, ${device}: ${name}: ${us.toFixed(1)} µs per op (median of ${runs} chains)`);
}
