"""``meshspec export --minimal`` (issue 37 item 4): the plain ttnn calls of a bug report. The seed's
script is checked line by line against the scenario; every bundled scenario's keeps to the
whitelist (tests/bridge/test_export_whitelist.py sweeps them); a step with no plain call ends the
script, said at its top; nothing from a scenario reaches the script but as a quoted literal or a
made name. That the script runs on the real ttnn: tests_ttnn/test_export_minimal.py."""

import ast
from pathlib import Path

from meshspec.bridge.minimal import export_minimal
from meshspec.scenario.loader import load, parse
from cli_runner import invoke
from script_whitelist import minimal_problems

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "scenarios" / "seed-uneven-copy.yaml"
HEAD = "meshspec: 1\nname: t\nmesh: t3k\nsteps:\n"

# Checked by hand against scenarios/seed-uneven-copy.yaml: mesh t3k is 2x4; step 0 allocates dst
# (1,1,32,32) bfloat16 TILE in DRAM (ttnn.TensorSpec's positional overload, as the full export);
# step 1 is from_torch of arange data, 1*7*32*32 = 7168 values, bfloat16 TILE, sharded on dim 1
# (from_torch ends in ttnn.Tensor(tensor=..., data_type=, layout=, mesh_mapper=): ttnn 0.81.1
# ttnn/operations/core.py); step 2 the copy; step 3 to_torch with concat on dim 1, kept as `_`.
# The 0.66/0.67 note: the numpy constructor of bfloat16 data fails in their mocks (docs/semantics.md
# section 10, export --minimal), so a bfloat16 tensor is made float32 and converted by ttnn.to_dtype,
# which runs on all three versions (the tier runs every minimal script on each); device_coords() is
# missing there (issue 37).
SEED_SCRIPT = '''\
# seed-uneven-copy: a meshspec scenario as plain ttnn calls (meshspec export --minimal).
# The seed (PR #18833): a (1,7,32,32) tensor sharded on dim 1 over a T3K gives 7 shards, copied
# into a uniform (1,1,32,32) allocation on all 8 devices. Under uniform-by-value the copy's record
# update is lost, so device (1,3) is still recorded as holding data that was never written (stale)
# and the readback returns its poison. Clean under current and reference.
# No torch needed (ttnn's mock has none): ttnn.Tensor(tensor=numpy_array, ...) is the call
# ttnn.from_torch makes, and .cpu().to_numpy(composer) is what ttnn.to_torch reads.
# A bfloat16 tensor is made float32, then ttnn.to_dtype: ttnn 0.66 and 0.67 misread a numpy array as
# bfloat16 (the same values and records on every version).
import numpy as np
import ttnn

mesh_device = ttnn.open_mesh_device(ttnn.MeshShape(2, 4))
dst = ttnn.allocate_tensor_on_device(ttnn.TensorSpec([1, 1, 32, 32], ttnn.bfloat16, ttnn.TILE_LAYOUT, ttnn.BufferType.DRAM), mesh_device)
src = ttnn.to_dtype(ttnn.Tensor(tensor=np.arange(7168, dtype=np.float32).reshape(1, 7, 32, 32), data_type=ttnn.float32, layout=ttnn.TILE_LAYOUT, mesh_mapper=ttnn.shard_tensor_to_mesh_mapper(mesh_device, 1)), ttnn.bfloat16)
ttnn.copy_host_to_device_tensor(src, dst)
_ = dst.cpu().to_numpy(ttnn.concat_mesh_to_tensor_composer(mesh_device, 1))

for name, tensor in {'dst': dst, 'src': src}.items():  # what the runtime records
    print(name, tensor.storage_type(), tensor.tensor_topology())
    if tensor.storage_type() == ttnn.StorageType.DEVICE and tensor.is_allocated() and hasattr(tensor, "device_coords"):
        print("  device_coords:", tensor.device_coords())  # the devices it records (not in ttnn 0.66/0.67)
    print("  shapes:", [list(part.shape) for part in ttnn.get_device_tensors(tensor)])
ttnn.close_mesh_device(mesh_device)
'''


def test_the_seed_is_a_short_script_of_plain_calls():
    text = export_minimal(load(SEED))
    assert text == SEED_SCRIPT
    assert len(text.splitlines()) <= 25
    assert minimal_problems(text) == []


def test_the_cli_writes_it_with_minimal(tmp_path):
    out = tmp_path / "repro.py"
    r = invoke(["export", str(SEED), "--minimal", "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert out.read_text(encoding="utf-8") == SEED_SCRIPT
    r = invoke(["export", str(SEED), "--minimal"])
    assert r.exit_code == 0 and r.stdout == SEED_SCRIPT


def _script(steps: str) -> str:
    return export_minimal(parse(HEAD + steps, Path("t.yaml")))


def test_a_step_with_no_plain_call_ends_the_script_and_its_top_says_so():
    text = _script("  - allocate_tensor_on_device: {as: a, shape: [1, 1, 32, 32]}\n"
                   "  - all_gather_async: {tensor: a, as: g, dim: 3, cluster_axis: 1}\n"
                   "  - deallocate: {tensor: a}\n")
    head = [line for line in text.splitlines() if line.startswith("#")]
    assert "# Left out: step 1 (all_gather_async, scenario line 6) and the one after it: its call needs ccl_semaphores(), " \
           "a helper of the full export's." in head
    assert "all_gather_async" not in "\n".join(line for line in text.splitlines() if not line.startswith("#"))
    assert "ttnn.deallocate" not in text
    assert "{'a': a}.items()" in text  # the records of what ran are still printed
    assert minimal_problems(text) == []


def test_an_opaque_step_is_its_parsed_call_or_left_out():
    base = ("  - allocate_tensor_on_device: {as: a, shape: [1, 1, 32, 32]}\n"
            "  - opaque: {as: out, call: ttnn.neg, uses: [a], shape: [1, 1, 32, 32]%s,\n"
            "      topology: {distribution_shape: [8], placements: [R], coords: [[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [1, 1], [1, 2], [1, 3]]}}\n")
    known = _script(base % ", code: 'ttnn.neg(a)'")
    assert "\nout = ttnn.neg(a)\n" in known and "Left out" not in known
    unknown = _script(base % "")  # a recorded call whose code was not kept
    assert "# Left out: step 1 (opaque, scenario line 6): ttnn.neg() is not modeled by meshspec and its call is not known." in unknown
    assert "ttnn.neg" not in "\n".join(line for line in unknown.splitlines() if not line.startswith("#"))
    assert minimal_problems(known) == [] and minimal_problems(unknown) == []


def test_what_a_scenario_names_stays_a_literal_or_a_made_name(tmp_path):
    import numpy as np

    np.save(tmp_path / "it's.npy", np.zeros((1, 1, 32, 32), dtype=np.float32))
    text = export_minimal(parse(
        "meshspec: 1\nname: \"x\\n__import__('os').system('id')\"\n"
        "description: \"line\\nimport os\\nos.system('id')\"\nmesh: t3k\nsteps:\n"
        "  - from_torch: {as: \"print\", shape: [1, 1, 32, 32], data: {file: \"it's.npy\"}}\n"
        "  - dump_tensor: {tensor: \"print\", file_name: /home/me/.bashrc}\n"
        "  - load_tensor: {file_name: /home/me/.bashrc, as: a.b}\n", tmp_path / "t.yaml"))
    code = [ast.unparse(n) for n in ast.parse(text).body]
    assert not any("import os" in c or "system" in c for c in code)  # the name and description are comments only
    assert "print_ = ttnn.to_dtype(ttnn.Tensor(tensor=np.load(here / \"it's.npy\").astype(np.float32)" in text
    assert "ttnn.dump_tensor(files / '%2Fhome%2Fme%2F.bashrc', print_)" in text
    assert "a_b = ttnn.load_tensor(files / '%2Fhome%2Fme%2F.bashrc')" in text
    assert "{'print': print_, 'a.b': a_b}.items()" in text
    assert minimal_problems(text) == []


def test_the_minimal_whitelist_catches_what_the_full_one_does():
    """Not vacuous: a step, the loop, the mesh and the imports are each checked."""
    text = export_minimal(load(SEED))
    assert minimal_problems(text) == []
    step = "ttnn.copy_host_to_device_tensor(src, dst)\n"
    for line, word in [
        ("x = ttnn.os.system(1)", "not a known ttnn callable"),
        ("x = ttnn.add(dst, dst.__dict__)", "a dunder attribute"),
        ("x = dst.pop(0)", "a call of an expression"),
        ("x = ttnn.add(dst, 'touch /tmp/owned')", "a text literal"),
        ("x = open(1)", "a call of 'open'"),
        ("x = np.save(1)", "a call of np.save"),
        ("import os", "an import not in the template"),
        ("for x in []: pass", "a loop other than the printing one"),
    ]:
        got = minimal_problems(text.replace(step, step + line + "\n"))
        assert any(word in p for p in got), (line, got)
    for old, new, word in [
        ("{'dst': dst,", "{'dst': open,", "not a step's variable"),
        ("ttnn.MeshShape(2, 4)", "ttnn.MeshShape(n)", "the mesh opened otherwise"),
        ('print("  shapes:"', 'print(open("x"), "  shapes:"', "the printing loop's body"),
        ("ttnn.close_mesh_device(mesh_device)\n", "ttnn.close_mesh_device(mesh_device)\nx = 1\n", "after the printing loop"),
    ]:
        assert old in text
        got = minimal_problems(text.replace(old, new))
        assert any(word in p for p in got), (new, got)


def test_from_torch_is_the_constructor_it_ends_in_made_on_host():
    """ttnn 0.81.1's from_torch passes its arguments to ttnn.Tensor(tensor=..., data_type=, layout=,
    tile=, mesh_mapper=) (ttnn/operations/core.py), a ReplicateTensorToMesh unwrapped; a tensor it
    puts on a device is made on host and moved by ttnn.to_device (the constructor given a device
    tilizes there, a kernel the mock cannot build: docs/semantics.md section 10)."""
    text = _script("  - from_torch: {as: a, shape: [1, 1, 32, 64], dtype: float32, layout: row_major, data: {fill: -1.5},\n"
                   "      mesh_mapper: ReplicateTensorToMesh, device: mesh_device, memory_config: L1_MEMORY_CONFIG}\n"
                   "  - from_torch: {as: b, shape: [2, 16, 32], tile: [16, 32], data: {random: 7}}\n")
    assert ("a = ttnn.to_device(ttnn.Tensor(tensor=np.full((1, 1, 32, 64), -1.5, dtype=np.float32), data_type=ttnn.float32, "
            "layout=ttnn.ROW_MAJOR_LAYOUT, mesh_mapper=ttnn.replicate_tensor_to_mesh_mapper(mesh_device)), mesh_device, "
            "memory_config=ttnn.L1_MEMORY_CONFIG)\n") in text
    assert ("b = ttnn.to_dtype(ttnn.Tensor(tensor=np.random.default_rng(7).standard_normal(1024, dtype=np.float32).reshape(2, 16, 32), "
            "data_type=ttnn.float32, layout=ttnn.TILE_LAYOUT, tile=ttnn.Tile([16, 32])), ttnn.bfloat16)\n") in text
    assert "# A tensor from_torch puts on a device is made on host, then ttnn.to_device" in text
    assert minimal_problems(text) == []


def test_a_collective_sets_the_fabric_before_the_mesh_opens_and_says_the_mock_cannot_run_it():
    """tt-metal's conftest.py sets a test's fabric_config with ttnn.set_fabric_config before it opens
    the mesh, and resets it to DISABLED after; without it a collective stops with "Trying to get
    un-initialized fabric context". With it, the mock cannot open the mesh (docs/semantics.md 10)."""
    text = _script("  - from_torch: {as: x, shape: [1, 1, 32, 256], mesh_mapper: {shard: 3}, device: mesh_device}\n"
                   "  - all_gather: {tensor: x, as: g, dim: 3, topology: ring}\n")
    lines = text.splitlines()
    assert lines[lines.index("mesh_device = ttnn.open_mesh_device(ttnn.MeshShape(2, 4))") - 1] == \
        "ttnn.set_fabric_config(ttnn.FabricConfig.FABRIC_1D_RING)"
    assert lines[-2:] == ["ttnn.close_mesh_device(mesh_device)", "ttnn.set_fabric_config(ttnn.FabricConfig.DISABLED)"]
    assert "# cannot run this: opening a mesh with a fabric builds its router kernel, which the mock cannot compile." in lines
    assert minimal_problems(text) == []
    linear = _script("  - from_torch: {as: x, shape: [1, 1, 32, 256], mesh_mapper: {shard: 3}, device: mesh_device}\n"
                     "  - all_gather: {tensor: x, as: g, dim: 3}\n")
    assert "ttnn.set_fabric_config(ttnn.FabricConfig.FABRIC_1D)" in linear.splitlines()
    assert "set_fabric_config" not in _script("  - allocate_tensor_on_device: {as: a, shape: [1, 1, 32, 32]}\n")
    moved = text.replace("ttnn.set_fabric_config(ttnn.FabricConfig.FABRIC_1D_RING)\nmesh_device = ttnn.open_mesh_device(ttnn.MeshShape(2, 4))",
                         "mesh_device = ttnn.open_mesh_device(ttnn.MeshShape(2, 4))\nttnn.set_fabric_config(ttnn.FabricConfig.FABRIC_1D_RING)")
    assert moved != text and any("the fabric set elsewhere" in p for p in minimal_problems(moved))
