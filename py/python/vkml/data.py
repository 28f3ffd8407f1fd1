"""`vkml.data`: Dataset, TensorDataset and DataLoader, shaped like torch.utils.data. Batches are gathered on the
host with NumPy (one upload per field per batch), so loading never becomes one device op per sample."""

import numpy as np

from . import _vkml
from ._vkml import Tensor

_rng = np.random.default_rng(0)


def reseed(seed):
    """Called by `vkml.manual_seed`: loaders without their own generator shuffle reproducibly after it."""
    global _rng
    _rng = np.random.default_rng(seed)


class Dataset:
    def __getitem__(self, index):
        raise NotImplementedError

    def __len__(self):
        raise NotImplementedError


def _host(x):
    if isinstance(x, Tensor):
        return x.numpy() if x.dtype.name != "bfloat16" else x.float().numpy()
    if hasattr(x, "detach") and hasattr(x, "cpu"):  # a torch tensor
        return x.detach().cpu().numpy()
    return np.asarray(x)


class TensorDataset(Dataset):
    """Samples are the i-th rows of each array (vkml tensors, NumPy arrays or torch tensors, kept on the host)."""

    def __init__(self, *tensors):
        if not tensors:
            raise ValueError("TensorDataset needs at least one tensor")
        self.arrays = [_host(t) for t in tensors]
        n = len(self.arrays[0])
        if any(len(a) != n for a in self.arrays):
            raise ValueError("Size mismatch between tensors")

    def __len__(self):
        return len(self.arrays[0])

    def __getitem__(self, index):
        return tuple(_vkml.from_numpy(np.asarray(a[index], order="C")) for a in self.arrays)

    def __getitems__(self, indices):
        """A whole batch at once: one NumPy gather per field (DataLoader prefers this)."""
        idx = np.asarray(indices, dtype=np.int64)
        return tuple(_vkml.from_numpy(np.asarray(a[idx], order="C")) for a in self.arrays)


def default_collate(samples):
    """Stack a list of samples: tensors and arrays stack on a new first dim; tuples, lists and dicts per field."""
    first = samples[0]
    if isinstance(first, dict):
        return {k: default_collate([s[k] for s in samples]) for k in first}
    if isinstance(first, (tuple, list)):
        return (
            type(first)(default_collate(list(f)) for f in zip(*samples))
            if isinstance(first, tuple)
            else [default_collate(list(f)) for f in zip(*samples)]
        )
    if isinstance(first, Tensor):
        return _vkml.stack(list(samples))
    if isinstance(first, (int, np.integer)) and not isinstance(first, bool):
        return _vkml.from_numpy(np.asarray(samples, dtype=np.int64))
    if isinstance(first, (float, np.floating)):
        return _vkml.from_numpy(np.asarray(samples, dtype=np.float32))
    if isinstance(first, np.ndarray):
        return _vkml.from_numpy(np.asarray(np.stack(samples), order="C"))
    return samples


class DataLoader:
    """Batches of a dataset: `batch_size`, `shuffle` (with `generator`: a seed or a NumPy Generator), `drop_last`,
    `collate_fn`."""

    def __init__(self, dataset, batch_size=1, shuffle=False, drop_last=False, collate_fn=None, generator=None):
        if batch_size is None or batch_size < 1:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        self.dataset, self.batch_size, self.shuffle, self.drop_last = dataset, batch_size, shuffle, drop_last
        self.collate_fn = collate_fn
        self.generator = np.random.default_rng(generator) if isinstance(generator, int) else generator

    def __len__(self):
        n = len(self.dataset)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)

    def __iter__(self):
        n = len(self.dataset)
        order = (self.generator or _rng).permutation(n) if self.shuffle else np.arange(n)
        for start in range(0, n, self.batch_size):
            idx = order[start : start + self.batch_size]
            if self.drop_last and len(idx) < self.batch_size:
                return
            if self.collate_fn is None and hasattr(self.dataset, "__getitems__"):
                yield self.dataset.__getitems__(idx)
            else:
                collate = self.collate_fn or default_collate
                yield collate([self.dataset[int(i)] for i in idx])
