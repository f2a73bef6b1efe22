"""The reshaped_storage and fill_like rules (docs/semantics.md section 23): what get_device_tensors
and cpu() do with a tensor a MeshDevice.reshape left off the mesh, and where zeros_like / ones_like /
full_like kill the process, each choice as the version it was observed on said (tests/golden
``ttnn_<v>.json`` api "reshape", "readback_buffer_shape", "creation")."""

from pathlib import Path

import pytest

from meshspec.runner import run
from meshspec.scenario.loader import parse

SEVEN = ("  - allocate_tensor_on_device: {as: dst, shape: [1, 1, 32, 32]}\n"
         "  - from_torch: {as: src, shape: [1, 7, 32, 32], mesh_mapper: {ShardTensorToMesh: {dim: 1}}}\n"
         "  - copy_host_to_device_tensor: {src: src, dst: dst}\n")
WHOLE = "  - from_torch: {as: a42, shape: [4, 2, 32, 32], mesh_mapper: {ShardTensor2dMesh: {dims: [0, 1], mesh_shape: [4, 2]}}, device: mesh_device}\n"


def _run(steps: str, **rules: str) -> dict:
    changes = ", ".join(f"{k}: {v}" for k, v in rules.items())
    text = f"meshspec: 1\nname: f\nmesh: t3k\nprofiles:\n  era: {{base: current, {changes}}}\nsteps:\n" + steps
    return run(parse(text, Path("f.yaml")), "era").to_json()


def _tensors(report: dict) -> dict:
    return {t["name"]: t for t in report["tensors"]}


def _coords(tensor: dict) -> list:
    return [d["coord"] for d in tensor["devices"]]


# --- reshaped_storage ------------------------------------------------------------------------------

@pytest.mark.parametrize("step, words", [
    ("get_device_tensors: {tensor: dst, as: parts}",  # ttnn 0.81.1, reshape event 6
     "DeviceStorage coordinate MeshCoordinate([1, 0]) is out of bounds for mesh device shape MeshShape([1, 8])"),
    ("cpu: {tensor: dst, as: back}", "Coordinate MeshCoordinate([1, 0]) is out of bounds for shape MeshShape([1, 8])"),  # event 9
])
def test_checked_refuses_a_storage_the_reshape_left_off_the_mesh(step, words):
    report = _run(SEVEN + "  - MeshDevice.reshape: {shape: [1, 8]}\n  - " + step + "\n", reshaped_storage="checked")
    assert report["error"]["message"].startswith(words)


def test_unchecked_gives_a_part_per_recorded_coordinate_with_the_parents_topology():
    report = _run(SEVEN + "  - MeshDevice.reshape: {shape: [1, 8]}\n  - get_device_tensors: {tensor: dst, as: parts}\n",
                  reshaped_storage="unchecked")
    assert report["error"] is None
    tensors = _tensors(report)
    parts = [tensors[f"parts[{i}]"] for i in range(7)]  # 0.6x: 7 parts, as before the reshape (reshape event 6)
    assert "parts[7]" not in tensors
    assert [[d["coord"] for d in p["devices"] if d["recorded"]] for p in parts] == [[[0, i]] for i in range(4)] + [[[1, i]] for i in range(3)]
    assert all(p["topology"] == tensors["dst"]["topology"] for p in parts)
    assert parts[4]["values"]["first"][0] == 4 * 1024.0  # src[:, 4:5], what was written at (1, 0)
    # the judge says what the records claim: devices the mesh no longer has
    assert ("topology_mismatch", "parts[4]") in [(f["kind"], f["tensor"]) for f in report["findings"]]


def test_unchecked_reads_back_into_a_buffer_of_the_meshs_shape_now_without_the_shards_off_it():
    report = _run(SEVEN + "  - MeshDevice.reshape: {shape: [1, 8]}\n  - cpu: {tensor: dst, as: back}\n", reshaped_storage="unchecked")
    assert report["error"] is None
    back = _tensors(report)["back"]
    assert back["mesh_shape"] == [1, 8]  # the buffer: the mesh's shape now (0.81.1 refuses: 7 devices do not fit it)
    assert _coords(back) == [[0, 0], [0, 1], [0, 2], [0, 3]]  # (1, 0), (1, 1), (1, 2) are off a 1x8 buffer
    assert back["topology"]["coords"] == [[0, i] for i in range(4)] + [[1, i] for i in range(3)]  # the tensor's, kept
    missing = [f for f in report["findings"] if f["tensor"] == "back"]
    assert [f["kind"] for f in missing] == ["topology_mismatch"]
    assert "(1,0) (1,1) (1,2) where its host buffer has no shard" in missing[0]["message"]


def test_unchecked_reads_a_whole_tensor_into_the_reshaped_meshs_buffer():
    # readback_buffer_shape event 10: a 2x4 tensor on a mesh reshaped to 4x2; 0.81.1 fills a 2x4 buffer
    # from the 4x2 mesh's coordinates and refuses (2, 0); 0.6x read it into a 4x2 buffer (the mock)
    steps = WHOLE + "  - MeshDevice.reshape: {shape: [4, 2]}\n  - cpu: {tensor: a42, as: back}\n"
    assert _run(steps, reshaped_storage="checked")["error"]["message"].startswith(
        "Coordinate MeshCoordinate([2, 0]) is out of bounds for shape MeshShape([2, 4])")
    report = _run(steps, reshaped_storage="unchecked")
    back = _tensors(report)["back"]
    assert back["mesh_shape"] == [4, 2]
    assert _coords(back) == [[0, 0], [0, 1], [1, 0], [1, 1]]


def test_unchecked_reads_nothing_when_the_reshape_changed_the_meshs_rank():
    # readback_buffer_shape event 20: on a mesh reshaped to (8) 0.81.1 fills the tensor's 2-D buffer
    # from the mesh's 1-D coordinates and says the ranks differ; 0.6x make a host tensor whose 1-D
    # buffer holds none of the tensor's 2-D coordinates
    steps = WHOLE + "  - MeshDevice.reshape: {shape: [8]}\n  - cpu: {tensor: a42, as: back}\n"
    assert _run(steps, reshaped_storage="checked")["error"]["message"].startswith(
        "Shape and coordinate dimensions do not match: 2 != 1")
    report = _run(steps, reshaped_storage="unchecked")
    assert report["error"] is None
    back = _tensors(report)["back"]
    assert back["mesh_shape"] == [8] and _coords(back) == []


# --- fill_like -------------------------------------------------------------------------------------

FULL = "  - allocate_tensor_on_device: {as: dst, shape: [1, 1, 32, 32]}\n"
HOST = "  - from_torch: {as: dst, shape: [1, 7, 32, 32], mesh_mapper: {ShardTensorToMesh: {dim: 1}}}\n"
CASES = {"partial device": SEVEN, "full device": FULL, "host": HOST}
#: rule -> the inputs whose *_like kills the process (tests/golden api "creation" event 15, and a plain
#: host tensor in 0.66.0's mock). A device form is a device op: where the 0.6x mocks die there they die
#: at any device op (ttnn.abs, ttnn.neg alike), which is the mock's, not the era's (section 23)
DIES = {"made": (), "host_crash": ("host",)}


@pytest.mark.parametrize("op", ["zeros_like: {tensor: dst, as: z}", "ones_like: {tensor: dst, as: z}",
                                "full_like: {tensor: dst, fill_value: 2.0, as: z}"])
@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("rule", list(DIES))
def test_fill_like_dies_where_the_era_died(rule, case, op):
    report = _run(CASES[case] + f"  - {op}\n", fill_like=rule)
    if case in DIES[rule]:
        assert report["error"] is not None and "crashes here (SIGSEGV" in report["error"]["message"]
        assert report["error"]["message"].startswith(op.split(":")[0] + " of ")
    else:
        assert report["error"] is None
        z = _tensors(report)["z"]
        assert z["storage"] == ("host" if case == "host" else "device")


def test_empty_like_is_no_fill_and_never_dies():
    # creation events 4 and 5: empty_like of the partial dst is made on every version
    for rule in DIES:
        assert _run(SEVEN + "  - empty_like: {tensor: dst, as: e}\n", fill_like=rule)["error"] is None


def test_a_write_since_the_reshape_is_read_against_the_storages_own_shape():
    """0.66.0 and 0.67.0 (a tester's probe, both versions, every run): d allocated on the 2x4 mesh,
    the mesh reshaped to 4x2, a copy sharded over the 4x2 mesh written into d: cpu() refuses
    ``Coordinate MeshCoordinate([2, 0]) is out of bounds for shape MeshShape([2, 4])``, the words
    0.81.1 says too (docs/semantics.md section 23, reshaped_storage)."""
    steps = ("  - allocate_tensor_on_device: {as: d, shape: [1, 1, 32, 32]}\n"
             "  - MeshDevice.reshape: {shape: [4, 2]}\n"
             "  - from_torch: {as: s, shape: [1, 8, 32, 32], mesh_mapper: {shard: 1}}\n"
             "  - copy_host_to_device_tensor: {src: s, dst: d}\n"
             "  - cpu: {tensor: d, as: h}\n")
    text = "meshspec: 1\nname: f\nmesh: t3k\nsteps:\n" + steps
    for profile in ("current", "ttnn-0.67.0", "ttnn-0.66.0"):
        report = run(parse(text, Path("f.yaml")), profile).to_json()
        assert report["error"]["message"].startswith("Coordinate MeshCoordinate([2, 0]) is out of bounds for shape MeshShape([2, 4])")


@pytest.mark.parametrize("rule, said", [("made", "crashes here (SIGSEGV"), ("host_crash", "Device needs to not be null.")])
def test_empty_like_of_a_host_tensor_with_no_device(rule, said):
    """0.81.1 and 0.67.0 die; 0.66.0 refuses in buffer.cpp's words (a tester's probe: plain and mapped
    host tensors; docs/semantics.md section 23, fill_like)."""
    for source in ("  - from_torch: {as: x, shape: [1, 1, 32, 32]}\n", HOST.replace("dst", "x")):
        report = _run(source + "  - empty_like: {tensor: x, as: e}\n", fill_like=rule)
        assert said in report["error"]["message"]
        assert report["error"].get("crash", False) is (rule == "made")
