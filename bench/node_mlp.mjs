// The wasm CPU device's MLP training step in Node (issue #22; the step is bench/mlp_step.mjs). Compare with the
// native `cpu` device on one thread:
//   RAYON_NUM_THREADS=1 PYTHONPATH=.pyinstall python bench/suite.py --device cpu (its "MLP train step" row),
// and with Chromium's: node bench/browser_mlp.mjs.
// Usage: node bench/node_mlp.mjs [steps]  (env VKML_NPM_PKG: the package folder, default npm/, built by tools/npm.sh)
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { mlpStepMs } from "./mlp_step.mjs";

const ROOT = resolve(import.meta.dirname, "..");
const pkg = resolve(ROOT, process.env.VKML_NPM_PKG ?? "npm");
const vkml = await import(pathToFileURL(resolve(pkg, "index.js")).href);
const steps = Number(process.argv[2] ?? 30);
const ms = await mlpStepMs(vkml, steps);
console.log(`wasm cpu MLP Adam step, batch 64, Node ${process.version}: ${ms.toFixed(3)} ms (median of ${steps})`);
