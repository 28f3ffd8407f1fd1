// The web demo: train an MLP on the shipped MNIST sample with vkml (WebGPU when the browser has it, else the CPU),
// chart the loss live, report test accuracy, then classify digits drawn on a canvas.
// URL parameters (the end-to-end test uses them): ?steps=N (training steps), ?batch=B (batch size), ?cpu=1 (skip
// WebGPU). Progress is mirrored on `window.demo` for tests.

const params = new URLSearchParams(location.search);
const STEPS = positive(params.get("steps"), 300);
const BATCH = positive(params.get("batch"), 64);
const USE_GPU = params.get("cpu") !== "1";
const HIDDEN = 128;
const MEAN = 0.1307; // the usual MNIST normalisation, as examples/mnist.py and torchvision use
const STD = 0.3081;

const demo = {
  state: "loading", device: null, why: null, steps: STEPS, batch: BATCH,
  losses: [], accuracy: null, prediction: null, probabilities: null, error: null,
};
window.demo = demo;

const $ = (id) => document.getElementById(id);

const mean = (a) => a.reduce((s, v) => s + v, 0) / a.length;

function positive(text, fallback) {
  const n = Number(text);
  return text !== null && Number.isInteger(n) && n > 0 ? n : fallback;
}

/** Show an error on the page and in window.demo: a failure must never look like a slow page. */
function fail(err) {
  console.error(err);
  demo.state = "error";
  demo.error = err instanceof Error ? err.message : String(err);
  $("error").textContent = `Error: ${demo.error}`;
  $("error").hidden = false;
}
window.addEventListener("error", (e) => fail(e.error ?? e.message));
window.addEventListener("unhandledrejection", (e) => fail(e.reason));

/** A file of N digits: N*784 uint8 pixels then N uint8 labels (see make_data.py). */
async function loadDigits(url) {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`could not load ${url}: HTTP ${res.status}`);
  const bytes = new Uint8Array(await res.arrayBuffer());
  const n = bytes.length / 785;
  if (!Number.isInteger(n)) throw new Error(`${url}: ${bytes.length} bytes is not a whole number of digits`);
  return { n, pixels: bytes.subarray(0, n * 784), labels: bytes.subarray(n * 784) };
}

// ---- loss chart (plain canvas 2D) -------------------------------------------------------------------------------

function drawChart(losses) {
  const canvas = $("chart");
  const ctx = canvas.getContext("2d");
  const { width: w, height: h } = canvas;
  const pad = { left: 40, right: 10, top: 10, bottom: 24 };
  const top = Math.max(2.5, ...losses); // a fixed scale from 0 to ~ln(10), the loss of a uniform guess
  const x = (i) => pad.left + (i / Math.max(1, STEPS - 1)) * (w - pad.left - pad.right);
  const y = (v) => pad.top + (1 - v / top) * (h - pad.top - pad.bottom);
  ctx.clearRect(0, 0, w, h);
  ctx.font = "11px system-ui, sans-serif";
  ctx.fillStyle = "#5b6670";
  ctx.strokeStyle = "#e3e7eb";
  for (let v = 0; v <= top; v += 0.5) {
    ctx.beginPath();
    ctx.moveTo(pad.left, y(v));
    ctx.lineTo(w - pad.right, y(v));
    ctx.stroke();
    ctx.fillText(v.toFixed(1), 8, y(v) + 4);
  }
  ctx.fillText(`step (of ${STEPS})`, w - pad.right - 80, h - 6);
  ctx.fillText("loss", pad.left + 4, pad.top + 10);
  const line = (values, color, width) => {
    ctx.strokeStyle = color;
    ctx.lineWidth = width;
    ctx.beginPath();
    values.forEach((v, i) => (i ? ctx.lineTo(x(i), y(v)) : ctx.moveTo(x(i), y(v))));
    ctx.stroke();
    ctx.lineWidth = 1;
  };
  // Each batch's loss is noisy; the mean of the last (up to) 10 shows the trend.
  line(losses, "#b8c7d9", 1);
  line(losses.map((_, i) => mean(losses.slice(Math.max(0, i - 9), i + 1))), "#2e86de", 2);
}

// ---- drawing pad → 28×28 MNIST-like digit ----------------------------------------------------------------------

/**
 * The pad's drawing as MNIST's preprocessing made its digits: the ink scaled so its bounding box's longer side is
 * 20 pixels, placed so its centre of mass is the centre of a 28×28 frame, grey levels 0..255. Null when blank.
 */
function toMnist(pad) {
  const { width: w, height: h } = pad;
  const rgba = pad.getContext("2d").getImageData(0, 0, w, h).data;
  const ink = new Float32Array(w * h);
  let x0 = w, y0 = h, x1 = -1, y1 = -1, mass = 0, mx = 0, my = 0;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const v = rgba[4 * (y * w + x)] / 255; // white ink on black: the red channel is the grey level
      if (v === 0) continue;
      ink[y * w + x] = v;
      x0 = Math.min(x0, x), x1 = Math.max(x1, x), y0 = Math.min(y0, y), y1 = Math.max(y1, y);
      mass += v, mx += v * (x + 0.5), my += v * (y + 0.5);
    }
  }
  if (mass === 0) return null;
  const scale = 20 / Math.max(x1 - x0 + 1, y1 - y0 + 1);
  mx /= mass, my /= mass;
  // Each output pixel averages sub×sub samples of the pad: an area average when shrinking, which keeps thin strokes.
  const sub = Math.max(2, Math.ceil(1 / scale));
  const out = new Uint8Array(784);
  for (let v = 0; v < 28; v++) {
    for (let u = 0; u < 28; u++) {
      let sum = 0;
      for (let j = 0; j < sub; j++) {
        for (let i = 0; i < sub; i++) {
          const sx = Math.floor(mx + (u + (i + 0.5) / sub - 14) / scale);
          const sy = Math.floor(my + (v + (j + 0.5) / sub - 14) / scale);
          if (sx >= 0 && sx < w && sy >= 0 && sy < h) sum += ink[sy * w + sx];
        }
      }
      out[v * 28 + u] = Math.round((255 * sum) / (sub * sub));
    }
  }
  return out;
}

function showSeen(digit) {
  const ctx = $("seen").getContext("2d");
  const img = ctx.createImageData(28, 28);
  for (let i = 0; i < 784; i++) {
    const g = digit ? digit[i] : 0;
    img.data.set([g, g, g, 255], 4 * i);
  }
  ctx.putImageData(img, 0, 0);
}

function showProbabilities(probs) {
  const bars = $("bars");
  bars.replaceChildren();
  if (!probs) return;
  const best = probs.indexOf(Math.max(...probs));
  probs.forEach((p, k) => {
    const bar = document.createElement("div");
    bar.className = k === best ? "bar top" : "bar";
    bar.style.width = `${(100 * p).toFixed(1)}%`;
    const track = document.createElement("div");
    track.append(bar);
    const digit = document.createElement("span");
    digit.textContent = k;
    const value = document.createElement("span");
    value.textContent = `${(100 * p).toFixed(1)}%`;
    bars.append(digit, track, value);
  });
}

// ---- main ------------------------------------------------------------------------------------------------------

async function main() {
  // A dynamic import, so that a missing or broken package is reported on the page like any other error.
  const vkml = await import("/vkml/index.js");

  if (USE_GPU) {
    try {
      await vkml.init_webgpu();
    } catch {
      // No WebGPU here: best_device() picks the CPU and its sentence says why.
    }
  }
  const { device, why } = vkml.best_device();
  Object.assign(demo, { device, why });
  $("why").textContent = USE_GPU ? why : "using the CPU (?cpu=1 skips WebGPU)";

  const [train, test] = await Promise.all([loadDigits("data/mnist-train.bin"), loadDigits("data/mnist-test.bin")]);

  // Pixels (a Uint8Array, which vkml widens to int32) are normalised on the device, the same way for training,
  // test and drawn digits.
  const images = (pixels, n) =>
    vkml.tensor(pixels, { shape: [n, 784], device }).float().div(255).sub(MEAN).div(STD);
  // Class indices as int64, torch's dtype for them.
  const labels = (bytes) => vkml.tensor(BigInt64Array.from(bytes, BigInt), { device });

  vkml.manual_seed(0);
  const model = new vkml.nn.Sequential(
    new vkml.nn.Linear(784, HIDDEN), new vkml.nn.ReLU(), new vkml.nn.Linear(HIDDEN, 10),
  ).to(device);
  const opt = new vkml.optim.Adam(model.parameters(), { lr: 1e-3 });

  demo.state = "training";
  let order = [];
  const batchPixels = new Uint8Array(BATCH * 784);
  const batchLabels = new Uint8Array(BATCH);
  const started = performance.now();
  for (let step = 0; step < STEPS; step++) {
    // Batches walk through a fresh random order of the training digits each epoch.
    if (order.length < BATCH) order = shuffle([...order, ...Array.from({ length: train.n }, (_, i) => i)]);
    order.splice(0, BATCH).forEach((k, i) => {
      batchPixels.set(train.pixels.subarray(k * 784, (k + 1) * 784), i * 784);
      batchLabels[i] = train.labels[k];
    });
    const x = images(batchPixels, BATCH);
    const y = labels(batchLabels);
    opt.zero_grad();
    const loss = vkml.nn.cross_entropy(model.forward(x), y);
    loss.backward();
    opt.step();
    // Reading the loss waits for the device; the page repaints meanwhile, so the chart grows step by step.
    demo.losses.push(await loss.item());
    for (const t of [x, y, loss]) t.dispose();
    drawChart(demo.losses);
    const rate = ((step + 1) * BATCH) / ((performance.now() - started) / 1000);
    $("progress").textContent = `step ${step + 1} of ${STEPS} (batch ${BATCH}), ` +
      `loss ${demo.losses.at(-1).toFixed(3)}, ${rate.toFixed(0)} digits/s`;
  }

  const correct = vkml.no_grad(() =>
    model.forward(images(test.pixels, test.n)).argmax(1).eq(labels(test.labels)).float().sum(),
  );
  demo.accuracy = (await correct.item()) / test.n;
  $("accuracy").textContent =
    `Test accuracy: ${(100 * demo.accuracy).toFixed(1)}% on ${test.n} digits of the official MNIST test set.`;

  enablePad(async (digit) => {
    showSeen(digit);
    if (!digit) {
      Object.assign(demo, { prediction: null, probabilities: null });
      $("prediction").textContent = "–";
      showProbabilities(null);
      return;
    }
    const probs = vkml.no_grad(() => model.forward(images(digit, 1)).softmax(1));
    demo.probabilities = Array.from(await probs.data());
    demo.prediction = demo.probabilities.indexOf(Math.max(...demo.probabilities));
    $("prediction").textContent = demo.prediction;
    showProbabilities(demo.probabilities);
  });
  demo.state = "ready";
}

/** Fisher–Yates, in place. */
// The batch order comes from a seeded generator (mulberry32), so a run's losses and accuracy repeat on a device,
// as vkml's own initialisation does after manual_seed.
let seed = 0x5eed;
function random() {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

function shuffle(a) {
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

/** Pointer drawing on the pad (mouse, pen and touch alike); `classify` runs at the end of every stroke. */
function enablePad(classify) {
  const pad = $("pad");
  const ctx = pad.getContext("2d", { willReadFrequently: true }); // toMnist reads it back after every stroke
  const clear = () => {
    ctx.fillStyle = "#000";
    ctx.fillRect(0, 0, pad.width, pad.height);
  };
  // A stroke about a fifteenth of the pad wide becomes MNIST's 2–3 pixel pen once the digit is 20 pixels tall.
  Object.assign(ctx, { strokeStyle: "#fff", lineWidth: 18, lineCap: "round", lineJoin: "round" });
  clear();
  pad.classList.remove("disabled");
  $("hint").textContent = "Draw one digit, large and centred; the guess updates when you lift the pen.";

  const at = (e) => {
    const r = pad.getBoundingClientRect();
    return [((e.clientX - r.left) * pad.width) / r.width, ((e.clientY - r.top) * pad.height) / r.height];
  };
  let drawing = false;
  pad.addEventListener("pointerdown", (e) => {
    drawing = true;
    pad.setPointerCapture(e.pointerId);
    const [x, y] = at(e);
    ctx.beginPath();
    ctx.moveTo(x, y);
    ctx.lineTo(x, y); // a tap leaves a dot
    ctx.stroke();
  });
  pad.addEventListener("pointermove", (e) => {
    if (!drawing) return;
    const [x, y] = at(e);
    ctx.lineTo(x, y);
    ctx.stroke();
  });
  const end = () => {
    if (!drawing) return;
    drawing = false;
    classify(toMnist(pad)).catch(fail);
  };
  pad.addEventListener("pointerup", end);
  pad.addEventListener("pointercancel", end);
  $("clear").addEventListener("click", () => {
    clear();
    classify(null).catch(fail);
  });
}

main().catch(fail);
