"""`vkml.no_grad` and `vkml.enable_grad`: torch's grad-mode context managers and decorators."""

from ._vkml import set_grad_enabled


class no_grad:
    """Context manager and decorator: ops inside record no history (torch.no_grad)."""

    def __enter__(self):
        self._prev = set_grad_enabled(False)

    def __exit__(self, *exc):
        set_grad_enabled(self._prev)

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with self.__class__():
                return fn(*args, **kwargs)

        return wrapped


class enable_grad(no_grad):
    """Context manager and decorator: ops inside record history again (torch.enable_grad)."""

    def __enter__(self):
        self._prev = set_grad_enabled(True)
