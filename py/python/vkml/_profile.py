"""`vkml.profile()`: where the time goes, kernel by kernel (vkml_core::backend::profile)."""

from . import _vkml


class profile:
    """Record every kernel the devices run and every realization, while the block runs:

        with vkml.profile() as p:
            loss = model(x).sum()
            loss.backward()
            vkml.synchronize()
        print(p.table())
        p.export_chrome_trace("trace.json")  # Perfetto (ui.perfetto.dev) or chrome://tracing opens it

    Work is lazy: what the block realizes is recorded (a read, `.item()`, `vkml.synchronize()` or `vkml.realize`),
    and `synchronize()` runs when the block starts, so that earlier work is not counted. Where a device has
    timestamp queries each kernel runs in a pass of its own that times it; elsewhere (the floor, the CPU) kernels are
    listed without device time and `notes` says why."""

    def __init__(self):
        self._session = None

    def __enter__(self):
        _vkml.synchronize()
        _vkml._profile_start()
        return self

    def __exit__(self, *exc):
        try:
            _vkml.synchronize()
        finally:
            self._session = _vkml._profile_stop()
        return False

    def _done(self):
        if self._session is None:
            raise RuntimeError("the profile is still recording: read it after its `with` block")
        return self._session

    def table(self) -> str:
        """Where the time went: kernels grouped by op, pipeline, shape and dtype, the most device time first, with
        their share, calls and GB/s (TFLOP/s for products); then the totals and the notes."""
        return self._done()["table"]

    def export_chrome_trace(self, path) -> None:
        """Write the Chrome trace-event JSON: realizations on the host track, timed kernels on one per device."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(self._done()["chrome_trace"])

    def __getattr__(self, name):
        """`kernels` (one dict per kernel: device, op, pipeline, shape, dtype, inputs, bytes, flops, batch, device_ms
        and start_ms, the last two None where not measured), `device_ms` and `host_ms` (the sums), `realizations`
        (each one's host ms) and `notes` (what could not be measured)."""
        if name in ("kernels", "device_ms", "host_ms", "realizations", "notes"):
            return self._done()[name]
        raise AttributeError(f"'profile' object has no attribute '{name}'")
