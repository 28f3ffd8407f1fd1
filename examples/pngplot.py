"""A small PNG line chart with NumPy and zlib only (the example must run where matplotlib is not installed)."""

import struct
import zlib

import numpy as np

# 5x7 digits, '.', '%' and a few letters for axis labels; each glyph is 7 rows of 5 bits.
_GLYPHS = {
    "0": "01110 10001 10011 10101 11001 10001 01110",
    "1": "00100 01100 00100 00100 00100 00100 01110",
    "2": "01110 10001 00001 00010 00100 01000 11111",
    "3": "11110 00001 00001 01110 00001 00001 11110",
    "4": "00010 00110 01010 10010 11111 00010 00010",
    "5": "11111 10000 11110 00001 00001 10001 01110",
    "6": "00110 01000 10000 11110 10001 10001 01110",
    "7": "11111 00001 00010 00100 01000 01000 01000",
    "8": "01110 10001 10001 01110 10001 10001 01110",
    "9": "01110 10001 10001 01111 00001 00010 01100",
    ".": "00000 00000 00000 00000 00000 01100 01100",
    "%": "11001 11010 00010 00100 01000 01011 10011",
    " ": "00000 00000 00000 00000 00000 00000 00000",
    "-": "00000 00000 00000 11111 00000 00000 00000",
}


def _text(img, x, y, s, color):
    for ch in s:
        rows = _GLYPHS.get(ch, _GLYPHS[" "]).split()
        for r, bits in enumerate(rows):
            for c, b in enumerate(bits):
                if b == "1" and 0 <= y + r < img.shape[0] and 0 <= x + c < img.shape[1]:
                    img[y + r, x + c] = color
        x += 6


def _line(img, x0, y0, x1, y1, color):
    n = int(max(abs(x1 - x0), abs(y1 - y0))) + 1
    xs = np.linspace(x0, x1, n).round().astype(int)
    ys = np.linspace(y0, y1, n).round().astype(int)
    ok = (xs >= 0) & (xs < img.shape[1]) & (ys >= 0) & (ys < img.shape[0])
    img[ys[ok], xs[ok]] = color
    img[np.clip(ys[ok] + 1, 0, img.shape[0] - 1), xs[ok]] = color


def _panel(img, x, y, w, h, series, colors):
    img[y : y + h, x] = 0
    img[y + h - 1, x : x + w] = 0
    vals = np.concatenate([np.asarray(s, float) for s in series if len(s)]) if any(len(s) for s in series) else [0, 1]
    lo, hi = float(np.min(vals)), float(np.max(vals))
    hi = hi if hi > lo else lo + 1
    _text(img, x + 3, y + 2, f"{hi:.3g}", 0)
    _text(img, x + 3, y + h - 10, f"{lo:.3g}", 0)
    for s, color in zip(series, colors):
        s = np.asarray(s, float)
        if len(s) < 2:
            continue
        px = x + 1 + np.arange(len(s)) * (w - 2) / (len(s) - 1)
        py = y + h - 2 - (s - lo) / (hi - lo) * (h - 4)
        for i in range(len(s) - 1):
            _line(img, px[i], py[i], px[i + 1], py[i + 1], color)


def write_chart(path, loss, acc, width=640, height=300):
    """Two panels side by side: training loss per step (blue), and test accuracy per epoch in % (green)."""
    img = np.full((height, width, 3), 255, np.uint8)
    half = width // 2
    _panel(img, 10, 10, half - 20, height - 20, [loss], [(30, 80, 200)])
    _panel(img, half + 10, 10, half - 20, height - 20, [[100 * a for a in acc]], [(20, 150, 60)])
    if acc:
        _text(img, width - 70, height - 30, f"{100 * acc[-1]:.2f}%", 0)
    raw = b"".join(b"\x00" + img[r].tobytes() for r in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
    with open(path, "wb") as f:
        f.write(png)
