"""ember.save / ember.load against real PyTorch files, both ways; safety and durability."""
from __future__ import annotations

import collections
import io
import os
import pickle
import subprocess
import sys
import zipfile

import numpy as np
import pytest
import torch

import ember

DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8",
          "bool", "complex64", "complex128"]


def _np(t):
    """Values of an ember or torch tensor as a NumPy array (bfloat16 via float32)."""
    if isinstance(t, torch.Tensor):
        t = t.detach()
        return (t.float() if t.dtype == torch.bfloat16 else t).numpy()
    a = t.detach()
    return (a.float() if a.dtype == ember.bfloat16 else a).numpy()


def _same(e, t):
    assert str(e.dtype) == str(t.dtype)
    assert tuple(e.shape) == tuple(t.shape)
    assert e.stride() == t.stride()
    assert e.storage_offset() == t.storage_offset()
    assert e.requires_grad == t.requires_grad
    np.testing.assert_array_equal(_np(e), _np(t))


def _torch_value(dtype, shape=(3, 4)):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(shape, generator=g, dtype=torch.float64) * 10
    if dtype == "bool":
        return x > 0
    if dtype.startswith("complex"):
        return torch.complex(x, -x).to(getattr(torch, dtype))
    return x.to(getattr(torch, dtype))


@pytest.mark.parametrize("dtype", DTYPES)
def test_torch_file_every_dtype_with_views(tmp_path, dtype):
    x = _torch_value(dtype)
    obj = {"x": x, "t": x.t(), "row": x[1], "col": x[:, 2], "slice": x[1:, ::2], "scalar": x[0, 0].clone()}
    torch.save(obj, tmp_path / "f.pt")
    got = ember.load(tmp_path / "f.pt")
    for k, v in obj.items():
        _same(got[k], v)
    st = got["x"].untyped_storage()
    assert all(got[k].untyped_storage() is st for k in ("t", "row", "col", "slice"))
    assert got["scalar"].untyped_storage() is not st
    got["x"][1, 2] = 1  # views of one buffer: a write through one shows in the others
    assert _np(got["row"])[2] == _np(ember.ones(1, dtype=got["x"].dtype))[0]


@pytest.mark.parametrize("dtype", DTYPES)
def test_ember_file_loads_in_torch(tmp_path, dtype):
    x = ember.from_numpy(_np(_torch_value(dtype)).copy()).to(getattr(ember, dtype))
    obj = {"x": x, "t": x.t(), "row": x[1], "slice": x[1:, ::2], "zero_d": x[0, 0].clone()}
    ember.save(obj, tmp_path / "e.pt")
    got = torch.load(tmp_path / "e.pt", weights_only=True)
    for k, v in obj.items():
        _same(v, got[k])
    assert got["t"].untyped_storage().data_ptr() == got["x"].untyped_storage().data_ptr()


def _modules():
    tnn = torch.nn
    torch.manual_seed(0)
    return {"linear": tnn.Linear(4, 3), "conv": tnn.Conv2d(2, 3, 3),
            "bn": tnn.BatchNorm1d(5), "seq": tnn.Sequential(tnn.Linear(3, 4), tnn.ReLU(), tnn.Linear(4, 2)),
            "ln": tnn.LayerNorm(6), "emb": tnn.Embedding(5, 3), "lstm": tnn.LSTM(3, 4)}


@pytest.mark.parametrize("name", list(_modules()))
def test_torch_state_dicts_load(tmp_path, name):
    m = _modules()[name]
    if name == "bn":
        m(torch.randn(4, 5))  # running stats and num_batches_tracked become non-trivial
    sd = m.state_dict()
    torch.save(sd, tmp_path / "sd.pt")
    got = ember.load(tmp_path / "sd.pt")
    assert isinstance(got, collections.OrderedDict)
    assert got._metadata == sd._metadata
    assert list(got) == list(sd)
    for k in sd:
        _same(got[k], sd[k])


_EMBER_COUNTERPARTS = {
    "linear": lambda: ember.nn.Linear(4, 3), "conv": lambda: ember.nn.Conv2d(2, 3, 3),
    "ln": lambda: ember.nn.LayerNorm(6), "emb": lambda: ember.nn.Embedding(5, 3),
    "seq": lambda: ember.nn.Sequential(ember.nn.Linear(3, 4), ember.nn.ReLU(), ember.nn.Linear(4, 2))}


@pytest.mark.parametrize("name", list(_EMBER_COUNTERPARTS))
def test_torch_state_dict_into_ember_module_and_back(tmp_path, name):
    sd = _modules()[name].state_dict()
    torch.save(sd, tmp_path / "sd.pt")
    em = _EMBER_COUNTERPARTS[name]()
    em.load_state_dict(ember.load(tmp_path / "sd.pt"))
    ember.save(em.state_dict(), tmp_path / "back.pt")
    back = torch.load(tmp_path / "back.pt", weights_only=True)
    assert list(back) == list(sd)
    for k, v in sd.items():
        _same(em.state_dict()[k], v)
        assert torch.equal(back[k], v)


def test_optimizer_state_dict_from_torch(tmp_path):
    m = torch.nn.Linear(3, 2)
    opt = torch.optim.Adam(m.parameters(), lr=0.1)
    m(torch.randn(4, 3)).sum().backward()
    opt.step()
    torch.save({"model": m.state_dict(), "opt": opt.state_dict(), "epoch": 3}, tmp_path / "ck.pt")
    got = ember.load(tmp_path / "ck.pt")
    ref = opt.state_dict()
    assert got["epoch"] == 3
    assert got["opt"]["param_groups"] == ref["param_groups"]
    for i, s in ref["state"].items():
        for k, v in s.items():
            _same(got["opt"]["state"][i][k], v)


def test_ember_optimizer_and_module_state_dict_roundtrip_in_torch(tmp_path):
    m = ember.nn.Linear(3, 2)
    opt = ember.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
    m(ember.randn(4, 3)).sum().backward()
    opt.step()
    ember.save({"model": m.state_dict(), "opt": opt.state_dict()}, tmp_path / "ck.pt")
    got = torch.load(tmp_path / "ck.pt", weights_only=True)
    tm = torch.nn.Linear(3, 2)
    tm.load_state_dict(got["model"])
    np.testing.assert_array_equal(tm.weight.detach().numpy(), m.weight.detach().numpy())
    assert got["opt"]["param_groups"][0]["lr"] == 0.1
    mom = got["opt"]["state"][0]["momentum_buffer"]
    np.testing.assert_array_equal(mom.numpy(), opt.state_dict()["state"][0]["momentum_buffer"].numpy())


def test_parameters_and_requires_grad_roundtrip(tmp_path):
    p = torch.nn.Parameter(torch.randn(2, 3))
    q = torch.nn.Parameter(torch.randn(2), requires_grad=False)
    torch.save([p, q, p], tmp_path / "p.pt")
    a, b, c = ember.load(tmp_path / "p.pt")
    assert isinstance(a, ember.nn.Parameter) and a.requires_grad and not b.requires_grad
    assert a is c
    ember.save([a, b], tmp_path / "e.pt")
    ta, tb = torch.load(tmp_path / "e.pt", weights_only=True)
    assert isinstance(ta, torch.nn.Parameter) and ta.requires_grad and not tb.requires_grad
    np.testing.assert_array_equal(ta.detach().numpy(), p.detach().numpy())


def test_plain_values_roundtrip(tmp_path):
    obj = {"i": 3, "f": 2.5, "s": "text", "b": b"\x00\xff", "none": None, "tuple": (1, (2, 3)),
           "list": [True, 1e300], "set": {1, 2}, "complex": 1 + 2j, "dtype": ember.float16,
           "size": ember.Size([2, 3]), "bytes": bytearray(b"ab")}
    ember.save(obj, tmp_path / "v.pt")
    assert ember.load(tmp_path / "v.pt") == obj
    tgot = torch.load(tmp_path / "v.pt", weights_only=True)
    assert tgot["dtype"] is torch.float16 and tgot["size"] == torch.Size([2, 3]) and tgot["b"] == b"\x00\xff"


def test_whole_torch_model_needs_trust(tmp_path):
    torch.manual_seed(0)
    tm = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU())
    torch.save(tm, tmp_path / "m.pt")
    with pytest.raises(pickle.UnpicklingError, match="Unsupported global: GLOBAL torch.nn.modules.container"):
        ember.load(tmp_path / "m.pt")
    em = ember.load(tmp_path / "m.pt", weights_only=False)
    assert isinstance(em, ember.nn.Sequential) and isinstance(em[0], ember.nn.Linear)
    x = np.random.default_rng(0).random((4, 2), dtype=np.float32)
    np.testing.assert_allclose(em(ember.from_numpy(x)).numpy(force=True),
                               tm(torch.from_numpy(x)).detach().numpy(), rtol=1e-5, atol=1e-6)
    with ember.serialization.safe_globals([ember.nn.Sequential, ember.nn.Linear, ember.nn.ReLU]):
        em2 = ember.load(tmp_path / "m.pt")
    assert isinstance(em2[0], ember.nn.Linear)
    # and back: ember's model pickle names torch's classes
    ember.save(em, tmp_path / "back.pt")
    tm2 = torch.load(tmp_path / "back.pt", weights_only=False)
    assert isinstance(tm2[0], torch.nn.Linear)
    np.testing.assert_array_equal(tm2[0].weight.detach().numpy(), tm[0].weight.detach().numpy())


def test_legacy_format_both_ways(tmp_path):
    x = torch.arange(12.).view(3, 4)
    torch.save({"x": x, "v": x[1:, 1], "p": torch.nn.Parameter(torch.ones(2))}, tmp_path / "l.pt",
               _use_new_zipfile_serialization=False)
    got = ember.load(tmp_path / "l.pt")
    _same(got["v"], x[1:, 1])
    assert got["v"].untyped_storage() is got["x"].untyped_storage()
    assert isinstance(got["p"], ember.nn.Parameter)
    e = ember.arange(6.)
    ember.save({"e": e, "v": e[2:]}, tmp_path / "el.pt", _use_new_zipfile_serialization=False)
    t = torch.load(tmp_path / "el.pt", weights_only=True)
    assert t["v"].storage_offset() == 2 and t["v"].tolist() == [2., 3., 4., 5.]
    with pytest.raises(RuntimeError, match="mmap can only be used"):
        ember.load(tmp_path / "el.pt", mmap=True)


def test_map_location_forms(tmp_path):
    ember.save({"a": ember.ones(2)}, tmp_path / "a.pt")
    seen = []
    for ml in (None, "cpu", ember.device("cpu"), {"cpu": "cpu"}, lambda s, loc: seen.append(loc) or s):
        assert ember.load(tmp_path / "a.pt", map_location=ml)["a"].tolist() == [1., 1.]
    assert seen == ["cpu"]
    m = ember.load(tmp_path / "a.pt", map_location="meta")["a"]
    assert m.is_meta and m.shape == (2,)
    with pytest.warns(UserWarning, match="no 'cuda' backend"):
        assert ember.load(tmp_path / "a.pt", map_location="cuda:0")["a"].device == ember.device("cpu")
    with pytest.warns(UserWarning, match="storages saved on 'cuda:1'"):
        ember.load(tmp_path / "a.pt", map_location={"cpu": "cuda:1"})


def test_mmap_loads_views_of_the_file(tmp_path):
    x = ember.arange(1000.)
    ember.save({"x": x, "v": x[10:20]}, tmp_path / "m.pt")
    got = ember.load(tmp_path / "m.pt", mmap=True)
    assert got["v"].tolist() == list(range(10, 20))
    assert got["v"].untyped_storage() is got["x"].untyped_storage()
    got["x"][0] = 5.  # copy-on-write: the file itself is not changed
    assert ember.load(tmp_path / "m.pt")["x"][0].item() == 0.
    # torch's own mmap load reads ember's aligned records
    assert torch.load(tmp_path / "m.pt", mmap=True, weights_only=True)["v"].tolist() == list(range(10, 20))


def test_file_objects_and_archive_layout(tmp_path):
    buf = io.BytesIO()
    ember.save({"a": ember.ones(3)}, buf)
    names = zipfile.ZipFile(io.BytesIO(buf.getvalue())).namelist()
    assert names[0] == "archive/data.pkl" and "archive/byteorder" in names and "archive/data/0" in names
    buf.seek(0)
    assert torch.load(buf, weights_only=True)["a"].tolist() == [1., 1., 1.]
    ember.save(ember.ones(1), tmp_path / "model.pth")
    zf = zipfile.ZipFile(tmp_path / "model.pth")
    assert zf.namelist()[0] == "model/data.pkl"
    for info in zf.infolist():  # storage records are stored and 64-byte aligned, as torch writes them
        if "/data/" in info.filename:
            assert info.compress_type == zipfile.ZIP_STORED
            with open(tmp_path / "model.pth", "rb") as fh:
                fh.seek(info.header_offset + 26)
                n, m = np.frombuffer(fh.read(4), "<u2")
            assert (info.header_offset + 30 + n + m) % 64 == 0


def test_view_dtype_conflict_and_pickle_conventions():
    x = ember.arange(4.)
    a, b = pickle.loads(pickle.dumps((x, x[1:])))
    assert b.untyped_storage() is a.untyped_storage() and b.storage_offset() == 1
    import copy
    c, d = copy.deepcopy((x, x[2:]))
    c[3] = 9.
    assert d.tolist() == [2., 9.] and x.tolist() == [0., 1., 2., 3.]


# ------------------------------------------------------------------------------------ safety
def _str(s: str) -> bytes:
    b = s.encode()
    return b"X" + len(b).to_bytes(4, "little") + b


def _call(module: str, name: str, *args: bytes) -> bytes:
    """Pickle opcodes calling ``module.name(*args)``, as a malicious checkpoint would."""
    return b"c" + f"{module}\n{name}\n".encode() + b"(" + b"".join(args) + b"tR"


def _zip_checkpoint(path, data_pkl: bytes):
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("archive/data.pkl", data_pkl)
        zf.writestr("archive/byteorder", "little")
        zf.writestr("archive/version", "3\n")


def _payloads(marker: str) -> dict:
    touch = f"open({marker!r}, 'w').close()"
    inner = b"\x80\x02" + _call("posix", "system", _str(f"touch {marker}")) + b"."
    return {
        "os.system": _call("posix", "system", _str(f"touch {marker}")),
        "eval": _call("builtins", "eval", _str(touch)),
        "subprocess": _call("subprocess", "check_call", b"(" + _str("touch") + _str(marker) + b"l"),
        # nested load of a second pickle through a torch helper (the legacy weights_only bypass)
        "nested_load": _call("torch.storage", "_load_from_bytes",
                             _call("_codecs", "encode", _str(inner.decode("latin1")), _str("latin1"))),
        # a rebuild helper that is allowed, asked to call something that is not
        "rebuild_from_type": _call("torch._tensor", "_rebuild_from_type_v2",
                                   b"c" + b"builtins\nexec\n", b"ctorch\nTensor\n", b"(" + _str(touch) + b"t",
                                   b"N"),
        "protocol0_inst": b"(" + _str(f"touch {marker}") + b"iposix\nsystem\n",
        "getattr_chain": _call("builtins", "getattr", b"ccollections\nOrderedDict\n", _str("__init__")),
    }


@pytest.mark.parametrize("kind", list(_payloads("m")))
def test_malicious_checkpoint_is_refused_and_runs_nothing(tmp_path, kind):
    marker = str(tmp_path / "pwned")
    payload = _payloads(marker)[kind]
    _zip_checkpoint(tmp_path / "evil.pt", b"\x80\x02" + payload + b".")
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        ember.load(tmp_path / "evil.pt")
    assert not os.path.exists(marker)
    # the same payload through the legacy (non-zip) format and the same restricted unpickler
    legacy = b"".join(pickle.dumps(v, protocol=2) for v in
                      (ember.serialization.MAGIC_NUMBER, 1001, {"little_endian": True}))
    (tmp_path / "evil_legacy.pt").write_bytes(legacy + b"\x80\x02" + payload + b".")
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        ember.load(tmp_path / "evil_legacy.pt")
    assert not os.path.exists(marker)


def test_refusal_names_the_global_and_the_payload_is_real(tmp_path):
    marker = str(tmp_path / "pwned")
    _zip_checkpoint(tmp_path / "evil.pt", b"\x80\x02" + _payloads(marker)["os.system"] + b".")
    with pytest.raises(pickle.UnpicklingError, match=r"Unsupported global: GLOBAL posix\.system"):
        ember.load(tmp_path / "evil.pt")
    assert not os.path.exists(marker)
    ember.load(tmp_path / "evil.pt", weights_only=False)  # documented: trusted files only
    assert os.path.exists(marker)


def test_allowed_globals_with_bad_arguments_are_refused(tmp_path):
    bad = _call("torch._utils", "_rebuild_tensor_v2", _str("not a storage"), b"K\x00", b"(K\x02t", b"(K\x01t",
                b"\x89", b"ccollections\nOrderedDict\n)R")
    _zip_checkpoint(tmp_path / "bad.pt", b"\x80\x02" + bad + b".")
    with pytest.raises(pickle.UnpicklingError, match="expected a storage"):
        ember.load(tmp_path / "bad.pt")
    codec = _call("_codecs", "encode", _str("x"), _str("rot13"))
    _zip_checkpoint(tmp_path / "codec.pt", b"\x80\x02" + codec + b".")
    with pytest.raises(pickle.UnpicklingError, match="latin1"):
        ember.load(tmp_path / "codec.pt")


def test_add_safe_globals(tmp_path):
    ember.save(collections.Counter("aab"), tmp_path / "c.pt")
    assert ember.load(tmp_path / "c.pt") == collections.Counter("aab")
    ember.save(ember.nn.Linear(2, 2), tmp_path / "lin.pt")
    with pytest.raises(pickle.UnpicklingError, match="torch.nn.modules.linear.Linear"):
        ember.load(tmp_path / "lin.pt")
    ember.serialization.add_safe_globals([ember.nn.Linear])
    try:
        assert isinstance(ember.load(tmp_path / "lin.pt"), ember.nn.Linear)
        assert ember.nn.Linear in ember.serialization.get_safe_globals()
    finally:
        ember.serialization.clear_safe_globals()
    with pytest.raises(pickle.UnpicklingError):
        ember.load(tmp_path / "lin.pt")


# -------------------------------------------------------------------------------- durability
def test_failed_save_leaves_previous_checkpoint(tmp_path, monkeypatch):
    path = tmp_path / "ck.pt"
    ember.save({"v": ember.ones(3)}, path)

    def boom(fd):
        raise OSError("disk full")
    monkeypatch.setattr(os, "fsync", boom)
    with pytest.raises(OSError, match="disk full"):
        ember.save({"v": ember.zeros(1000)}, path)
    monkeypatch.undo()
    assert ember.load(path)["v"].tolist() == [1., 1., 1.]
    assert os.listdir(tmp_path) == ["ck.pt"]  # the temporary file is gone too

    class Unpicklable:
        def __reduce__(self):
            raise TypeError("cannot pickle this")
    with pytest.raises(TypeError, match="cannot pickle"):
        ember.save({"v": ember.zeros(3), "bad": Unpicklable()}, path)
    assert ember.load(path)["v"].tolist() == [1., 1., 1.]


def test_killed_save_leaves_a_complete_checkpoint(tmp_path):
    path = tmp_path / "ck.pt"
    ember.save({"step": -1, "w": ember.zeros(4)}, path)
    code = ("import sys, ember\n"
            "w = ember.ones(4_000_000)\n"
            "print('go', flush=True)\n"
            "for i in range(1000):\n"
            f"    ember.save({{'step': i, 'w': w}}, {str(path)!r})\n")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE)
    assert proc.stdout.readline().strip() == b"go"
    import time
    time.sleep(0.5)
    proc.kill()
    proc.wait()
    got = ember.load(path)  # whichever save finished last: never a half-written file
    assert got["step"] == -1 or got["w"].shape == (4_000_000,)


def _saved(tmp_path):
    path = tmp_path / "ck.pt"
    ember.save({"w": ember.arange(1000.), "b": ember.ones(3)}, path)
    return path, path.read_bytes()


@pytest.mark.parametrize("keep", [0.5, 0.9, 100, -10])
def test_truncated_file_errors_name_file_and_problem(tmp_path, keep):
    path, data = _saved(tmp_path)
    n = int(len(data) * keep) if isinstance(keep, float) else (keep if keep > 0 else len(data) + keep)
    path.write_bytes(data[:n])
    with pytest.raises(RuntimeError, match=r"ck\.pt: .*(truncated|central directory)"):
        ember.load(path)


def _flip_data_byte(path, data, rec, at=5):
    """A copy of ``data`` with one byte of record ``rec``'s data inverted, written to ``path``."""
    info = zipfile.ZipFile(io.BytesIO(data)).getinfo(rec)
    n, m = np.frombuffer(data[info.header_offset + 26:info.header_offset + 30], "<u2")
    bad = bytearray(data)
    bad[info.header_offset + 30 + int(n) + int(m) + at] ^= 0xFF
    path.write_bytes(bytes(bad))


def test_flipped_bytes_are_detected(tmp_path):
    path, data = _saved(tmp_path)
    # the pickle record is always CRC-checked
    _flip_data_byte(path, data, "ck/data.pkl")
    with pytest.raises(RuntimeError, match=r"ck\.pt: record ck/data\.pkl.*(CRC|corrupted)"):
        ember.load(path)
    # storage records are CRC-checked only on request (check_crc=True), like torch.load, which
    # never checks: by default a flipped data byte loads as a changed value, as in torch
    _flip_data_byte(path, data, "ck/data/0")
    assert ember.load(path)["w"].tolist() != list(range(1000))
    assert torch.load(path, weights_only=True)["w"].tolist() != list(range(1000))
    with pytest.raises(RuntimeError, match=r"ck\.pt: record ck/data/0 fails its CRC-32 check"):
        ember.load(path, check_crc=True)
    with pytest.raises(RuntimeError, match=r"ck\.pt: record ck/data/0 fails its CRC-32 check"):
        ember.load(path, check_crc=True, mmap=True)
    path.write_bytes(data)
    assert ember.load(path, check_crc=True)["w"].tolist() == list(range(1000))


def test_damaged_archive_structure_is_caught_without_crc(tmp_path):
    path, data = _saved(tmp_path)
    info = zipfile.ZipFile(io.BytesIO(data)).getinfo("ck/data/0")
    for at, what in [(0, "bad local file header"), (30, "does not match the central directory"),
                     (26, "does not match the central directory")]:
        bad = bytearray(data)
        bad[info.header_offset + at] ^= 0x41
        path.write_bytes(bytes(bad))
        with pytest.raises(RuntimeError, match=rf"ck\.pt: record ck/data/0.*{what}"):
            ember.load(path)
    # a local header whose extra field claims too much would read into the central directory
    bad = bytearray(data)
    bad[info.header_offset + 28:info.header_offset + 30] = (60000).to_bytes(2, "little")
    path.write_bytes(bytes(bad))
    with pytest.raises(RuntimeError, match=r"ck\.pt: record ck/data/0 runs past"):
        ember.load(path)


def test_zip_records_crc_and_zip64(tmp_path, monkeypatch):
    import ember._serialization._zipwrite as zw
    sd = {"a": ember.arange(1000.), "b": ember.arange(12).view(3, 4)[:, 1:], "c": ember.ones(())}
    for limit in (zw._ZIP64_LIMIT, 100):  # 100: every size and offset takes the zip64 path
        monkeypatch.setattr(zw, "_ZIP64_LIMIT", limit)
        buf = io.BytesIO(b"junk before the archive")
        buf.seek(0, 2)
        ember.save(sd, buf)
        raw = buf.getvalue()[len(b"junk before the archive"):]
        zf = zipfile.ZipFile(io.BytesIO(raw))
        assert zf.testzip() is None  # every CRC-32 is right
        if limit == 100:
            assert any(i.file_size > 100 and i.header_offset > 100 for i in zf.infolist())
        t = torch.load(io.BytesIO(raw), weights_only=True)
        got = ember.load(io.BytesIO(raw), check_crc=True)
        for k, v in sd.items():
            _same(got[k], t[k])
            np.testing.assert_array_equal(t[k].numpy(), v.numpy())
        buf.seek(len(b"junk before the archive"))  # offsets are archive-relative, as zipfile's
        _same(ember.load(buf, check_crc=True)["b"], t["b"])
    monkeypatch.undo()
    # without CRCs (torch's set_crc32_options(False)) the file still loads in torch and in ember
    assert ember.serialization.get_crc32_options() is True
    ember.serialization.set_crc32_options(False)
    try:
        ember.save(sd, tmp_path / "nocrc.pt")
    finally:
        ember.serialization.set_crc32_options(True)
    assert torch.load(tmp_path / "nocrc.pt", weights_only=True)["a"].tolist() == list(range(1000))
    assert ember.load(tmp_path / "nocrc.pt")["a"].tolist() == list(range(1000))


def test_large_storages_through_raw_and_buffered_files(tmp_path):
    big = ember.from_numpy(np.random.default_rng(0).standard_normal((600, 1000)).astype(np.float32))
    sd = {"big": big, "view": big[10:20, 5:], "small": ember.arange(3)}
    with open(tmp_path / "raw.pt", "wb", buffering=0) as fh:  # raw stream: short writes are resumed
        ember.save(sd, fh)
    with open(tmp_path / "raw.pt", "rb", buffering=0) as fh:  # and short reads
        got = ember.load(fh, check_crc=True)
    t = torch.load(tmp_path / "raw.pt", weights_only=True)
    for k in sd:
        _same(got[k], t[k])
    assert got["view"].untyped_storage() is got["big"].untyped_storage()
    torch.save({k: torch.from_numpy(v.numpy()) for k, v in sd.items() if k != "view"},
               tmp_path / "t.pt")
    assert zipfile.ZipFile(tmp_path / "t.pt").testzip() is None
    np.testing.assert_array_equal(ember.load(tmp_path / "t.pt", check_crc=True)["big"].numpy(),
                                  big.numpy())


def test_empty_legacy_truncated_and_not_a_checkpoint(tmp_path):
    (tmp_path / "empty.pt").write_bytes(b"")
    with pytest.raises(RuntimeError, match=r"empty\.pt: the file is empty"):
        ember.load(tmp_path / "empty.pt")
    ember.save({"w": ember.arange(100.)}, tmp_path / "l.pt", _use_new_zipfile_serialization=False)
    data = (tmp_path / "l.pt").read_bytes()
    (tmp_path / "l.pt").write_bytes(data[:-40])
    with pytest.raises(RuntimeError, match=r"l\.pt: storage .* is truncated"):
        ember.load(tmp_path / "l.pt")
    (tmp_path / "junk.pt").write_bytes(b"hello world, not a checkpoint")
    with pytest.raises(RuntimeError, match=r"junk\.pt: not a checkpoint"):
        ember.load(tmp_path / "junk.pt")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_save_and_load_in_a_forked_child(tmp_path):
    big = {"w": ember.arange(float(1 << 19))}  # 2 MB: its CRC-32 goes to the worker thread
    ember.save(big, tmp_path / "parent.pt")  # the parent's worker thread now exists
    pid = os.fork()
    if pid == 0:  # the child inherits the pool object but not its thread
        ok = False
        try:
            ember.save(big, tmp_path / "child.pt")
            ok = ember.load(tmp_path / "child.pt", check_crc=True)["w"].shape == (1 << 19,)
        finally:
            os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert ember.load(tmp_path / "child.pt", check_crc=True)["w"][-1].item() == (1 << 19) - 1
