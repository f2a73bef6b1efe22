"""Reading back a device tensor that records no device (issue 35, list item 4).

ttnn 0.81.1's ``cpu()`` (``to_host_mesh_tensor``, ttnn/core/tensor/tensor_impl.cpp) makes a host buffer
of the mesh's shape and fills the coordinates the storage lists: with none, a host tensor with no shard
and no error. ``to_torch`` with no composer then fails ttnn's ``buffers.size() == 1`` check
(ttnn/cpp/ttnn-nanobind/pytensor.cpp), in its words, whether it is given the device tensor or what
``cpu()`` read. meshspec gave its own words ("has no recorded device to read back") there while
``cpu()`` went by silently (docs/semantics.md section 5). Under reference an allocation records no
device until written; under unpopulated no device ever has a spec.
"""

import pytest
from conftest import run_steps

ALLOC = {"allocate_tensor_on_device": {"as": "d", "shape": [1, 1, 32, 32]}}
TTNN = "Can't convert a tensor distributed on MeshShape([2, 4]) mesh to row-major logical tensor. Supply a mesh composer"


@pytest.mark.parametrize("profile", ["reference", "unpopulated"])
def test_cpu_of_a_tensor_recording_no_device_is_a_host_tensor_with_no_shard(profile):
    report = run_steps([ALLOC, {"cpu": {"tensor": "d", "as": "back"}}], profile)
    assert report.error is None and report.findings == ()
    back = next(t for t in report.tensors if t.name == "back")
    assert back.storage == "host" and not any(v.recorded for v in back.devices)


@pytest.mark.parametrize("profile", ["reference", "unpopulated"])
@pytest.mark.parametrize("read", [[{"to_torch": {"tensor": "d", "as": "out"}}],
                                  [{"cpu": {"tensor": "d", "as": "back"}}, {"to_torch": {"tensor": "back", "as": "out"}}]],
                         ids=["device", "read-back"])
def test_to_torch_of_it_fails_in_ttnn_words(profile, read):
    report = run_steps([ALLOC, *read], profile)
    assert report.error is not None and report.error.step == len(read)
    assert report.error.message.startswith(TTNN)
    assert "records no device" in report.error.message  # meshspec's hint: a composer would not help
