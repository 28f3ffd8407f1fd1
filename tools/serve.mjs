// A tiny static file server for the web demo and the browser tests (no dependencies: only Node's http module).
// Bound to 127.0.0.1. Each mount maps a URL prefix to a folder of the repository; the longest prefix wins.
// Usage: node tools/serve.mjs [--port N] [PREFIX=DIR ...]
//   default port: $PORT or 8080 (0 picks a free one); default mounts: /=examples/web /vkml/=npm
//   e.g. node tools/serve.mjs --port 0 /=examples/web /vkml/=npm /tests/=tests/web
// Prints "serving http://127.0.0.1:PORT/" once listening (the tests wait for that line).
import { createServer } from "node:http";
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { dirname, extname, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

const MIME = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".md": "text/markdown; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
  ".ts": "text/plain; charset=utf-8",
  ".wasm": "application/wasm",
  ".png": "image/png",
  ".svg": "image/svg+xml",
  ".ico": "image/x-icon",
  ".bin": "application/octet-stream",
  ".safetensors": "application/octet-stream",
};

function parseArgs(argv) {
  let port = Number(process.env.PORT ?? 8080);
  const mounts = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--port") port = Number(argv[++i]);
    else if (argv[i].includes("=")) {
      const [prefix, dir] = argv[i].split("=", 2);
      if (!prefix.startsWith("/")) throw new Error(`mount prefix must start with '/': ${argv[i]}`);
      mounts.push({ prefix: prefix.endsWith("/") ? prefix : `${prefix}/`, dir: resolve(ROOT, dir) });
    } else throw new Error(`unknown argument ${argv[i]} (usage: node tools/serve.mjs [--port N] [PREFIX=DIR ...])`);
  }
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`bad port ${port}`);
  if (mounts.length === 0) {
    mounts.push({ prefix: "/", dir: resolve(ROOT, "examples/web") }, { prefix: "/vkml/", dir: resolve(ROOT, "npm") });
  }
  mounts.sort((a, b) => b.prefix.length - a.prefix.length);
  return { port, mounts };
}

/** The file a URL path names, or null when no mount holds it or it would escape its mount's folder. */
function locate(mounts, urlPath) {
  let path;
  try {
    path = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (path.includes("\0")) return null;
  if (path.endsWith("/")) path += "index.html";
  for (const { prefix, dir } of mounts) {
    if (!path.startsWith(prefix)) continue;
    const file = resolve(dir, `.${path.slice(prefix.length - 1)}`);
    return file === dir || file.startsWith(dir + sep) ? file : null;
  }
  return null;
}

const { port, mounts } = parseArgs(process.argv.slice(2));

const server = createServer(async (req, res) => {
  const send = (code, text) => {
    res.writeHead(code, { "content-type": "text/plain; charset=utf-8" });
    res.end(`${text}\n`);
  };
  if (req.method !== "GET" && req.method !== "HEAD") return send(405, "method not allowed");
  const file = locate(mounts, new URL(req.url, "http://localhost").pathname);
  const info = file && (await stat(file).catch(() => null));
  if (!info || !info.isFile()) return send(404, "not found");
  res.writeHead(200, {
    "content-type": MIME[extname(file).toLowerCase()] ?? "application/octet-stream",
    "content-length": info.size,
    // Rebuilt files (npm/pkg) must be picked up on reload.
    "cache-control": "no-cache",
  });
  if (req.method === "HEAD") return res.end();
  createReadStream(file).pipe(res);
});

server.listen(port, "127.0.0.1", () => {
  const url = `http://127.0.0.1:${server.address().port}/`;
  const shown = mounts.map((m) => `${m.prefix} → ${m.dir}`).join(", ");
  console.log(`serving ${url} (${shown})`);
});
