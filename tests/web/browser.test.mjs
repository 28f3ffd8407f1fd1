// The browser suite: headless Chromium on WebGPU (SwiftShader) runs the shared checks (checks.mjs) from page.html on
// "webgpu" and on "webgpu:floor" (the Vulkan 1.3 ∩ WebGPU limits), each against torch's fixtures and the CPU oracle;
// then the Web Worker example (examples/web/worker.html) trains off the page's main thread, and an app bundled by
// esbuild and one built by Vite import the package and train two steps.
// Usage: node --test tests/web/browser.test.mjs  (env: VKML_NODE_TOOLS; VKML_NPM_PKG, the package folder, default
// npm/; VKML_WEB_FIXTURES, the folder of fixtures.json, default tests/out/web)
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { withPage } from "./browser.mjs";

test("the checks pass on WebGPU in Chromium", { timeout: 15 * 60_000 }, async () => {
  const pkg = process.env.VKML_NPM_PKG ?? "npm";
  const fixtures = process.env.VKML_WEB_FIXTURES ?? "tests/out/web";
  const mounts = ["/=tests/web", `/tests/=tests/web`, `/vkml/=${pkg}`, `/fixtures/=${fixtures}`];
  const errors = [];
  const results = await withPage(mounts, "page.html", async (page) => {
    page.on("pageerror", (e) => errors.push(e.message));
    await page.waitForFunction(() => window.results !== null, null, { timeout: 14 * 60_000, polling: 500 });
    return page.evaluate(() => window.results);
  });
  assert.equal(results.error, undefined, `the page failed: ${results.error}\n${errors.join("\n")}`);
  assert.match(results.why, /^using WebGPU/);
  for (const [device, r] of Object.entries(results.devices)) {
    console.log(`${device}: ${r.passed} checks passed in ${r.seconds.toFixed(1)} s; ${r.ops.length} ops verified: ` +
      `${r.ops.join(" ")}`);
    assert.deepEqual(r.failures, [], `${device}: ${r.failures.length} checks failed`);
  }
});

test("a module Web Worker trains on WebGPU while the page's main thread runs (examples/web/worker.html)",
  { timeout: 5 * 60_000 }, async () => {
    const mounts = ["/=examples/web", `/vkml/=${process.env.VKML_NPM_PKG ?? "npm"}`];
    const w = await withPage(mounts, "worker.html?steps=6", async (page) => {
      const finished = () => window.worker?.state !== "running";
      await page.waitForFunction(finished, null, { timeout: 4 * 60_000, polling: 500 });
      return page.evaluate(() => window.worker);
    });
    assert.equal(w.error, null, `the worker failed: ${w.error}`);
    assert.equal(w.state, "done");
    assert.match(w.why, /^using WebGPU/);
    assert.equal(w.losses.length, 6);
    assert.ok(w.losses.at(-1) < w.losses[0], `the loss did not fall: ${w.losses.join(", ")}`);
    assert.ok(w.ticks > 0, "the main thread's counter never ticked");
    const losses = w.losses.map((v) => v.toFixed(3)).join(" ");
    console.log(`worker: ${w.why}; losses ${losses}; main-thread ticks ${w.ticks}`);
  });

// The app a user writes: `import * as vkml from "vkml"`, WebGPU, two Adam steps; the page reads window.result.
const APP = `import * as vkml from "vkml";
try {
  await vkml.init_webgpu();
  const { device, why } = vkml.best_device();
  const model = new vkml.nn.Linear(8, 2).to(device);
  const opt = new vkml.optim.Adam(model.parameters(), { lr: 0.1 });
  const x = vkml.randn([16, 8], { device });
  const y = vkml.tensor(Array.from({ length: 16 }, (_, i) => i % 2), { dtype: "int64", device });
  const losses = [];
  for (let step = 0; step < 2; step++) {
    opt.zero_grad();
    const loss = vkml.nn.cross_entropy(model.forward(x), y);
    loss.backward();
    opt.step();
    losses.push(await loss.item());
  }
  window.result = { why, losses };
} catch (e) {
  window.result = { error: String(e?.stack ?? e) };
}
`;

/** Serve `dir`, open its index.html in Chromium and check the bundled app trained on WebGPU. */
async function appTrains(dir, bundler) {
  const r = await withPage([`/=${dir}`], "index.html", async (page) => {
    await page.waitForFunction(() => window.result !== undefined, null, { timeout: 2 * 60_000, polling: 250 });
    return page.evaluate(() => window.result);
  });
  assert.equal(r.error, undefined, `the ${bundler} app failed: ${r.error}`);
  assert.match(r.why, /^using WebGPU/);
  assert.ok(r.losses[1] < r.losses[0], `the loss did not fall: ${r.losses.join(", ")}`);
  console.log(`${bundler} app: ${r.why}; losses ${r.losses.map((v) => v.toFixed(3)).join(" ")}`);
}

/** A fresh folder holding the app and its page, removed after `body(dir)`. */
async function inAppFolder(body) {
  const dir = mkdtempSync(join(tmpdir(), "vkml-app-"));
  try {
    writeFileSync(join(dir, "app.js"), APP);
    writeFileSync(join(dir, "index.html"), '<!doctype html><script type="module" src="./app.js"></script>');
    await body(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const tools = () => createRequire(join(process.env.VKML_NODE_TOOLS, "node_modules", "/"));

test("an app bundled by esbuild imports the package and trains on WebGPU", { timeout: 3 * 60_000 }, async () => {
  const pkg = resolve(process.env.VKML_NPM_PKG ?? "npm");
  const { build } = tools()("esbuild");
  await inAppFolder(async (dir) => {
    const out = join(dir, "out");
    await build({ entryPoints: [join(dir, "app.js")], bundle: true, format: "esm", platform: "browser", outdir: out,
      alias: { vkml: pkg }, logLevel: "error" });
    // esbuild leaves `new URL("./pkg/vkml_web_bg.wasm", import.meta.url)` as it is: the wasm goes beside the bundle.
    mkdirSync(join(out, "pkg"));
    copyFileSync(join(pkg, "pkg", "vkml_web_bg.wasm"), join(out, "pkg", "vkml_web_bg.wasm"));
    copyFileSync(join(dir, "index.html"), join(out, "index.html"));
    await appTrains(out, "esbuild");
  });
});

test("an app built by Vite imports the package and trains on WebGPU", { timeout: 3 * 60_000 }, async () => {
  const pkg = resolve(process.env.VKML_NPM_PKG ?? "npm");
  // Vite's Node API is an ES module: import it by the path its package resolves to.
  const { build } = await import(pathToFileURL(tools().resolve("vite")).href);
  await inAppFolder(async (dir) => {
    const out = join(dir, "dist");
    // Vite turns the wasm's `new URL(…, import.meta.url)` into an asset of its own: nothing to copy.
    await build({ root: dir, configFile: false, logLevel: "error", resolve: { alias: { vkml: pkg } },
      build: { outDir: out } });
    await appTrains(out, "Vite");
  });
});
