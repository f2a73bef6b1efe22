"""meshspec.view on a tensor duck-typed like ttnn 0.81.1's (tests/api/fake_ttnn.py): the records as a grid,
and under meshspec record, meshspec's simulation of the recording beside them."""

import io
import sys
import types
from pathlib import Path

import pytest

import meshspec

sys.path.insert(0, str(Path(__file__).parent))
import fake_ttnn  # noqa: E402

RECORDS = """\
dst: device tensor at address 1048640
spec: 1x1x32x32 bfloat16 tile dram
topology: distribution shape [7], placements [S(1)], 7 coordinate(s)
records on the 2x4 mesh (7 recorded):
┌──────────────┬──────────────┬──────────────┬──────────────┐
│ (0,0) id 4   │ (0,1) id 0   │ (0,2) id 2   │ (0,3) id 6   │
│ recorded     │ recorded     │ recorded     │ recorded     │
│ 1x1x32x32    │ 1x1x32x32    │ 1x1x32x32    │ 1x1x32x32    │
├──────────────┼──────────────┼──────────────┼──────────────┤
│ (1,0) id 5   │ (1,1) id 1   │ (1,2) id 3   │ (1,3) id 7   │
│ recorded     │ recorded     │ recorded     │ not recorded │
│ 1x1x32x32    │ 1x1x32x32    │ 1x1x32x32    │ -            │
└──────────────┴──────────────┴──────────────┴──────────────┘
"""

#: The program so far as meshspec record writes it (tests_ttnn/test_view.py records the real one).
RECORDING = """meshspec: 1
name: prog
mesh: {system: t3k, shape: [2, 4]}
steps:
  - from_torch: {as: host, shape: [1, 7, 32, 32], dtype: bfloat16, layout: tile}
  - distribute_tensor: {tensor: host, mesh_mapper: {shard: 1}, as: sharded}
  - allocate_tensor_on_device: {as: dst, shape: [1, 1, 32, 32], dtype: bfloat16, layout: tile}
  - copy_host_to_device_tensor: {src: sharded, dst: dst}
"""


@pytest.fixture
def ttnn(monkeypatch):
    monkeypatch.setitem(sys.modules, "ttnn", fake_ttnn.module())
    monkeypatch.setenv("TT_METAL_MOCK_CLUSTER_DESC_PATH", "mock")  # no device values to read


def test_view_draws_each_devices_record_with_its_id(ttnn, capsys):
    dst = fake_ttnn.seed_dst()
    assert meshspec.view(dst) is None  # titled by the caller's own name for it; a REPL shows it once
    assert capsys.readouterr().out == RECORDS
    out = io.StringIO()
    meshspec.view(dst, "copy destination", file=out)
    assert out.getvalue().startswith("copy destination: device tensor")


def test_a_deallocated_tensor_says_so(ttnn):
    dst = fake_ttnn.seed_dst()
    dst.is_allocated = lambda: False
    out = io.StringIO()
    meshspec.view(dst, file=out)
    assert out.getvalue() == "dst: deallocated tensor\ndeallocated: no device holds it\n"


def test_records_that_cannot_be_read_are_one_line(ttnn):
    dst = fake_ttnn.seed_dst()
    dst.device_coords = lambda: (_ for _ in ()).throw(RuntimeError("TT_FATAL: mesh closed\nbacktrace: ..."))
    out = io.StringIO()
    meshspec.view(dst, file=out)
    assert out.getvalue() == "dst: its records cannot be read: TT_FATAL: mesh closed\n"


def _recording(monkeypatch, tensor, tmp_path):
    from meshspec.bridge import record

    rec = types.SimpleNamespace(ids={id(tensor): "dst"}, objects={"dst": tensor}, steps=[{}] * 4, out=tmp_path, depth=0,
                                scenario_text=lambda: (RECORDING, {}))
    monkeypatch.setattr(record, "active", rec)
    return rec


def test_under_record_the_simulation_is_drawn_and_the_real_records_compared(ttnn, monkeypatch, tmp_path):
    dst = fake_ttnn.seed_dst()
    rec = _recording(monkeypatch, dst, tmp_path)
    out = io.StringIO()
    meshspec.view(dst, file=out)
    text = out.getvalue()
    assert text.startswith(RECORDS + "\nunder meshspec record (4 step(s) so far), as meshspec simulates it under current: written vs recorded\n")
    assert "mesh map" in text and "[:, 6:7, :, :]" in text  # what each device was written: the seventh shard on (1,2)
    assert text.endswith("\nthe real records agree with current's on every device\n")
    assert rec.depth == 0  # the recorder was told to look away while the records were read, and back after


def test_under_record_a_profile_that_records_otherwise_is_named_device_by_device(ttnn, monkeypatch, tmp_path):
    dst = fake_ttnn.seed_dst()
    _recording(monkeypatch, dst, tmp_path)
    out = io.StringIO()
    meshspec.view(dst, profile="uniform-by-value", file=out)
    text = out.getvalue()
    assert "stale dst (1,3)" in text  # the seed: recorded, never written, under that era's rules
    assert text.endswith("\ndevice (1,3): ttnn not recorded, uniform-by-value recorded 1x1x32x32\n")


def test_under_record_a_tensor_the_recording_has_not_seen_is_said(ttnn, monkeypatch, tmp_path):
    dst = fake_ttnn.seed_dst()
    _recording(monkeypatch, fake_ttnn.seed_dst(), tmp_path)  # another tensor
    out = io.StringIO()
    meshspec.view(dst, file=out)
    text = out.getvalue()
    assert text.endswith("\nunder meshspec record (4 step(s) so far): this tensor is not in the recording "
                         "(no recorded call made or used it yet)\n")
