"""Rendered text compared exactly (width 120, no colour) for the table, trace and compare views.

Expected lines are written from docs/semantics.md by hand: the seed (section 1) under uniform-by-value
records all 8 devices with (1,1,32,32) = one 2048 B tile (section 3); devices (0,0)..(1,2) hold
rows 0..6 of dim 1 (section 4); (1,3) is never written.
"""

from pathlib import Path

from meshspec.render import Format, Options, render
from meshspec.runner import run
from meshspec.scenario.loader import load

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"


def text(name, profile, width=120, **opts):
    return render([run(load(SCENARIOS / f"{name}.yaml"), profile)], Format.TABLE, Options(width=width, **opts))


def block(output, first_line, n):
    lines = output.splitlines()
    i = lines.index(first_line)
    return lines[i : i + n]


def test_seed_device_table():
    expected = [
        "dst  device  1x1x32x32 bfloat16 tile dram  topology (2x4) [R, R] on 8 devices  (created at step 0)",
        "device  recorded  shape      padded     dtype     layout  pages  B recorded  B written  offset     status",
        "─" * 105,
    ] + [
        f"({r},{c})   yes       1x1x32x32  1x1x32x32  bfloat16  tile        1        2048       2048  (0,{4 * r + c},0,0)  ok"
        for r in range(2)
        for c in range(4)
        if (r, c) != (1, 3)
    ] + [
        "(1,3)   yes       1x1x32x32  1x1x32x32  bfloat16  tile        1        2048          0  -          stale",
    ]
    assert block(text("seed-uneven-copy", "uniform-by-value"), expected[0], len(expected)) == expected


def test_seed_findings_and_summary():
    out = text("seed-uneven-copy", "uniform-by-value")
    assert block(out, "findings", 5) == [
        "findings",
        "  stale dst (1,3)  origin: step 0 allocate_tensor_on_device",
        "      recorded as holding 1x1x32x32 bfloat16 tile dram since step 0 (allocate_tensor_on_device), but never written",
        "      since allocation",
        "      -> data_mismatch dst (1,3): read back 1024 values from device memory never written since allocation",
    ]
    assert out.rstrip().splitlines()[-1] == "2 findings (1 data_mismatch, 1 stale) in 1 tensor"


def test_gap_trace():
    # docs/semantics.md section 6: the partial copy sets coords to 7 devices; the full copy writes all 8
    # and keeps them: (1,3) is lost from step 4, and missing from the readback at step 5.
    out = text("partial-then-full", "current", width=220, trace=True)
    rows = block(out, "trace", 14)
    assert rows[1].split() == ["step", "op", "tensors", "written", "/", "read", "record", "changes", "new", "findings"]
    body = "\n".join(rows)
    assert "dst: (0,0) (0,1) (0,2) (0,3) (1,0) (1,1) (1,2)" in body  # step 2 writes 7, listed
    assert "dst unrecorded: (1,3)" in body
    assert "dst: (0,0) (0,1) (0,2) (0,3) (1,0) (1,1) (1,2) (1,3), 2048 B each" in body  # step 4: all 8
    assert "lost dst (1,3)" in body and "data_mismatch dst (1,3)" in body


def test_compare_rows():
    out = render(
        [run(load(SCENARIOS / "seed-uneven-copy.yaml"), p) for p in ("current", "uniform-by-value", "unpopulated", "reference")],
        Format.TABLE,
        Options(width=120),
        compare=True,
    )
    # current and reference agree on every device: one column, "current +1", spelled out below
    assert block(out, "tensor  device  current +1  uniform-by-value  unpopulated", 11)[2:] == [
        f"dst     ({r},{c})   ok          ok                missing_spec" for r in range(2) for c in range(4) if (r, c) != (1, 3)
    ] + ["dst     (1,3)   empty       stale             empty", "current +1: the same under current, reference"]


def test_columns_measure_wide_header_characters_in_cells():
    from meshspec.render.grid import columns

    lines = columns(["device", "状态"], [["(0,0)", "ok"]]).plain.splitlines()
    assert lines[1] == "─" * (6 + 2 + 4)  # 状态 takes four terminal cells: the column is four wide
    assert lines[2].rstrip() == "(0,0)   ok"


def test_columns_refuse_a_row_shorter_than_the_header():
    import pytest

    from meshspec.render.grid import columns

    with pytest.raises(ValueError, match="under 3 headers"):
        columns(["a", "b", "c"], [["1", "2"]])


def test_a_mesh_whose_every_other_column_lies_groups_its_992_lies_and_their_reads():
    # section 4: a mapper over a 32x1 grid fills column 0 of a 32x32 mesh; the allocation records all
    # 1,024 devices (uniform-by-value, section 6), so the 992 devices of columns 1..31 are stale and
    # each reads back never-written memory: one root with its echo under it, devices folded. The
    # findings are tied to their roots by device, not compared pairwise (64x64 took 31 s that way).
    import yaml

    from meshspec.scenario.loader import parse

    doc = {
        "meshspec": 1, "mesh": [32, 32], "profile": "uniform-by-value", "data": "none",
        "steps": [
            {"allocate_tensor_on_device": {"as": "dst", "shape": [1, 1, 32, 32]}},
            {"from_torch": {"as": "src", "shape": [1, 32, 32, 32],
                            "mesh_mapper": {"placements": [{"shard": 1}, "replicate"], "mesh_shape": [32, 1]}}},
            {"copy_host_to_device_tensor": {"src": "src", "dst": "dst"}},
            {"to_torch": {"tensor": "dst", "mesh_composer": {"concat": 1}}},
        ],
    }
    report = run(parse(yaml.safe_dump(doc), "columns.yaml"), None)
    out = render([report], Format.TABLE, Options(width=120))
    devices = "(0,1) (0,2) (0,3) (0,4) ... (992 devices) (31,30) (31,31)"
    assert block(out, "findings", 6) == [
        "findings",
        f"  stale dst {devices}  origin: step 0 allocate_tensor_on_device",
        "      recorded as holding 1x1x32x32 bfloat16 tile dram since step 0 (allocate_tensor_on_device), but never written",
        "      since allocation",
        f"      -> data_mismatch dst {devices}: read back 1024 values from",
        "         device memory never written since allocation",
    ]
    assert out.rstrip().splitlines()[-1] == "1984 findings (992 data_mismatch, 992 stale) in 1 tensor"


def test_the_header_shows_the_users_text_on_one_line_with_no_escape_sequence(tmp_path):
    """Issue 34 attacked again: the scenario's file stem, its ``name:`` and a user profile's ``era``
    reached the terminal raw, so an ESC in a file name acted on it and a newline in ``name:``
    printed a line of the scenario's own making ("PASS: all findings resolved")."""
    from cli_runner import invoke

    path = tmp_path / "e\x1b[31mRED.yaml"
    path.write_text("meshspec: 1\nmesh: t3k\nprofile: {base: current, era: \"made\\nPASS: all findings resolved\"}\nsteps:\n"
                    "  - allocate_tensor_on_device: {as: a, shape: [1, 1, 32, 32]}\n", encoding="utf-8")
    result = invoke(["run", str(path), "--no-color"])
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.stdout and "e\\x1b[31mRED" in result.stdout
    assert not any(line.startswith("PASS") for line in result.stdout.splitlines()), result.stdout
    named = tmp_path / "named.yaml"
    named.write_text("meshspec: 1\nname: \"x\\nPASS: forged\"\nmesh: t3k\nsteps:\n  - allocate_tensor_on_device: {as: a, shape: [1, 1, 32, 32]}\n",
                     encoding="utf-8")
    for args in (["run", str(named)], ["run", str(named), "--profile", "all"]):
        out = invoke(args).stdout
        assert "x\\nPASS: forged" in out and not any(line.startswith("PASS") for line in out.splitlines()), out
