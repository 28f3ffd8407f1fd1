// The wasm CPU device's MLP training step in headless Chromium (issue #22; the step is bench/mlp_step.mjs, as in
// bench/node_mlp.mjs): the package served beside this folder, imported by a page, the step timed there.
// Usage: node bench/browser_mlp.mjs [steps]  (after `source tools/setup.sh` with VKML_SETUP_FOR=test, which
// installs Chromium and playwright-core; env VKML_NPM_PKG: the package folder, default npm/, built by tools/npm.sh)
import { resolve } from "node:path";
import { ROOT, withPage } from "../tests/web/browser.mjs";

const pkg = resolve(ROOT, process.env.VKML_NPM_PKG ?? "npm");
const steps = Number(process.argv[2] ?? 30);
const [ms, agent] = await withPage([`/vkml/=${pkg}`, `/bench/=${resolve(ROOT, "bench")}`], "bench/mlp_step.mjs",
  (page) => page.evaluate(async (n) => {
    const vkml = await import("/vkml/index.js");
    const { mlpStepMs } = await import("/bench/mlp_step.mjs");
    return [await mlpStepMs(vkml, n), navigator.userAgent];
  }, steps));
const version = agent.match(/Chrome\/(\S+)/)?.[1] ?? agent;
console.log(`wasm cpu MLP Adam step, batch 64, Chromium ${version}: ${ms.toFixed(3)} ms (median of ${steps})`);
