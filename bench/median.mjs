// How the JavaScript benchmarks time a case: untimed runs for a while first, then the median of timed ones.

/** The median milliseconds of `count` runs of `run(i)` (awaited), after `warmMs` of untimed runs. */
export async function medianMs(run, count, warmMs) {
  for (let i = 0, until = performance.now() + warmMs; performance.now() < until; i++) await run(i);
  const times = [];
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    await run(i);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[times.length >> 1];
}
