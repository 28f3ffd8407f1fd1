"""vkml.save and vkml.load: the format told from the whole header (a safetensors header length may begin with the
pickle byte 0x80), keys read back in one fixed order, and the safetensors format's own key refused (issue #20)."""

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
