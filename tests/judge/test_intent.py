"""Issue 35, intent: a device op's output is not judged against a stand-in source
(docs/semantics.md section 5)."""

from conftest import make_scenario
from meshspec.runner import run

ADD_13_ROWS = [
    {"from_torch": {"as": "a_host", "shape": [13, 32], "mesh_mapper": {"shard": 0}}},
    {"to_device": {"src": "a_host", "as": "a"}},
    {"from_torch": {"as": "b_host", "shape": [13, 32], "mesh_mapper": {"shard": 0}}},
    {"to_device": {"src": "b_host", "as": "b"}},
    {"add": {"a": "a", "b": "b", "as": "out"}},
    {"to_torch": {"tensor": "out", "mesh_composer": {"concat": 0}, "as": "y"}},
]


def test_an_op_output_of_uneven_shards_is_not_judged_against_a_stand_in_source():
    # issue 35 item 2: 13 rows over 8 devices are chunks of 2,2,2,2,2,2,1 (section 4; uniform-by-value
    # allows uneven shards); add writes each device's sum there, the composer stacks them back into
    # 13 rows. No tensor named out.a exists: nothing is compared with it, nothing notes it.
    for data in ("full", "none"):
        report = run(make_scenario(ADD_13_ROWS, data=data), "uniform-by-value")
        assert report.error is None and report.findings == (), [f.message for f in report.findings]
        [rb] = report.readbacks
        assert rb.shape == (13, 32)
