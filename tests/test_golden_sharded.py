"""Sharded memory against the real ttnn 0.81.1 (tests/golden/ttnn_0_81_1_sharded.json, recorded by
tools/golden/record_sharded.py in mock mode): each system's worker grid and DRAM banks, each 2-D
sharded spec's padded shape, pages, per-bank reservation and per-core page lists, and each
validation error's words and the stage that raises it (docs/semantics.md section 11)."""

import json
from pathlib import Path

import pytest

from meshspec.errors import TTFatal
from meshspec.sim.mesh import SYSTEMS
from meshspec.sim.sharding import MemoryLayout, Orientation, ShardSpec, grid_error
from meshspec.sim.spec import Arch, BufferType, DataType, Layout, make_spec

GOLDEN = json.loads((Path(__file__).parent / "golden" / "ttnn_0_81_1_sharded.json").read_text())


@pytest.mark.parametrize("row", GOLDEN["systems"], ids=lambda r: r["system"])
def test_each_systems_worker_grid_and_dram_banks(row):
    s = SYSTEMS[row["system"]]
    assert s.worker_grid == tuple(row["worker_grid"])
    assert s.dram_banks == row["buffer_types"]["dram"]["num_banks"]


def _case(row):
    m = row["memory_config"]
    arch = Arch(SYSTEMS[row["system"]].arch)
    layout = MemoryLayout(m["memory_layout"])
    shard = None
    if layout is not MemoryLayout.INTERLEAVED:
        grid = tuple((tuple(a), tuple(b)) for a, b in m["grid"])
        shard = ShardSpec(layout, grid, tuple(m["shard_shape"]), Orientation(m["orientation"]))
    return dict(shape=tuple(row["shape"]), dtype=DataType(row["dtype"]), layout=Layout(row["layout"]), tile=tuple(row.get("tile") or (32, 32)),
                memory=BufferType(m["buffer_type"]), arch=arch), shard


def _modeled(row) -> bool:
    m = row.get("memory_config") or {}
    if m.get("buffer_type") not in ("dram", "l1"):  # L1_SMALL and TRACE are not modeled
        return False
    return m.get("memory_layout") in ("height_sharded", "width_sharded", "block_sharded", "interleaved") and len(m.get("shard_shape") or [0, 0]) == 2 and (m.get("shard_shape") is not None or m.get("memory_layout") == "interleaved")


SPECS = [r for r in GOLDEN["specs"] if _modeled(r) and r["error"] is None and r["memory_config"]["memory_layout"] != "interleaved"]


@pytest.mark.parametrize("row", SPECS, ids=lambda r: f"{r['system']}-{r['memory_config']['memory_layout']}-{r['layout']}-{r['shape']}")
def test_sharded_specs_pages_and_per_core_placement(row):
    fields, shard = _case(row)
    spec = make_spec(shard=shard, **fields)
    assert list(spec.padded_shape) == row["padded_shape"]
    assert (spec.page_size, spec.aligned_page_size, spec.num_pages) == (row["page_size"], row["aligned_page_size"], row["num_pages"])
    got = {core: list(pages) for core, pages in spec.core_pages}
    for c in row["cores"]:  # ttnn lists the cores that take a shard (the others hold nothing)
        assert got.pop(tuple(c["core"])) == c["pages"], c["core"]
    assert all(not pages for pages in got.values())
    assert spec.bank_bytes == row["per_bank_size"]


ERRORS = [r for r in GOLDEN["errors"] + GOLDEN["specs"] if _modeled(r) and r["raised_at"] in ("spec", "allocate")]


@pytest.mark.parametrize("row", ERRORS, ids=lambda r: f"{r['system']}-{(r.get('note') or str(r['shape']))[:40]}")
def test_validation_errors_in_the_real_words_at_the_real_stage(row):
    fields, shard = _case(row)
    words = row["error"].removeprefix("TT_FATAL: ")
    if row["raised_at"] == "spec":
        with pytest.raises(TTFatal) as err:
            make_spec(shard=shard, **fields)
        assert str(err.value).startswith(words)  # the real words first; meshspec's explanation may follow
        return
    spec = make_spec(shard=shard, **fields)  # the spec is taken; the buffer is refused
    system = SYSTEMS[row["system"]]
    assert grid_error(spec.shard, spec.memory is BufferType.DRAM, system.worker_grid, system.dram_banks) == words


# -- the allocator (meshspec/sim/allocator.py): every sequence of the golden "allocator" section --
from meshspec.sim.allocator import Allocators  # noqa: E402

SEQUENCES = [s for s in GOLDEN["allocator"] if s["name"] != "per_core_without_hybrid"]


def _tensor_spec(system: str, t: dict):
    m = t["memory_config"]
    layout = MemoryLayout(m.get("memory_layout") or "interleaved")
    shard = None
    if layout is not MemoryLayout.INTERLEAVED:
        shard = ShardSpec(layout, tuple((tuple(a), tuple(b)) for a, b in m["grid"]), tuple(m["shard_shape"]), Orientation(m["orientation"]))
    return make_spec(tuple(t["shape"]), DataType(t["dtype"]), Layout(t["layout"]), (32, 32), BufferType(m["buffer_type"]),
                     Arch(SYSTEMS[system].arch), shard)


@pytest.mark.parametrize("seq", SEQUENCES, ids=lambda s: f"{s['system']}-{s['name']}")
def test_buffers_go_where_the_real_allocator_puts_them(seq):
    system = SYSTEMS[seq["system"]]
    alloc = Allocators(Arch(system.arch), system.worker_grid[0] * system.worker_grid[1])
    for memory, base in seq["base_address"].items():
        assert alloc.bank(BufferType(memory)).base == base
        assert alloc.bank(BufferType(memory)).banks == seq["num_banks"][memory]
    live: dict[str, tuple] = {}
    for step in seq["steps"]:
        where = f"{step['op']} {step['name']}"
        if step["op"] == "allocate":
            t = step["tensor"]
            spec = _nd_spec(dict(t, system=seq["system"])) if t["memory_config"].get("nd_shard_spec") else _tensor_spec(seq["system"], t)
            if step["error"]:
                with pytest.raises(TTFatal) as err:
                    alloc.allocate(spec)
                assert str(err.value) == step["error"].removeprefix("TT_FATAL: "), where
            else:
                live[step["name"]] = (spec, alloc.allocate(spec))
                assert live[step["name"]][1] == step["address"], where
        elif step["op"] == "deallocate" and step["name"] in live:  # a second deallocate is ignored
            spec, address = live.pop(step["name"])
            alloc.free(spec, address)
        if step.get("blocks") is not None and step.get("buffer_type"):
            got = [[o, s, a] for o, s, a in alloc.bank(BufferType(step["buffer_type"])).blocks]
            assert got == step["blocks"], where


# -- ttnn.create_sharded_memory_config (meshspec/sim/sharding.py) ---------------------------------
from meshspec.sim.sharding import ShardingHelperError, create_sharded_memory_config  # noqa: E402

HELPER = [c for c in GOLDEN["create_sharded_memory_config"] if c["function"] == "create_sharded_memory_config"]


@pytest.mark.parametrize("case", HELPER, ids=lambda c: f"{c['shape']}-{c['strategy']}-{c['core_grid'] or 'crs'}-{c['orientation']}")
def test_the_sharding_helper_makes_what_ttnn_makes(case):
    grid = (case["core_grid"]["x"], case["core_grid"]["y"]) if case["core_grid"] else None
    ranges = tuple((tuple(a), tuple(b)) for a, b in case["core_range_set"]) if case["core_range_set"] else None
    args = (tuple(case["shape"]), grid, ranges, MemoryLayout(f"{case['strategy']}_sharded"),
            Orientation(case["orientation"]) if case["orientation"] else None, case["use_height_and_width_as_shard_shape"])
    if case["error"]:
        with pytest.raises(ShardingHelperError) as err:
            create_sharded_memory_config(*args)
        assert case["error"] == f"RuntimeError: {err.value}"
        return
    shard = create_sharded_memory_config(*args)
    want = case["memory_config"]
    assert (shard.layout.value, want["buffer_type"]) == (want["memory_layout"], "l1")
    assert [[list(a), list(b)] for a, b in shard.grid] == want["shard_spec"]["grid"]
    assert list(shard.shape) == want["shard_spec"]["shard_shape"] and shard.orientation.value == want["shard_spec"]["orientation"]
    # what ttnn then says of a bfloat16 TILE tensor of that shape in that config
    tile = case["allocate_tile_bfloat16"]
    if tile["error"]:
        with pytest.raises(TTFatal) as err:
            make_spec(tuple(case["shape"]), DataType.BFLOAT16, Layout.TILE, (32, 32), BufferType.L1, Arch.WORMHOLE_B0, shard)
        assert str(err.value) == tile["error"].removeprefix("TT_FATAL: ")
    else:
        make_spec(tuple(case["shape"]), DataType.BFLOAT16, Layout.TILE, (32, 32), BufferType.L1, Arch.WORMHOLE_B0, shard)


# -- ND shard specs (meshspec/sim/sharding.py nd_*) ------------------------------------------------
from meshspec.sim.sharding import Distribution, nd_allocation_error  # noqa: E402


def _nd_spec(row):
    m = row["memory_config"]
    nd = m["nd_shard_spec"]
    shard = ShardSpec(MemoryLayout.ND_SHARDED, tuple((tuple(a), tuple(b)) for a, b in nd["grid"]), tuple(nd["shard_shape"]),
                      Orientation(nd["orientation"]), Distribution(nd["distribution"]))
    return make_spec(tuple(row["shape"]), DataType(row["dtype"]), Layout(row["layout"]), (32, 32), BufferType(m["buffer_type"]),
                     Arch(SYSTEMS[row["system"]].arch), shard)


ND = [r for r in GOLDEN["nd_specs"] if (r.get("memory_config") or {}).get("nd_shard_spec") and r["memory_config"]["buffer_type"] in ("dram", "l1")]


@pytest.mark.parametrize("row", ND, ids=lambda r: f"{r['system']}-{r['shape']}-{r['memory_config']['nd_shard_spec']['shard_shape']}-{r['memory_config']['nd_shard_spec']['distribution']}")
def test_nd_specs_convert_place_and_refuse_as_ttnn_does(row):
    if row["raised_at"] == "spec":
        with pytest.raises(TTFatal) as err:
            _nd_spec(row)
        assert str(err.value) == row["error"].removeprefix("TT_FATAL: ")
        return
    spec = _nd_spec(row)
    want = row["spec_memory_config"] or {}
    assert spec.shard.layout.value == want["memory_layout"]  # an ND spec a 2-D one can express becomes it
    if row["raised_at"] == "allocate":
        assert nd_allocation_error(spec.shard, spec.padded_shape, spec.page_shape) == row["error"].removeprefix("TT_FATAL: ")
        return
    assert row["error"] is None
    assert list(spec.padded_shape) == row["padded_shape"] and spec.num_pages == row["num_pages"]
    assert spec.bank_bytes == row["per_bank_size"]
    if isinstance(row["cores"], list):  # (ttnn's page-mapping call refuses an uneven contiguous_1d)
        got = {core: list(pages) for core, pages in spec.core_pages}
        for c in row["cores"]:
            assert got.pop(tuple(c["core"])) == c["pages"], c["core"]
        assert all(not p for p in got.values())


# -- writes into a sharded buffer: which ones check the packed size (meshspec/sim/ops/copy.py) -------
from meshspec.runner import execute  # noqa: E402
from meshspec.scenario.loader import LoadedStep  # noqa: E402
from meshspec.sim.ops import OPS  # noqa: E402
from meshspec.sim.profiles import get_profile  # noqa: E402
from meshspec.sim.runtime import Runtime  # noqa: E402
from meshspec.typed import validate  # noqa: E402

WRITES = [c for c in GOLDEN["mesh"] if c["name"] == "to_device_split_row_major_width"]


def _memory_config(m: dict) -> dict:
    return {"memory_layout": m["memory_layout"], "buffer_type": m["buffer_type"],
            "shard_spec": {"grid": m["grid"], "shape": m["shard_shape"], "orientation": m["orientation"]}}


def _write_step(s: dict) -> dict:
    """A recorded mesh step as the meshspec step it is."""
    if s["op"] == "host":
        h = s["host"]
        step = {"as": s["out"], "shape": h["shape"], "dtype": h["dtype"], "layout": h["layout"]}
        if h["placements"] is not None:
            mapper = {"placements": [p if p == "R" else {"shard": p["shard"]} for p in h["placements"]]}
            if h["mesh_shape_override"] is not None:
                mapper["mesh_shape_override"] = h["mesh_shape_override"]
            step["mesh_mapper"] = {"create_mesh_mapper": mapper}
        return {"from_torch": step}
    if s["op"] == "to_device":
        key, op = ("src", "to_device") if s["call"] == "ttnn.to_device" else ("tensor", "to")
        return {op: {key: s["src"], "as": s["out"], "memory_config": _memory_config(s["memory_config"])}}
    if s["op"] == "allocate":
        t = s["tensor"]
        return {"allocate_tensor_on_device": {"as": s["out"], "shape": t["shape"], "dtype": t["dtype"], "layout": t["layout"],
                                              "memory_config": _memory_config(t["memory_config"])}}
    assert s["op"] == "copy", s
    return {"copy_host_to_device_tensor": {"src": s["src"], "dst": s["dst"]}}


@pytest.mark.parametrize("case", WRITES, ids=lambda c: f"{c['system']}-{c['name']}")
def test_only_a_plain_host_tensor_has_its_packed_size_checked(case):
    """docs/semantics.md section 11: the packed-size check is ttnn's for one host buffer replicated
    over the mesh (distributed_tensor_apis.cpp, h2d_as_replicate_tensor_on_1x1_mesh); a mapped host
    tensor of the same per-device shape goes into the padded buffer."""
    rt = Runtime(tuple(SYSTEMS[case["system"]].shape), get_profile("current"))
    for n, s in enumerate(case["steps"]):
        (op, args), = _write_step(s).items()
        step = LoadedStep(n, op, validate(OPS[op].args, args), 0)
        if s["error"]:
            with pytest.raises(TTFatal) as err:
                execute(rt, step)
            assert str(err.value).startswith(s["error"].removeprefix("TT_FATAL: ")), n
            continue
        execute(rt, step)
        got, want = rt.tensors[s.get("out") or s.get("dst")], s["result"]
        if want["storage"] != "device":
            continue
        rec = got.record
        assert rec.topology.to_json()["distribution_shape"] == want["topology"]["distribution_shape"], n
        assert [list(c) for c in rec.recorded] == want["device_coords"], n
        for group in want["device_specs"]:
            for c in group["coords"]:
                spec = rec.specs[tuple(c)]
                assert (list(spec.padded_shape), spec.num_pages) == (group["padded_shape"], group["num_pages"]), (n, c)


def test_a_plain_host_tensor_onto_one_device_is_not_checked():
    """The packed-size check sits on the path that replicates a 1x1 host buffer over a larger mesh
    (distributed_tensor_apis.cpp: host buffer shape (1,1) and fewer shards than the mesh has
    devices): on a 1x1 submesh the plain (1,1,64,200) goes in padded to 256 (ttnn 0.81.1 mock: taken
    on a 1x1 submesh and on an N150, refused on a 1x2 submesh)."""
    from meshspec.runner import run
    from meshspec.scenario.loader import parse

    width = ("{memory_layout: width_sharded, buffer_type: l1, shard_spec: {grid: [[[0, 0], [3, 0]]], shape: [64, 64]}}")

    def put(shape):
        steps = (f"  - create_submesh: {{shape: {shape}, as: s}}\n"
                 "  - from_torch: {as: h, shape: [1, 1, 64, 200], layout: row_major}\n"
                 f"  - to_device: {{src: h, as: d, device: s, memory_config: {width}}}\n")
        return run(parse(f"meshspec: 1\nname: r\nmesh: t3k\nsteps:\n{steps}", Path("r.yaml")), "current").to_json()

    one = put([1, 1])
    assert one["error"] is None
    d = next(t for t in one["tensors"] if t["name"] == "d")
    assert d["devices"][0]["spec"]["padded_shape"] == [1, 1, 64, 256]
    assert put([1, 2])["error"]["message"].startswith("Host data with total size 25600B does not match expected size 32768B")


# -- device ops' outputs (issue 35, facts for the lead's output primitive: meshspec/sim/ops/output.py) --
from meshspec.runner import run as _run  # noqa: E402
from meshspec.scenario.loader import parse as _parse  # noqa: E402

_HS = "{memory_layout: height_sharded, buffer_type: l1, shard_spec: {grid: [[[0, 0], [3, 0]]], shape: [32, 64]}}"
_OP_SETUP = (f"  - allocate_tensor_on_device: {{as: x, shape: [1, 1, 128, 64], memory_config: {_HS}}}\n"
             f"  - allocate_tensor_on_device: {{as: y, shape: [1, 1, 128, 64], memory_config: {_HS}}}\n"
             "  - allocate_tensor_on_device: {as: w, shape: [1, 1, 64, 64]}\n")
#: The golden op_outputs cases as meshspec steps (the recorder's OP_SETUP is _OP_SETUP).
_OP_STEPS = {
    "zeros_sharded": f"zeros: {{as: o, shape: [1, 1, 128, 64], device: mesh_device, memory_config: {_HS}}}",
    "ones_sharded": f"ones: {{as: o, shape: [1, 1, 128, 64], device: mesh_device, memory_config: {_HS}}}",
    "full_sharded": f"full: {{as: o, shape: [1, 1, 128, 64], fill_value: 3.0, device: mesh_device, memory_config: {_HS}}}",
    "neg": "neg: {tensor: x, as: o}", "exp": "exp: {tensor: x, as: o}", "relu": "relu: {tensor: x, as: o}",
    "gelu": "gelu: {tensor: x, as: o}", "typecast": "typecast: {tensor: x, dtype: float32, as: o}",
    "add": "add: {a: x, b: y, as: o}", "sub": "sub: {a: x, b: y, as: o}", "mul": "mul: {a: x, b: y, as: o}",
    "matmul": "matmul: {a: x, b: w, as: o}", "sum_last_dim": "sum: {tensor: x, dim: -1, as: o}",
    "transpose": "transpose: {tensor: x, dim0: -2, dim1: -1, as: o}", "clone": "clone: {tensor: x, as: o}",
    "to_layout_row_major": "to_layout: {tensor: x, layout: row_major, as: o}",
}
#: Where meshspec's op bodies disagree today; the lead's output primitive flips them (strict xfail).
_LEAD: set = set()
_OPS_ROWS = [pytest.param(r, marks=pytest.mark.xfail(strict=True, reason="lead: output primitive")) if r["name"] in _LEAD
             else r for r in GOLDEN["op_outputs"]]


@pytest.mark.parametrize("row", _OPS_ROWS, ids=lambda r: r["name"])
def test_a_device_ops_output_is_where_ttnn_puts_it(row):
    """The output's memory layout, buffer type and address (ttnn 0.81.1 mock: the buffer a device op
    allocates before its kernel build fails, from ttnn.graph; docs/semantics.md section 12)."""
    shared = row["name"] == "reallocate_shared_seven"
    if shared:  # a second handle on dst's storage: ttnn.Tensor(dst) there, to_device of a device tensor here
        steps = ("  - allocate_tensor_on_device: {as: dst, shape: [1, 1, 32, 32]}\n"
                 "  - from_torch: {as: h, shape: [1, 7, 32, 32], mesh_mapper: {shard: 1}}\n"
                 "  - copy_host_to_device_tensor: {src: h, dst: dst}\n"
                 "  - to_device: {src: dst, as: alias}\n"
                 "  - reallocate: {tensor: dst, as: o}\n")
    else:
        steps = _OP_SETUP + f"  - {_OP_STEPS[row['name']]}\n"
    report = _run(_parse(f"meshspec: 1\nname: r\nmesh: t3k\nsteps:\n{steps}", Path("r.yaml")), "current", with_data=False).to_json()
    assert report["error"] is None
    o = next(t for t in report["tensors"] if t["name"] == "o")
    spec = o["devices"][0]["spec"]
    got = ((spec.get("memory_config") or {}).get("memory_layout", "interleaved"), spec["memory"], o["address"])
    made = [b for b in row["buffers"] if b[0] == "allocate"]
    want = (made[0][2], made[0][3], made[0][1]) if made else (
        row["result"]["memory_config"]["memory_layout"], row["result"]["memory_config"]["buffer_type"], row["result"]["address"])
    assert got == want
    if shared:  # reallocate: the same storage, its topology and coords as they were
        assert o["topology"] == row["result"]["topology"]
        assert [d["coord"] for d in o["devices"] if d["recorded"]] == row["result"]["device_coords"]
