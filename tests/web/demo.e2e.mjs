// End-to-end test of the web demo (examples/web/) in headless Chromium on WebGPU (SwiftShader, no GPU needed):
// serve it with tools/serve.mjs, train a few steps, check the loss fell and the test accuracy is reported, draw a
// "1" with the mouse and check the prediction and its 10 probabilities. Saves tests/out/web/demo.png.
// Usage: node tests/web/demo.e2e.mjs   (needs npm/pkg from tools/npm.sh and playwright-core in $VKML_NODE_TOOLS)
// Exit code 0 when it passes; the last line is a one-line summary.
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { launchChromium, ROOT, startServer } from "./browser.mjs";

const STEPS = 16; // about 6 s each on SwiftShader (Adam's update dominates), a fraction of a second on a GPU
const BATCH = 64;
// SwiftShader runs WebGPU on the CPU: slow, but it must finish. The run took 264-344 s on the 2-core machine of
// 2026-12-07 (docs/performance.md), near the 6 minutes this wait used to allow.
const TRAIN_TIMEOUT_MS = 10 * 60_000;

/** Wait until window.demo.state is "ready"; throws with the page's own error text if it becomes "error". */
async function waitReady(page) {
  const handle = await page.waitForFunction(
    () => ["ready", "error"].includes(window.demo?.state) && window.demo.state,
    null, { timeout: TRAIN_TIMEOUT_MS, polling: 500 });
  if ((await handle.jsonValue()) === "error") {
    throw new Error(`the demo page failed: ${await page.evaluate(() => window.demo.error)}`);
  }
}

function check(ok, what) {
  if (!ok) throw new Error(`check failed: ${what}`);
}

const mean = (a) => a.reduce((s, v) => s + v, 0) / a.length;

const started = Date.now();
let server;
let browser;
try {
  let base;
  [server, base] = await startServer(["/=examples/web", `/vkml/=${process.env.VKML_NPM_PKG ?? "npm"}`]);
  // Playwright gives the browser a fresh temporary profile (its own --user-data-dir) and deletes it on close.
  browser = await launchChromium();
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const consoleLines = [];
  page.on("console", (m) => consoleLines.push(`[${m.type()}] ${m.text()}`));
  page.on("pageerror", (e) => consoleLines.push(`[pageerror] ${e.message}`));
  try {
    await page.goto(`${base}?steps=${STEPS}&batch=${BATCH}`);
    await waitReady(page);
  } catch (e) {
    if (consoleLines.length) console.error(`browser console:\n${consoleLines.join("\n")}`);
    throw e;
  }
  const demo = await page.evaluate(() => window.demo);

  check(/webgpu/i.test(demo.why), `best_device().why mentions WebGPU (it says: ${demo.why})`);
  check(demo.device.startsWith("webgpu"), `the demo trained on WebGPU (device ${demo.device})`);
  check(demo.losses.length === STEPS && demo.losses.every(Number.isFinite), `${STEPS} finite losses`);
  const first = mean(demo.losses.slice(0, 5));
  const last = mean(demo.losses.slice(-5));
  check(last < first, `the loss fell (mean of the first 5: ${first.toFixed(3)}, of the last 5: ${last.toFixed(3)})`);
  check(demo.accuracy > 0.3 && demo.accuracy <= 1, `test accuracy well above chance (${demo.accuracy})`);

  // A "1": one vertical stroke down the middle of the pad.
  const box = await page.locator("#pad").boundingBox();
  await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.15);
  await page.mouse.down();
  for (let i = 1; i <= 20; i++) {
    await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * (0.15 + 0.035 * i));
  }
  await page.mouse.up();
  await page.waitForFunction(() => window.demo.probabilities !== null || window.demo.state === "error", null,
    { timeout: 60_000 });
  const after = await page.evaluate(() => window.demo);
  check(after.state === "ready", `no error after drawing (${after.error})`);
  check(Number.isInteger(after.prediction) && after.prediction >= 0 && after.prediction <= 9,
    `a prediction 0..9 (${after.prediction})`);
  check(after.probabilities.length === 10, "10 probabilities");
  const total = after.probabilities.reduce((s, p) => s + p, 0);
  check(Math.abs(total - 1) < 1e-3, `the probabilities sum to 1 (${total})`);
  check((await page.locator("#bars .bar").count()) === 10, "a bar per class on the page");

  const shot = join(ROOT, "tests/out/web/demo.png");
  mkdirSync(dirname(shot), { recursive: true });
  await page.screenshot({ path: shot, fullPage: true });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`demo e2e passed in ${seconds}s: ${STEPS} steps (batch ${BATCH}), final loss ` +
    `${demo.losses.at(-1).toFixed(3)}, test accuracy ${(100 * demo.accuracy).toFixed(1)}%, drawn "1" → ` +
    `${after.prediction} (p=${after.probabilities[after.prediction].toFixed(2)}); ${demo.why}`);
} catch (e) {
  console.error(`demo e2e FAILED: ${e.message}`);
  process.exitCode = 1;
} finally {
  await browser?.close();
  server?.kill();
}
