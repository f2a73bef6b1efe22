"""A collective's ``topology:`` exports as the ``ttnn.Topology`` it names; without one the call
leaves it to ttnn (docs/semantics.md section 17)."""

from meshspec.bridge.export import export
from meshspec.scenario.loader import parse

HEAD = """
meshspec: 1
mesh: t3k
steps:
  - from_torch: {as: x, shape: [1, 1, 32, 256], mesh_mapper: {shard: 3}, device: mesh_device}
"""


def line_of(text, call):
    return next(line.strip() for line in text.splitlines() if call in line and "=" in line)


def test_ring_and_linear_are_ttnn_topologies():
    s = parse(HEAD + "  - all_gather: {tensor: x, dim: 3, topology: ring, as: g}\n"
                     "  - all_reduce: {tensor: x, cluster_axis: 1, topology: linear, as: r}\n"
                     "  - all_gather_async: {tensor: x, dim: 3, topology: ring, as: a}\n", "t.yaml")
    text = export(s)
    assert line_of(text, "ttnn.all_gather(") == "g = ttnn.all_gather(x, 3, cluster_axis=None, topology=ttnn.Topology.Ring)"
    assert line_of(text, "ttnn.all_reduce(") == "r = ttnn.all_reduce(x, cluster_axis=1, topology=ttnn.Topology.Linear)"
    assert "topology=ttnn.Topology.Ring, cluster_axis=None)" in line_of(text, "all_gather_async(")


def test_no_topology_leaves_ttnns_default():
    text = export(parse(HEAD + "  - all_gather: {tensor: x, dim: 3, as: g}\n", "t.yaml"))
    assert line_of(text, "ttnn.all_gather(") == "g = ttnn.all_gather(x, 3, cluster_axis=None)"
