"""Fits the erf/erfc polynomials in shaders/special.wgsl.in and prints them as WGSL constants.

erf(x)/x is fitted as a polynomial in x² on [0, 1]; erfcx(x) = erfc(x)·exp(x²) as a polynomial in x − 1.25 on
[0.5, 2]; x·erfcx(x) as a polynomial in 1/x on [2, 10.5] (erfc underflows beyond). Each is an iteratively
reweighted least-squares fit of the relative error on Chebyshev nodes (near-minimax), against mpmath at 30 digits;
the script also evaluates each polynomial by Horner's rule in float32 and prints the worst relative error there.
Run: python tools/fit_erfc.py (needs numpy and mpmath, which the test venv has through torch)."""

import mpmath
import numpy as np

mpmath.mp.dps = 30
f32 = np.float32


def fit(f, var, lo, hi, deg, n=500):
    k = np.arange(n)
    x = (lo + hi) / 2 + (hi - lo) / 2 * np.cos(np.pi * (k + 0.5) / n)
    y = np.array([float(f(mpmath.mpf(float(v)))) for v in x])
    a = np.vstack([var(x) ** i for i in range(deg + 1)]).T
    w, ww = 1 / np.abs(y), np.ones(n)
    for _ in range(40):
        c = np.linalg.lstsq(a * (w * np.sqrt(ww))[:, None], y * w * np.sqrt(ww), rcond=None)[0]
        ww *= np.abs((a @ c - y) / y) ** 0.5 + 1e-30
        ww /= ww.max()
    return [f32(v) for v in c[::-1]]


def horner(c, v):
    y = c[0]
    for a in c[1:]:
        y = f32(f32(y * v) + a)
    return y


def report(name, f, c, var32, lo, hi):
    worst = 0.0
    for x in np.linspace(lo, hi, 3001).astype(f32):
        ref = float(f(mpmath.mpf(float(x))))
        worst = max(worst, abs(float(horner(c, var32(x))) - ref) / abs(ref) / 2.0**-24)
    print(f"// {name}: worst float32 Horner error {worst:.2f}·2⁻²⁴ relative on [{lo}, {hi}]")
    print(f"const {name} = array<f32, {len(c)}>({', '.join(repr(float(v)) for v in c)});")


def erf_over_x(x):
    return mpmath.erf(x) / x if x else 2 / mpmath.sqrt(mpmath.pi)


def erfcx(x):
    return mpmath.erfc(x) * mpmath.exp(x * x)


report("ERF_P", erf_over_x, fit(erf_over_x, lambda x: x * x, 1e-6, 1.0, 6), lambda x: f32(x * x), 1e-3, 1.0)
report("ERFC_A", erfcx, fit(erfcx, lambda x: x - 1.25, 0.5, 2.0, 10), lambda x: f32(x - f32(1.25)), 0.5, 2.0)
report(
    "ERFC_B",
    lambda x: erfcx(x) * x,
    fit(lambda x: erfcx(x) * x, lambda x: 1 / x, 2.0, 10.5, 9),
    lambda x: f32(f32(1) / x),
    2.0,
    10.5,
)
