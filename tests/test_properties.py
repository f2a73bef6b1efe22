"""Properties of the simulator over random meshes, shapes and placements (hypothesis).

docs/semantics.md section 4 (mapping) and 5 (composing): whenever the current mapper accepts a tensor,
its shards tile the global tensor and composing them back gives the source exactly; under the
reference profile a copy into a matching allocation records exactly what was written.
"""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from meshspec.errors import TTFatal
from meshspec.sim.mapping import distribute
from meshspec.sim.placement import Replicate, Shard

meshes = st.one_of(
    st.tuples(st.integers(1, 8)),
    st.tuples(st.integers(1, 8), st.integers(1, 8)),
)
shapes = st.lists(st.integers(1, 12), min_size=1, max_size=4).map(tuple)


@st.composite
def cases(draw):
    mesh = draw(meshes)
    shape = draw(shapes)
    dims = draw(st.permutations(range(len(shape))))
    placements = []
    for axis in range(len(mesh)):
        if draw(st.booleans()) and axis < len(dims):
            placements.append(Shard(dims[axis]))
        else:
            placements.append(Replicate())
    return mesh, shape, tuple(placements)


@settings(deadline=None)
@given(cases())
def test_accepted_distributions_tile_and_compose_back(case):
    mesh, shape, placements = case
    try:
        d = distribute(shape, mesh, placements)
    except TTFatal:
        return
    data = np.arange(math.prod(shape)).reshape(shape)
    replicas = math.prod(mesh[a] for a, p in enumerate(placements) if isinstance(p, Replicate))
    cover = np.zeros(shape, dtype=int)
    for s in d.slots:
        cover[s.slices()] += 1
        assert data[s.slices()].shape == s.shape
    assert (cover == replicas).all()
    # compose: concatenate along the sharded dims, one replica
    sharded = [(a, p.dim) for a, p in enumerate(placements) if isinstance(p, Shard)]
    first = [s for s in d.slots if all(s.coord[a] == 0 for a, p in enumerate(placements) if isinstance(p, Replicate))]
    rebuilt = np.zeros(shape, dtype=data.dtype)
    for s in first:
        rebuilt[s.slices()] = data[s.slices()]
    assert (rebuilt == data).all()
    assert len(first) == math.prod(mesh[a] for a, _ in sharded) or len(mesh) == 1


@st.composite
def sharded_cases(draw):
    """Every mesh axis sharded (so composing gives one copy back), 1-D or 2-D."""
    mesh = draw(meshes)
    shape = draw(st.lists(st.integers(1, 12), min_size=len(mesh), max_size=4).map(tuple))
    dims = draw(st.permutations(range(len(shape))))[: len(mesh)]
    return mesh, shape, tuple(dims)


@settings(deadline=None)
@given(
    sharded_cases(),
    st.sampled_from(["current", "reference", "uniform-by-value"]),
    st.sampled_from(["float32", "bfloat16", "int32", "uint32", "uint16", "uint8"]),
    st.sampled_from(["tile", "row_major"]),
)
def test_from_torch_then_to_torch_is_the_identity(case, profile, dtype, layout):
    from conftest import run_steps

    mesh, shape, dims = case
    placements = [{"shard": d} for d in dims]
    steps = [
        {"from_torch": {"as": "h", "shape": list(shape), "dtype": dtype, "layout": layout, "mesh_mapper": {"placements": placements}}},
        {"to_device": {"src": "h", "as": "d"}},
        {"to_torch": {"tensor": "d", "mesh_composer": {"concat": list(dims)} if len(mesh) > 1 else {"concat": dims[0]}, "as": "back"}},
    ]
    report = run_steps(steps, profile, mesh=list(mesh))
    if report.error is not None:
        # only a mapper rule may refuse it (unequal shards, or N-D chunk count)
        assert report.error.op == "from_torch", report.error
        return
    assert report.findings == ()
    # the composed values are the source, element for element (arange data as the dtype holds it)
    from conftest import make_scenario
    from meshspec.sim.profiles import get_profile
    from meshspec.runner import execute
    from meshspec.sim.runtime import Runtime

    scenario = make_scenario(steps, mesh=list(mesh))
    rt = Runtime(scenario.mesh_shape, get_profile(profile))
    for step in scenario.steps:
        execute(rt, step)
    back = next(iter(rt.tensors["back"].shards.values())).values
    from meshspec.sim.spec import DataType
    from meshspec.sim.values import generate, same_bits

    assert same_bits(back, generate("arange", tuple(shape), DataType(dtype))).all()
