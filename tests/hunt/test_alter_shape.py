"""The alter_shape fault never crashes meshspec (issue 34, section 5): hunt --fault alter_shape
found a crash of the simulator itself; a record made wider is handled where values are written."""

from pathlib import Path


def test_a_shape_changed_by_the_alter_shape_fault_is_handled_by_the_write(tmp_path):
    """hunt --profile uniform-by-value --fault alter_shape --seed 3 --mesh 1x1 --mesh 7x9 --mesh galaxy
    crashed meshspec: a ROW_MAJOR record made one page wider (alter_shape adds a page column: a
    row twice as long) and neg's output buffer, sized for the widest device by page count alone,
    took rows of 128 B where 256 B came (could not broadcast (96,256) into (96,128)). Shrunk from
    the crash file (5 steps on galaxy) to 3 steps on one device."""
    from meshspec.runner import run
    from meshspec.scenario.loader import parse
    from meshspec.sim.faults import Fault

    text = ("meshspec: 1\nname: s\nmesh: [1, 1]\nsteps:\n"
            "  - {from_torch: {as: h, shape: [1, 1, 2, 32], dtype: uint32, layout: row_major}}\n"
            "  - {to_device: {src: h, as: d}}\n"
            "  - {neg: {tensor: d, as: n}}\n")
    report = run(parse(text, Path("s.yaml")), "uniform-by-value", fault=Fault("alter_shape", 1, (0, 0)), data=True)
    assert report.error is None
    assert ("partial", (0, 0), 1) in [(f.kind.value, f.device, f.step) for f in report.findings]
    # neg reads every device as the tensor's spec (a device op's one output spec, docs/semantics.md
    # section 12), not the wider record: 2 rows of 32 uint32 (128 B pages), and the read names the
    # record that claims more
    n = next(t for t in report.to_json()["tensors"] if t["name"] == "n")["devices"][0]
    assert (n["spec"]["shape"], n["spec"]["page_size"], n["written_bytes"]) == ([1, 1, 2, 32], 128, 256)
