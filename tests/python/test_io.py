"""vkml.save and vkml.load (issue #20): the format told from the whole header (a safetensors header length may begin
with the pickle byte 0x80), keys read back in one fixed order, the safetensors format's own key refused, a failed
save that keeps the previous file, and a failed load_state_dict that changes nothing."""

import signal

import pytest
import vkml


def test_a_header_length_of_128_mod_256_loads(tmp_path):
    path = tmp_path / "m.safetensors"
    vkml.save({"w" * 68: vkml.zeros(2)}, path)
    assert path.read_bytes()[0] == 0x80
    assert list(vkml.load(path)) == ["w" * 68]


def test_keys_load_in_one_fixed_order(tmp_path):
    path = tmp_path / "m.safetensors"
    vkml.save({f"k{i:02d}": vkml.full((i % 3 + 1,), float(i)) for i in range(30)}, path)
    orders = {tuple(vkml.load(path)) for _ in range(20)}
    assert len(orders) == 1
    loaded = vkml.load(path)
    assert all(loaded[k].tolist() == [float(k[1:])] * (int(k[1:]) % 3 + 1) for k in loaded)


def test_the_metadata_key_is_refused_before_anything_is_written(tmp_path):
    path = tmp_path / "m.safetensors"
    with pytest.raises(ValueError, match="__metadata__"):
        vkml.save({"__metadata__": vkml.ones(2)}, path)
    assert not path.exists()


def test_a_failed_load_state_dict_changes_nothing():
    """Every key and shape is checked before anything is written (torch copies what fits, then raises)."""
    model = vkml.nn.Sequential(vkml.nn.Linear(3, 2), vkml.nn.Linear(2, 4))
    before = {k: v.tolist() for k, v in model.state_dict().items()}
    bad = {k: vkml.zeros(*v.shape) for k, v in model.state_dict().items()}
    bad["1.weight"] = vkml.zeros(5, 2)
    with pytest.raises(RuntimeError, match="size mismatch for 1.weight"):
        model.load_state_dict(bad)
    del bad["1.weight"]
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "1.weight"'):
        model.load_state_dict(bad)
    assert {k: v.tolist() for k, v in model.state_dict().items()} == before


def test_a_failed_save_keeps_the_previous_file(tmp_path):
    """vkml.save writes beside the file and renames over it: a save that fails (here, a file-size limit) leaves the
    old checkpoint whole and no temporary file behind (issue #20, item 7)."""
    resource = pytest.importorskip("resource")
    path = tmp_path / "m.safetensors"
    vkml.save({"w": vkml.ones(4)}, path)
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, hard))
    old_handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    try:
        with pytest.raises(OSError, match="cannot write"):
            vkml.save({"w": vkml.ones(1 << 18)}, path)
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, old_handler)
    assert vkml.load(path)["w"].tolist() == [1.0] * 4
    assert [p.name for p in tmp_path.iterdir()] == ["m.safetensors"]
