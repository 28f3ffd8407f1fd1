// Trains a small network in a module Web Worker, off the page's main thread, so the page stays responsive while the
// engine runs: the same package, imported the same way as in a page. Posts { kind: "device", why }, then
// { kind: "step", step, loss } per step, then { kind: "done", seconds }, or { kind: "error", message }.
// URL parameters of the worker script: ?steps=N (default 20), ?cpu=1 (skip WebGPU).
const params = new URL(self.location.href).searchParams;
const STEPS = Math.max(1, Number(params.get("steps")) || 20);

try {
  const vkml = await import("/vkml/index.js");
  if (params.get("cpu") !== "1") {
    try {
      await vkml.init_webgpu();
    } catch {
      // No WebGPU in this worker: best_device() picks the CPU and says why.
    }
  }
  const { device, why } = vkml.best_device();
  self.postMessage({ kind: "device", why });
  vkml.manual_seed(0);
  const { nn, optim } = vkml;
  const model = new nn.Sequential(new nn.Linear(784, 32), new nn.ReLU(), new nn.Linear(32, 10)).to(device);
  const opt = new optim.Adam(model.parameters(), { lr: 1e-2 });
  // One fixed batch of 32 random images with labels 0..9: the loss must fall as the model fits it.
  const x = vkml.randn([32, 784], { device });
  const y = vkml.tensor(Array.from({ length: 32 }, (_, i) => i % 10), { dtype: "int64", device });
  const started = performance.now();
  for (let step = 1; step <= STEPS; step++) {
    opt.zero_grad();
    const loss = nn.cross_entropy(model.forward(x), y);
    loss.backward();
    opt.step();
    self.postMessage({ kind: "step", step, loss: await loss.item() });
    loss.dispose();
  }
  self.postMessage({ kind: "done", seconds: (performance.now() - started) / 1000 });
} catch (e) {
  self.postMessage({ kind: "error", message: String(e?.stack ?? e) });
}
