"""Issue 6, section 1: properties of the simulator over random scenarios, and detector
completeness under injected faults (hypothesis; see conftest for the example-count profiles).

- docs/semantics.md section 4: accepted distributions tile the tensor; every device reads back exactly
  its slice of the source (lossless dtypes), under every profile whose mapper accepts it.
- Bytes written never exceed the buffer; written pages are a subset of allocated pages.
- The reference profile records exactly what is written: no random scenario yields a finding.
- One injected fault (skip a device's write, drop its record, enlarge its recorded shape) gives
  exactly the matching finding on exactly that device (faults.py), no misses, no false positives.
"""

from hypothesis import event, example, given
from hypothesis import strategies as st

from conftest import make_scenario
from meshspec.errors import TTFatal
from meshspec.sim.faults import Fault
from meshspec.sim.profiles import get_profile
from meshspec.runner import run
from meshspec.runner import execute
from meshspec.sim.runtime import Runtime
from meshspec.sim.tensor import DeviceTensor
from meshspec.sim.values import same_bits

LOSSLESS = ["bfloat16", "float32", "int32", "uint32", "uint16", "uint8"]


@st.composite
def scenarios(draw, lossless=True):
    """A from_torch with a random mapper, put on the mesh by to_device or by a copy into a
    matching allocation, then read back with cpu or to_torch."""
    mesh = draw(st.one_of(st.tuples(st.integers(1, 8)), st.tuples(st.integers(1, 8), st.integers(1, 8))))
    rank = draw(st.integers(1, 4))
    # sizes 1 to 64, at most 4096 elements in all (the examples stay fast)
    shape, budget = [], 4096
    for _ in range(rank):
        size = draw(st.integers(1, min(64, budget)))
        shape.append(size)
        budget //= size
    shape = draw(st.permutations(shape))
    dtype = draw(st.sampled_from(LOSSLESS if lossless else LOSSLESS + ["bfloat8_b", "bfloat4_b"]))
    layout = "tile" if dtype.endswith("_b") else draw(st.sampled_from(["tile", "row_major"]))
    kind = draw(st.sampled_from(["replicate", "shard", "placements"]))
    if kind == "replicate":
        mapper = "replicate"
    elif kind == "shard":
        mapper = {"shard": draw(st.integers(0, rank - 1))}
    else:
        dims = draw(st.permutations(range(rank)))
        mapper = {"placements": [{"shard": dims[a]} if a < rank and draw(st.booleans()) else "replicate" for a in range(len(mesh))]}
    host = {"from_torch": {"as": "h", "shape": shape, "dtype": dtype, "layout": layout, "data": {"random": 5}, "mesh_mapper": mapper}}
    via_copy = draw(st.booleans())
    read = draw(st.sampled_from(["cpu", "to_torch"]))
    return list(mesh), host, via_copy, read


def inverse_composer(mapper, rank):
    """The composer that undoes ``mapper``: concatenate each sharded mesh axis along its dim, and
    stack replicas along some other dim (docs/semantics.md section 5: a composer on another dim
    than the mapper's is a data_mismatch, issue 10 item 1.1). None when no composer can (rank too
    small to give each mesh axis its own dim)."""
    if mapper is None or mapper == "replicate":
        return {"concat": 0}
    if "shard" in mapper:
        return {"concat": mapper["shard"]}
    sharded = [p["shard"] for p in mapper["placements"] if p != "replicate"]
    spare = [d for d in range(rank) if d not in sharded]
    dims = []
    for p in mapper["placements"]:
        if p != "replicate":
            dims.append(p["shard"])
        elif spare:
            dims.append(spare.pop(0))
        else:
            return None
    return {"concat": dims}


def _steps(host, via_copy, read, shard_shape=None):
    steps = [host]
    if via_copy:
        a = host["from_torch"]
        steps.insert(0, {"allocate_tensor_on_device": {"as": "d", "shape": shard_shape, "dtype": a["dtype"], "layout": a["layout"]}})
        steps.append({"copy_host_to_device_tensor": {"src": "h", "dst": "d"}})
    else:
        steps.append({"to_device": {"src": "h", "as": "d"}})
    composer = inverse_composer(host["from_torch"]["mesh_mapper"], len(host["from_torch"]["shape"]))
    if read == "cpu" or composer is None:
        steps.append({"cpu": {"tensor": "d", "as": "back"}})
    else:
        steps.append({"to_torch": {"tensor": "d", "mesh_composer": composer}})
    return steps


def _prepare(case, profile):
    """Run the from_torch alone to learn the shard shape; None if the mapper refuses."""
    mesh, host, via_copy, read = case
    rt = Runtime(tuple(mesh) if len(mesh) > 1 else (mesh[0],), get_profile(profile))
    scenario = make_scenario([host], mesh=mesh)
    try:
        execute(rt, scenario.steps[0])
    except TTFatal:
        return None
    shards = rt.tensors["h"].shards
    shapes = {s.spec.shape for s in shards.values()}
    if via_copy and len(shapes) > 1:
        return None  # unequal shards (legacy) cannot all match one allocation
    return make_scenario(_steps(host, via_copy, read, list(next(iter(shapes)))), mesh=mesh), rt.tensors["h"]


@given(scenarios(), st.sampled_from(["current", "reference", "uniform-by-value"]))
# found by the thorough profile: a legacy uneven shard (8 of 17 columns) in a buffer sized for the
# widest (9) is written at the buffer's page stride and must be read back at it
@example(([2], {"from_torch": {"as": "h", "shape": [2, 17], "dtype": "float32", "layout": "row_major", "data": {"random": 5}, "mesh_mapper": {"shard": 1}}}, False, "cpu"), "uniform-by-value")
def test_every_device_reads_back_its_slice_and_writes_fit(case, profile):
    prepared = _prepare(case, profile)
    if prepared is None:
        event("refused by the mapper")
        return
    scenario, host = prepared
    rt = Runtime(scenario.mesh_shape, get_profile(profile))
    for step in scenario.steps[:-1]:
        execute(rt, step)
    dev = rt.tensors["d"]
    assert isinstance(dev, DeviceTensor)
    for c, shard in host.shards.items() if not host.plain else ():
        # bytes written never exceed the buffer; written pages are allocated pages
        assert dev.buffer.written_pages(c) <= dev.buffer.spec.num_pages
        assert dev.buffer.written_bytes(c) <= dev.buffer.spec.buffer_bytes
        got = dev.buffer.read(c, shard.spec)
        src = rt.tensors["h"].source_values[shard_slices(shard)]
        assert same_bits(got, src.astype(got.dtype)).all(), (c, shard.spec.describe())
    event(f"checked {len(host.shards)} shard(s)")


def shard_slices(shard):
    return tuple(slice(o, o + n) for o, n in zip(shard.offset, shard.spec.shape))


@given(scenarios(lossless=False))
def test_reference_profile_never_reports_a_finding(case):
    prepared = _prepare(case, "reference")
    if prepared is None:
        return
    scenario, _ = prepared
    report = run(scenario, "reference")
    event("composer refused" if report.error else "clean run checked")
    if report.error is not None:
        # only a composer may refuse (N-D composition needs every shard; replicas differ in shape)
        assert report.error.op == "to_torch", report.error
        return
    assert report.findings == (), [f.message for f in report.findings]


@given(scenarios(), st.sampled_from(["skip_write", "drop_record", "alter_shape"]), st.data())
def test_an_injected_fault_is_found_on_exactly_that_device(case, kind, data):
    prepared = _prepare(case, "reference")
    if prepared is None:
        event("refused by the mapper")
        return
    scenario, host = prepared
    write_step = next(s.index for s in scenario.steps if s.op in ("copy_host_to_device_tensor", "to_device"))
    devices = sorted(host.shards) if not host.plain else [tuple(0 for _ in scenario.mesh_shape)]
    coord = data.draw(st.sampled_from(devices))
    fault = Fault(kind, write_step, coord)
    report = run(scenario, "reference", fault=fault)
    device_level = ("data_mismatch", "topology_mismatch")
    record_level = {(f.kind.value, f.tensor, f.device) for f in report.findings if f.kind.value not in device_level and f.tensor == "d"}
    assert record_level == {(fault.expected, "d", coord)}, (fault, [f.message for f in report.findings])
    # a dropped record also leaves the topology listing a device the record no longer has
    # (docs/semantics.md section 9): a topology_mismatch of d, naming the device, while d still
    # records some device (a tensor recorded nowhere is judged by its devices alone)
    topology = [f for f in report.findings if f.kind.value == "topology_mismatch" and f.tensor == "d"]
    d = next(t for t in report.tensors if t.name == "d")
    if kind == "drop_record" and any(v.recorded for v in d.devices):
        assert len(topology) == 1 and f"({','.join(map(str, coord))})" in topology[0].message
    else:
        assert topology == [], [f.message for f in topology]
    # consequences (the readback) may only point at the same device
    assert all(f.device in (coord, None) for f in report.findings if f.tensor == "d")
    event(f"fault {kind} found")


@st.composite
def sequences(draw):
    """Random programs: host tensors with random mappers, put on the mesh, copied, read back,
    deallocated, in a random order (never using a freed tensor)."""
    mesh = draw(st.one_of(st.tuples(st.integers(1, 8)), st.tuples(st.integers(1, 4), st.integers(1, 4))))
    rank = draw(st.integers(1, 3))
    shape = draw(st.lists(st.integers(1, 16), min_size=rank, max_size=rank))
    dtype = draw(st.sampled_from(LOSSLESS))
    steps, hosts, devices, freed = [], [], [], set()
    mappers = {}  # tensor -> the mapper of the host tensor whose data it holds (for its composer)
    for i in range(draw(st.integers(1, 3))):
        dim = draw(st.integers(0, rank - 1))
        mapper = draw(st.sampled_from(["replicate", {"shard": dim}, None]))
        step = {"as": f"h{i}", "shape": shape, "dtype": dtype, "data": {"random": i}}
        if mapper is not None:
            step["mesh_mapper"] = mapper
        steps.append({"from_torch": step})
        hosts.append(f"h{i}")
        mappers[f"h{i}"] = mapper
    for j in range(draw(st.integers(1, 8))):
        op = draw(st.sampled_from(["to_device", "copy", "cpu", "to_torch", "deallocate"]))
        live = [d for d in devices if d not in freed]
        if op == "to_device" or not live:
            name, src = f"d{j}", draw(st.sampled_from(hosts))
            steps.append({"to_device": {"src": src, "as": name}})
            devices.append(name)
            mappers[name] = mappers[src]
        elif op == "copy":
            src, dst = draw(st.sampled_from(hosts)), draw(st.sampled_from(live))
            steps.append({"copy_host_to_device_tensor": {"src": src, "dst": dst}})
            mappers[dst] = mappers[src]
        elif op == "cpu":
            steps.append({"cpu": {"tensor": draw(st.sampled_from(live)), "as": f"c{j}"}})
        elif op == "to_torch":
            tensor = draw(st.sampled_from(live + hosts))
            steps.append({"to_torch": {"tensor": tensor, "mesh_composer": inverse_composer(mappers[tensor], rank)}})
        else:
            victim = draw(st.sampled_from(live))
            steps.append({"deallocate": {"tensor": victim}})
            freed.add(victim)
    return list(mesh), steps


@given(sequences())
def test_reference_random_programs_report_nothing(program):
    mesh, steps = program
    report = run(make_scenario(steps, mesh=mesh), "reference")
    if report.error is not None:
        # the library's own refusals: a mapper rule, a copy of another shard shape, a composer
        assert report.error.op in ("from_torch", "copy_host_to_device_tensor", "to_torch"), report.error
        event(f"stopped at {report.error.op}")
    else:
        event("ran to the end")
    assert report.findings == (), [f.message for f in report.findings]
