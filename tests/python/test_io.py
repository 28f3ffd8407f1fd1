"""vkml.save and vkml.load (issue #20): the format told from the whole header (a safetensors header length may begin
with the pickle byte 0x80), keys read back in one fixed order, the safetensors format's own key refused, a failed
save that keeps the previous file, and a failed load_state_dict that changes nothing."""

import signal

import pytest
import torch
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


def _torch_zip(path, entries):
    """A torch-style zip of stored `entries` (name, bytes)."""
    import zipfile

    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as z:
        for name, data in entries:
            z.writestr(name, data)
    return path


def _as_w(value_code):
    """The pickle of {"w": <the object value_code builds>}."""
    return b"\x80\x02}\x8c\x01w" + value_code + b"s."


def test_deeply_nested_pickles_are_refused_not_a_stack_overflow(tmp_path):
    """10,000 nested lists in 20 KB crashed the reader; past 1,000 levels it is an error, 500 still load."""
    deep = _as_w(b"]" * 10_000 + b"a" * 9_999)
    with pytest.raises(OSError, match="nest deeper than 1000 levels"):
        vkml.load(_torch_zip(tmp_path / "deep.pt", [("archive/data.pkl", deep)]))
    fine = _as_w(b"]" * 500 + b"a" * 499)
    got = vkml.load(_torch_zip(tmp_path / "fine.pt", [("archive/data.pkl", fine)]))["w"]
    depth = 0
    while got:
        got, depth = got[0], depth + 1
    assert depth == 499 and got == []


def test_memo_references_that_multiply_load_shared_or_are_refused(tmp_path):
    """A "billion laughs" pickle: each level lists the previous one ten times through memo references (10⁹ values
    from 500 bytes). As the checkpoint's value it loads as pickle shares it, one list per level (torch.load gives
    the same); as the argument of a call, which the reader copies before it refuses or calls anything, it is refused
    rather than expanded."""
    code = bytearray(b"}K\x00]q\x00s")  # {0: [], 1: [memo 0] * 10, 2: [memo 1] * 10, ...}
    for level in range(1, 10):
        code += b"K" + bytes([level]) + b"](" + bytes([ord("h"), level - 1]) * 10 + b"eq" + bytes([level]) + b"s"
    assert len(code) < 600
    got = vkml.load(_torch_zip(tmp_path / "laughs.pt", [("archive/data.pkl", _as_w(bytes(code)))]))["w"]
    assert len(got[9]) == 10 and all(x is got[8] for x in got[9]) and got[1] == [[]] * 10
    as_argument = b"ccollections\nOrderedDict\n" + bytes(code) + b"\x85R"
    with pytest.raises(OSError, match="pickle bomb"):
        vkml.load(_torch_zip(tmp_path / "laughs_arg.pt", [("archive/data.pkl", _as_w(as_argument))]))
    # Sharing that stays small loads: one list referenced 20 times.
    small = _as_w(b"](](K\x01K\x02eq\x00" + b"h\x00" * 19 + b"e")
    got = vkml.load(_torch_zip(tmp_path / "small.pt", [("archive/data.pkl", small)]))["w"]
    assert got == [[1, 2]] * 20 and all(x is got[0] for x in got)


def test_containers_shared_before_they_are_filled_load_whole(tmp_path):
    """pickle memoises a list or dict when it is created, then fills it: a second reference is the same object,
    full. The reader copied the memo at creation, so the second reference loaded empty (a wrong answer). Shared
    containers and tensors load as one object each, as torch.load gives them; equal ones that are not shared stay
    apart."""
    shared, params, t = [1, 2, 3], {"x": torch.arange(3.0)}, torch.ones(2)
    torch.save(
        {"a": shared, "b": shared, "c": params, "e": params, "f": [shared, [shared]], "t": t, "u": [t], "g": [1, 2, 3]},
        tmp_path / "s.pt",
    )
    got = vkml.load(tmp_path / "s.pt")
    assert got["a"] == got["b"] == [1, 2, 3] and got["f"] == [[1, 2, 3], [[1, 2, 3]]]
    assert got["c"]["x"].tolist() == got["e"]["x"].tolist() == [0.0, 1.0, 2.0]
    ref = torch.load(tmp_path / "s.pt")
    for k, v in [("a", "b"), ("c", "e"), ("t", "u"), ("a", "g")]:
        one, other = (got[v][0], ref[v][0]) if k == "t" else (got[v], ref[v])
        assert (got[k] is one) == (ref[k] is other), (k, v)
    assert got["f"][0] is got["f"][1][0] is got["a"] and got["t"] is got["u"][0]


def test_a_list_that_holds_itself_is_refused(tmp_path):
    """l = []; l.append(l): pickle shares the list with itself, which no tree of values can hold."""
    cyclic = _as_w(b"]q\x00h\x00a")
    with pytest.raises(OSError, match="contain themselves"):
        vkml.load(_torch_zip(tmp_path / "cycle.pt", [("archive/data.pkl", cyclic)]))


def test_zip_entries_that_share_one_payload_are_refused(tmp_path):
    """4,096 central-directory entries pointing at one 2 MiB payload would read as 8 GiB."""
    import struct
    import zlib

    payload, pickle_code = b"\0" * (2 << 20), b"\x80\x02}q\x00."
    local, central, offset = b"", b"", 0
    names = [(b"archive/data.pkl", pickle_code)] + [(f"archive/data/{i}".encode(), payload) for i in range(4096)]
    shared = None
    for i, (name, data) in enumerate(names):
        crc = zlib.crc32(data)
        header = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 0, 0, 0, crc, len(data), len(data), len(name), 0)
        if i <= 1:  # the pickle and the payload are written once; every later entry points at the payload's header
            at = offset
            local += header + name + data
            offset += len(header) + len(name) + len(data)
            shared = at if i == 1 else shared
        else:
            at = shared
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 0, 0, 0, crc, len(data), len(data),
                               len(name), 0, 0, 0, 0, 0, at) + name  # fmt: skip
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(names), len(names), len(central), len(local), 0)
    path = tmp_path / "shared.pt"
    path.write_bytes(local + central + end)
    assert path.stat().st_size < 3 << 20
    with pytest.raises(OSError, match="entries that share data"):
        vkml.load(path)


def test_an_expanded_tensor_loads_as_the_view_torch_saved(tmp_path):
    """torch.save of a 1-element storage expanded to 2³³ elements is 1.5 KB; it loads as that view (torch loads it
    so too), never as 32 GiB."""
    import torch

    path = tmp_path / "bomb.pt"
    torch.save({"w": torch.zeros(1).expand(2**33)}, path)
    assert path.stat().st_size < 4096
    w = vkml.load(path)["w"]
    assert tuple(w.shape) == (2**33,) and w.stride() == (0,)
    assert w[:3].tolist() == [0.0, 0.0, 0.0]
