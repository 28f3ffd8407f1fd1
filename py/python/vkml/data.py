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


def default_collate(batch):
    """Stack a list of samples: tensors and arrays stack on a new first dim; tuples, lists and dicts per field."""
    first = batch[0]
    if isinstance(first, dict):
        return {k: default_collate([s[k] for s in batch]) for k in first}
    if isinstance(first, (tuple, list)):
        return (
            type(first)(default_collate(list(f)) for f in zip(*batch))
            if isinstance(first, tuple)
            else [default_collate(list(f)) for f in zip(*batch)]
        )
    if isinstance(first, Tensor):
        return _vkml.stack(list(batch))
    if isinstance(first, (int, np.integer)) and not isinstance(first, bool):
        return _vkml.from_numpy(np.asarray(batch, dtype=np.int64))
    if isinstance(first, (float, np.floating)):
        return _vkml.from_numpy(np.asarray(batch, dtype=np.float32))
    if isinstance(first, np.ndarray):
        return _vkml.from_numpy(np.asarray(np.stack(batch), order="C"))
    return batch


class DataLoader:
    """Batches of a dataset, with torch's parameters in torch's order: `batch_size`, `shuffle` (with `generator`: a
    seed or a NumPy Generator), `sampler` (indices), `batch_sampler` (lists of indices), `collate_fn`, `drop_last`.
    Batches are loaded in this process whatever `num_workers` says: torch's workers return the same batches in the
    same order, so `num_workers`, `timeout`, `prefetch_factor`, `persistent_workers`, `multiprocessing_context`,
    `in_order` and the pinning options change only how torch loads them (`worker_init_fn`, run in each worker process
    in torch, is never called: there are no workers)."""

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None, persistent_workers=False,
                 pin_memory_device="", in_order=True):  # fmt: skip
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last"
                )
            batch_size = None
        elif batch_size is None or batch_size < 1:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        self.dataset, self.batch_size, self.shuffle, self.drop_last = dataset, batch_size, bool(shuffle), drop_last
        self.sampler, self.batch_sampler, self.num_workers = sampler, batch_sampler, num_workers
        self.collate_fn = collate_fn
        self.generator = np.random.default_rng(generator) if isinstance(generator, int) else generator

    def __len__(self):
        if self.batch_sampler is not None:
            return len(self.batch_sampler)
        n = len(self.sampler) if self.sampler is not None else len(self.dataset)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)

    def _batches(self):
        if self.batch_sampler is not None:
            yield from (np.asarray(list(b), dtype=np.int64) for b in self.batch_sampler)
            return
        if self.sampler is not None:
            order = np.asarray(list(self.sampler), dtype=np.int64)
        else:
            n = len(self.dataset)
            order = (self.generator or _rng).permutation(n) if self.shuffle else np.arange(n)
        for start in range(0, len(order), self.batch_size):
            idx = order[start : start + self.batch_size]
            if self.drop_last and len(idx) < self.batch_size:
                return
            yield idx

    def __iter__(self):
        for idx in self._batches():
            if self.collate_fn is None and hasattr(self.dataset, "__getitems__"):
                yield self.dataset.__getitems__(idx)
            else:
                collate = self.collate_fn or default_collate
                yield collate([self.dataset[int(i)] for i in idx])
