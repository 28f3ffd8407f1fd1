// What the browser tests share: tools/serve.mjs on a free port, and Debian's Chromium through playwright-core with
// the flags that give a WebGPU adapter without a GPU (SwiftShader).
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

export const CHROMIUM_ARGS = [
  "--headless", "--no-sandbox", "--enable-unsafe-webgpu", "--use-angle=swiftshader",
  "--use-webgpu-adapter=swiftshader", "--disable-quic", "--no-first-run", "--disable-background-networking",
  "--disable-component-update", "--disable-sync",
];

/** Start tools/serve.mjs with `mounts` ("PREFIX=DIR"); resolves to [process, base URL] once it listens. */
export function startServer(mounts) {
  const server = spawn(process.execPath, [join(ROOT, "tools/serve.mjs"), "--port", "0", ...mounts],
    { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((ok, bad) => {
    let out = "";
    server.stdout.on("data", (chunk) => {
      out += chunk;
      const m = out.match(/serving (http:\/\/\S+)/);
      if (m) ok([server, m[1]]);
    });
    server.on("exit", (code) => bad(new Error(`tools/serve.mjs exited (${code}) before listening: ${out}`)));
  });
}

/** Headless Chromium (Playwright gives it a fresh temporary profile, deleted on close). */
export function launchChromium() {
  const tools = process.env.VKML_NODE_TOOLS;
  if (!tools) throw new Error("VKML_NODE_TOOLS is not set (source tools/setup.sh)");
  const { chromium } = createRequire(join(tools, "node_modules", "/"))("playwright-core");
  return chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
}

/** Serve `mounts`, open `path` in a fresh headless Chromium page and run `body(page)`; both are closed after. */
export async function withPage(mounts, path, body) {
  const [server, base] = await startServer(mounts);
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await page.goto(`${base}${path}`);
    return await body(page);
  } finally {
    await browser.close();
    server.kill();
  }
}
