"""The scenario loader's contract (issue 2, section 2).

Every invalid input is a :class:`meshspec.errors.ScenarioError` whose ``str()`` is ONE line
``file:line:column: message``; the line and column (1-based) point at the offending key or value,
the message names the bad value and, where a set of valid choices exists, lists them (with a
"did you mean" hint for near misses).

The expected lines and columns below are counted by hand from the YAML text of each test (the
``# col`` rulers in the comments show the count); they are never copied from meshspec's output.
"""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import numpy as np
import pytest

from meshspec.errors import ScenarioError
from meshspec.scenario.loader import LoadedScenario, load, parse

REPO = Path(__file__).resolve().parents[2]
BUNDLED = sorted((REPO / "scenarios").glob("*.yaml"))

FILE = "scen.yaml"

DTYPES = ["bfloat16", "float32", "uint32", "int32", "uint16", "uint8", "bfloat8_b", "bfloat4_b"]
OPS = [
    "allocate_tensor_on_device",
    "from_torch",
    "to_device",
    "copy_host_to_device_tensor",
    "cpu",
    "to_torch",
    "deallocate",
]
SYSTEMS = ["n150", "n300", "t3k", "galaxy", "p150", "p300", "p150x4", "p150x8", "bh-galaxy"]
from meshspec.sim.profiles import PROFILES


def dedent(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def parse_error(text: str, path: str | Path = FILE) -> ScenarioError:
    """The ScenarioError that parsing ``text`` (dedented) raises."""
    with pytest.raises(ScenarioError) as info:
        parse(dedent(text), path)
    return info.value


def load_error(path: Path) -> ScenarioError:
    with pytest.raises(ScenarioError) as info:
        load(path)
    return info.value


def message_at(err: ScenarioError, line: int, column: int, file: str | Path = FILE) -> str:
    """Check ``err`` is one line ``file:line:column: message`` and return the message."""
    text = str(err)
    assert "\n" not in text and "\r" not in text, f"not one line: {text!r}"
    prefix = f"{file}:{line}:{column}: "
    assert text.startswith(prefix), f"expected {prefix!r}..., got {text!r}"
    assert (err.line, err.column) == (line, column)
    message = text[len(prefix):]
    assert message.strip(), "empty message"
    assert "Traceback" not in message
    return message


def lists_all(message: str, choices: list[str]) -> None:
    for choice in choices:
        assert choice in message, f"{choice!r} missing from the valid choices in: {message}"


# -- unknown keys ------------------------------------------------------------------------------
def test_unknown_top_level_key_names_it_and_lists_valid_keys():
    err = parse_error(
        """
        meshspec: 1
        mesh: t3k
        descripton: typo
        steps:
          - allocate_tensor_on_device: {as: dst, shape: [1, 1, 32, 32]}
        """
    )
    # line 3, the key starts in column 1
    msg = message_at(err, 3, 1)
    assert "'descripton'" in msg
    assert "did you mean 'description'" in msg
    lists_all(msg, ["meshspec", "name", "description", "mesh", "profile", "steps"])


def test_unknown_key_inside_a_flow_step_points_at_the_key():
    err = parse_error(
        """
        meshspec: 1
        mesh: t3k
        steps:
          - allocate_tensor_on_device: {as: dst, shape: [1, 1, 32, 32], dtyp: bfloat16}
        """
    )
    # line 4: "  - " is cols 1-4, the op name cols 5-29, ": {" 30-32, "as: dst, " 33-41,
    # "shape: [1, 1, 32, 32]" 42-62, ", " 63-64, so "dtyp" starts at column 65.
    msg = message_at(err, 4, 65)
    assert "'dtyp'" in msg
    assert "did you mean 'dtype'" in msg
    lists_all(msg, ["as", "shape", "dtype", "layout", "tile", "memory"])


def test_unknown_key_inside_a_block_step_points_at_the_key():
    err = parse_error(
        """
        meshspec: 1
        mesh: t3k
        steps:
          - from_torch:
              as: src
              shape: [1, 1, 32, 32]
              mesh_maper: replicate
        """
    )
    # line 7, indented 6 spaces: column 7
    msg = message_at(err, 7, 7)
    assert "'mesh_maper'" in msg
    assert "did you mean 'mesh_mapper'" in msg
    lists_all(msg, ["as", "shape", "data", "mesh_mapper"])


def test_typo_of_a_required_top_level_key_names_the_typo():
    err = parse_error(
        """
        meshspec: 1
        mesh: t3k
        stepz:
          - allocate_tensor_on_device: {as: dst, shape: [1, 1, 32, 32]}
        """
    )
    # line 3, column 1
    msg = message_at(err, 3, 1)
    assert "'stepz'" in msg
    assert "did you mean 'steps'" in msg


def test_unknown_key_inside_mesh_mapper_is_named():
    err = parse_error(
        """
        meshspec: 1
        mesh: t3k
        steps:
          - from_torch: {as: s, shape: [1, 1, 32, 32], mesh_mapper: {placements: [replicate], mesh_shap: [2, 4]}}
        """
    )
    # line 4: "  - from_torch: {" 1-17, "as: s, " 18-24, "shape: [1, 1, 32, 32]" 25-45, ", " 46-47,
    # "mesh_mapper: {" 48-61, "placements: [replicate], " 62-86, "mesh_shap" at 87
    msg = message_at(err, 4, 87)
    assert "'mesh_shap'" in msg
    assert "did you mean 'mesh_shape'" in msg


def test_unknown_key_inside_mesh_composer_is_named():
    err = parse_error(
        """
        meshspec: 1
        mesh: t3k
        steps:
          - from_torch: {as: s, shape: [1, 1, 32, 32]}
          - to_torch: {tensor: s, mesh_composer: {concta: 1}}
        """
    )
    # line 5: "  - to_torch: {" 1-15, "tensor: s, " 16-26, "mesh_composer: {" 27-42, "concta" at 43
    msg = message_at(err, 5, 43)
    assert "'concta'" in msg
    assert "did you mean 'concat'" in msg


# -- wrong types and bad values ----------------------------------------------------------------
def test_wrong_type_for_shape_names_the_value():
    err = parse_error(
        """
        meshspec: 1
        mesh: t3k
        steps:
          - allocate_tensor_on_device: {as: dst, shape: "abc"}
        """
    )
    # line 4: "as: dst, " cols 33-41, "shape" 42-46, ": " 47-48, the quoted value at 49
    msg = message_at(err, 4, 49)
    assert "abc" in msg
    assert "shape" in msg


def test_location_in_message_names_the_op_once():
    err = parse_error(
        """
        meshspec: 1
        mesh: t3k
        steps:
          - allocate_tensor_on_device: {as: dst, shape: "abc"}
        """
    )
    msg = message_at(err, 4, 49)
    assert msg.startswith("steps[0].allocate_tensor_on_device.shape: ")


def test_wrong_type_inside_mesh_mapper_points_at_the_value():
    err = parse_error(
        """
        meshspec: 1
        mesh: t3k
        steps:
          - from_torch: {as: s, shape: [1, 1, 32, 32], mesh_mapper: {shard: x}}
        """
    )
    # line 4: "mesh_mapper: {" 48-61, "shard" 62-66, ": " 67-68, "x" at 69
    msg = message_at(err, 4, 69)
    assert "'x'" in msg
    assert "shard" in msg


def test_bad_dtype_names_it_suggests_and_lists_choices():
    # the dtypes ttnn has (docs/semantics.md section 3, "dtypes and element bytes")
    err = parse_error(
        """
        meshspec: 1
        mesh: t3k
        steps:
          - allocate_tensor_on_device:
              as: dst
              shape: [1, 1, 32, 32]
              dtype: bfloat61
        """
    )
    # line 7: "      dtype: " is 13 columns, the value starts at 14
    msg = message_at(err, 7, 14)
    assert "'bfloat61'" in msg
    assert "did you mean 'bfloat16'" in msg
    lists_all(msg, DTYPES)


def test_bad_layout_names_it_and_lists_choices():
    err = parse_error(
        """
        meshspec: 1
        mesh: t3k
        steps:
          - allocate_tensor_on_device:
              as: dst
              shape: [1, 1, 32, 32]
              layout: tiled
        """
    )
    # line 7: "      layout: " is 14 columns, the value at 15
    msg = message_at(err, 7, 15)
    assert "'tiled'" in msg
    assert "did you mean 'tile'" in msg
    lists_all(msg, ["tile", "row_major"])


def test_bad_tile_names_it_and_lists_the_tile_shapes():
    # Tile shapes ttnn accepts: 32x32, 16x32, 32x16, 16x16 (docs/semantics.md section 3).
    err = parse_error(
        """
        meshspec: 1
        mesh: t3k
        steps:
          - allocate_tensor_on_device:
              as: dst
              shape: [1, 1, 32, 32]
              tile: [8, 8]
        """
    )
    # line 7: "      tile: " is 12 columns, the "[" at 13
    msg = message_at(err, 7, 13)
    assert "[8, 8]" in msg
    lists_all(msg, ["[32, 32]", "[16, 32]", "[32, 16]", "[16, 16]"])


def test_bad_memory_names_it_and_lists_choices():
    err = parse_error(
        """
        meshspec: 1
        mesh: t3k
        steps:
          - allocate_tensor_on_device:
              as: dst
              shape: [1, 1, 32, 32]
              memory: sram
        """
    )
    # line 7: "      memory: " is 14 columns, the value at 15
    msg = message_at(err, 7, 15)
    assert "'sram'" in msg
    lists_all(msg, ["dram", "l1"])


# -- step structure ----------------------------------------------------------------------------
def test_unknown_step_op_suggests_and_lists_ops():
    err = parse_error(
        """
        meshspec: 1
        mesh: t3k
        steps:
          - allocate_tensor_on_device: {as: dst, shape: [1, 1, 32, 32]}
          - from_torch: {as: src, shape: [1, 1, 32, 32]}
          - copy_host_to_device: {src: src, dst: dst}
        """
    )
    # line 6: the op starts after "  - ", column 5
    msg = message_at(err, 6, 5)
    assert "'copy_host_to_device'" in msg
    assert "did you mean 'copy_host_to_device_tensor'" in msg
    lists_all(msg, OPS)


def test_step_with_two_ops_is_rejected_at_the_step():
    err = parse_error(
        """
        meshspec: 1
        mesh: t3k
        steps:
          - from_torch: {as: src, shape: [1, 1, 32, 32]}
          - {to_device: {src: src, as: a}, cpu: {tensor: a}}
        """
    )
    # line 5: the flow mapping "{" at column 5
    msg = message_at(err, 5, 5)
    assert "one op" in msg
    assert "to_device" in msg and "cpu" in msg


def test_step_that_is_a_plain_string_is_rejected_at_the_step():
    err = parse_error(
        """
        meshspec: 1
        mesh: t3k
        steps:
          - from_torch: {as: src, shape: [1, 1, 32, 32]}
          - cpu
        """
    )
    # line 5, column 5
    msg = message_at(err, 5, 5)
    assert "'cpu'" in msg
    assert "one op" in msg


def test_step_without_arguments_is_rejected():
    err = parse_error(
        """
        meshspec: 1
        mesh: t3k
        steps:
          - deallocate:
        """
    )
    # line 4, column 5
    msg = message_at(err, 4, 5)
    assert "deallocate" in msg


def test_missing_required_step_key_is_named():
    err = parse_error(
        """
        meshspec: 1
        mesh: t3k
        steps:
          - allocate_tensor_on_device: {as: dst}
        """
    )
    # line 4: op cols 5-29, ": " 30-31, the mapping that lacks the key opens at column 32
    msg = message_at(err, 4, 32)
    assert "shape" in msg and "missing" in msg


# -- tensor names ------------------------------------------------------------------------------
def test_unknown_tensor_lists_names_defined_so_far_with_hint():
    err = parse_error(
        """
        meshspec: 1
        mesh: t3k
        steps:
          - allocate_tensor_on_device: {as: dst, shape: [1, 1, 32, 32]}
          - from_torch: {as: src, shape: [1, 1, 32, 32]}
          - copy_host_to_device_tensor: {src: scr, dst: dst}
        """
    )
    # line 6: op cols 5-30, ": {" 31-33 ("{" at 33), "src" 34-36, ": " 37-38, value at 39
    msg = message_at(err, 6, 39)
    assert "'scr'" in msg
    assert "did you mean 'src'" in msg
    assert "dst" in msg and "src" in msg


def test_tensor_used_before_it_is_defined():
    err = parse_error(
        """
        meshspec: 1
        mesh: t3k
        steps:
          - from_torch: {as: src, shape: [1, 1, 32, 32]}
          - copy_host_to_device_tensor: {src: src, dst: dst}
          - allocate_tensor_on_device: {as: dst, shape: [1, 1, 32, 32]}
        """
    )
    # line 5: "{" at 33, "src: src, " 34-43, "dst" 44-46, ": " 47-48, value at 49
    msg = message_at(err, 5, 49)
    assert "'dst'" in msg
    # only 'src' is defined at that point
    assert "src" in msg.split("'dst'", 1)[1]


def test_tensor_used_when_none_is_defined():
    err = parse_error(
        """
        meshspec: 1
        mesh: n300
        steps:
          - to_torch: {tensor: ghost}
        """
    )
    # line 4: "to_torch" cols 5-12, ": {" 13-15, "tensor: " 16-23, value at 24
    msg = message_at(err, 4, 24)
    assert "'ghost'" in msg


def test_cpu_on_a_host_tensor_is_the_wrong_kind():
    # from_torch makes a host tensor; cpu() reads a device tensor back (issue 2 section 2,
    # docs/semantics.md section 4: the mapper returns a host tensor).
    err = parse_error(
        """
        meshspec: 1
        mesh: t3k
        steps:
          - from_torch: {as: h, shape: [1, 1, 32, 32]}
          - cpu: {tensor: h}
        """
    )
    # line 5: "cpu" cols 5-7, ": {" 8-10, "tensor: " 11-18, value at 19
    msg = message_at(err, 5, 19)
    assert "'h'" in msg
    assert "host" in msg and "device" in msg


def test_copy_with_a_device_tensor_as_src_is_the_wrong_kind():
    # copy_host_to_device_tensor(src, dst): src is a host tensor (docs/semantics.md section 6).
    err = parse_error(
        """
        meshspec: 1
        mesh: t3k
        steps:
          - allocate_tensor_on_device: {as: a, shape: [1, 1, 32, 32]}
          - allocate_tensor_on_device: {as: b, shape: [1, 1, 32, 32]}
          - copy_host_to_device_tensor: {src: a, dst: b}
        """
    )
    # line 6: "{" at 33, "src: " 34-38, value at 39
    msg = message_at(err, 6, 39)
    assert "'a'" in msg
    assert "host" in msg and "device" in msg


# -- mesh, profile, version --------------------------------------------------------------------
def test_unknown_mesh_system_lists_systems():
    # the real system names (docs/semantics.md section 2 table)
    err = parse_error(
        """
        meshspec: 1
        mesh: t3kk
        steps:
          - allocate_tensor_on_device: {as: dst, shape: [1, 1, 32, 32]}
        """
    )
    # line 2: "mesh: " is 6 columns, the value at 7
    msg = message_at(err, 2, 7)
    assert "'t3kk'" in msg
    assert "did you mean 't3k'" in msg
    lists_all(msg, SYSTEMS)


def test_other_names_of_a_system_are_accepted():
    # the T3000 is the T3K; TG is the (Wormhole) Galaxy
    base = "meshspec: 1\nmesh: {}\nsteps:\n  - allocate_tensor_on_device: {{as: dst, shape: [1, 1, 32, 32]}}\n"
    assert (parse(base.format("t3000")).mesh_name, parse(base.format("t3000")).mesh_shape) == ("t3k", (2, 4))
    assert (parse(base.format("TG")).mesh_name, parse(base.format("TG")).mesh_shape) == ("galaxy", (8, 4))


def test_unknown_mesh_t4k_suggests_t3k():
    err = parse_error(
        """
        meshspec: 1
        mesh: t4k
        steps:
          - allocate_tensor_on_device: {as: dst, shape: [1, 1, 32, 32]}
        """
    )
    msg = message_at(err, 2, 7)
    assert "'t4k'" in msg and "did you mean 't3k'" in msg
    lists_all(msg, SYSTEMS)
    assert "did you mean 't3k'" in msg


def test_mesh_system_names_are_the_reference_systems():
    # docs/semantics.md section 2: t3k is a 2x4 mesh, n300 2x1 (what ttnn 0.81.1 opens by default
    # with the N300 cluster descriptor, tests/golden systems), galaxy 8x4, p150x4 2x2.
    base = "meshspec: 1\nmesh: {}\nsteps:\n  - allocate_tensor_on_device: {{as: d, shape: [1, 1, 32, 32]}}\n"
    assert parse(base.format("t3k")).mesh_shape == (2, 4)
    assert parse(base.format("n300")).mesh_shape == (2, 1)
    assert parse(base.format("galaxy")).mesh_shape == (8, 4)
    assert parse(base.format("p150x4")).mesh_shape == (2, 2)
    assert parse(base.format("[2, 3]")).mesh_shape == (2, 3)


def test_unknown_profile_suggests_and_lists_profiles():
    err = parse_error(
        """
        meshspec: 1
        mesh: t3k
        profile: curent
        steps:
          - allocate_tensor_on_device: {as: dst, shape: [1, 1, 32, 32]}
        """
    )
    # line 3: "profile: " is 9 columns, value at 10
    msg = message_at(err, 3, 10)
    assert "'curent'" in msg
    assert "did you mean 'current'" in msg
    lists_all(msg, PROFILES)


def test_format_version_true_is_rejected():
    err = parse_error(
        """
        meshspec: true
        mesh: t3k
        steps:
          - allocate_tensor_on_device: {as: dst, shape: [1, 1, 32, 32]}
        """
    )
    msg = message_at(err, 1, 11)
    assert "True" in msg or "true" in msg


def test_unsupported_format_version():
    err = parse_error(
        """
        meshspec: 2
        mesh: t3k
        steps:
          - allocate_tensor_on_device: {as: dst, shape: [1, 1, 32, 32]}
        """
    )
    # line 1: "meshspec: " is 10 columns, value at 11
    msg = message_at(err, 1, 11)
    assert "2" in msg
    assert "1" in msg  # names the version it reads


def test_missing_meshspec_key():
    err = parse_error(
        """
        mesh: t3k
        steps:
          - allocate_tensor_on_device: {as: dst, shape: [1, 1, 32, 32]}
        """
    )
    # the key is absent: the error points at the start of the document
    msg = message_at(err, 1, 1)
    assert "meshspec" in msg
    assert "missing" in msg


# -- YAML level --------------------------------------------------------------------------------
@pytest.mark.parametrize("text, said", [("", "is empty"), ("\n\n", "is empty"), ("# only a comment\n", "holds only comments")])
def test_empty_file(text, said):
    with pytest.raises(ScenarioError) as info:
        parse(text, FILE)
    msg = message_at(info.value, 1, 1)
    assert msg == f"the file {said}; a scenario starts with 'meshspec: 1'"


def test_top_level_not_a_mapping():
    err = parse_error(
        """
        - meshspec: 1
        - mesh: t3k
        """
    )
    msg = message_at(err, 1, 1)
    assert "mapping" in msg


def test_invalid_yaml_mapping_value_in_plain_scalar():
    err = parse_error(
        """
        meshspec: 1
        mesh: t3k
          name: x
        """
    )
    # "t3k" continues as a plain scalar on line 3; the ":" after "name" (cols 3-6) at column 7
    # is where PyYAML finds a mapping value that is not allowed.
    msg = message_at(err, 3, 7)
    assert msg.startswith("invalid YAML")


def test_invalid_yaml_tab_indentation():
    with pytest.raises(ScenarioError) as info:
        parse("meshspec: 1\n\tmesh: t3k\n", FILE)
    # the tab is the first character of line 2
    msg = message_at(info.value, 2, 1)
    assert msg.startswith("invalid YAML")
    assert "\\t" in msg or "tab" in msg.lower()


@pytest.mark.parametrize(
    "text, line, col, words",
    [
        # a flow mapping left open: the parser stops where the next step starts, and says where it opened
        ("steps:\n  - from_torch: {as: src, shape: [1, 8, 32, 32]\n  - to_device: {src: src, as: d}\n", 5, 3,
         "did not find expected ',' or '}' (while parsing a flow mapping started at line 4, column 17)"),
        # a quote or bracket left open runs to the end of the file: the position is where it opened
        ('name: "x\nsteps: []\n', 3, 7, "found unexpected end of stream (while scanning a quoted scalar: it starts here and is never closed)"),
        ("name: 'x\nsteps: []\n\n", 3, 7, "found unexpected end of stream (while scanning a quoted scalar: it starts here and is never closed)"),
        ("steps: [{allocate_tensor_on_device: {as: d, shape: [1, 1, 32, 32]}}\n", 3, 8,
         "did not find expected ',' or ']' (while parsing a flow sequence: it starts here and is never closed)"),
    ],
)
def test_an_unclosed_bracket_or_quote_says_where_it_opened(text, line, col, words):
    err = parse_error("meshspec: 1\nmesh: t3k\n" + text)
    assert words in message_at(err, line, col)


def test_duplicate_top_level_key():
    err = parse_error(
        """
        meshspec: 1
        mesh: t3k
        mesh: n300
        steps:
          - allocate_tensor_on_device: {as: dst, shape: [1, 1, 32, 32]}
        """
    )
    # the second "mesh" at line 3 column 1; the first is on line 2
    msg = message_at(err, 3, 1)
    assert "duplicate" in msg
    assert "'mesh'" in msg
    assert "line 2" in msg


def test_duplicate_key_in_a_step():
    err = parse_error(
        """
        meshspec: 1
        mesh: t3k
        steps:
          - allocate_tensor_on_device: {as: a, shape: [1, 1, 32, 32], as: b}
        """
    )
    # line 4: "{" at 32, "as: a, " 33-39, "shape: [1, 1, 32, 32]" 40-60, ", " 61-62, "as" at 63
    msg = message_at(err, 4, 63)
    assert "duplicate" in msg
    assert "'as'" in msg


# -- data files --------------------------------------------------------------------------------
DATA_SCENARIO = """\
meshspec: 1
mesh: t3k
steps:
  - from_torch: {{as: src, shape: [1, 1, 32, 32], data: {{file: {file}}}}}
  - to_device: {{src: src, as: dev}}
"""
# line 4: "  - " 1-4, "from_torch" 5-14, ": {" 15-17, "as: src, " 18-26, "shape: [1, 1, 32, 32]" 27-47,
# ", " 48-49, "data: {" 50-56, "file: " 57-62, so the file name starts at column 63.
DATA_LINE, DATA_COL = 4, 63


def write_scenario(tmp_path: Path, file: str) -> Path:
    path = tmp_path / "with-data.yaml"
    path.write_text(DATA_SCENARIO.format(file=file), encoding="utf-8")
    return path


def test_data_file_missing(tmp_path):
    path = write_scenario(tmp_path, "nope.npy")
    msg = message_at(load_error(path), DATA_LINE, DATA_COL, file=path)
    assert "'nope.npy'" in msg
    assert "not found" in msg


def test_data_file_wrong_shape(tmp_path):
    np.save(tmp_path / "x.npy", np.zeros((1, 1, 32, 16), dtype=np.float32))
    path = write_scenario(tmp_path, "x.npy")
    msg = message_at(load_error(path), DATA_LINE, DATA_COL, file=path)
    assert "'x.npy'" in msg
    assert "[1, 1, 32, 16]" in msg
    assert "[1, 1, 32, 32]" in msg


def test_data_file_not_npy(tmp_path):
    (tmp_path / "x.txt").write_text("1 2 3\n")
    path = write_scenario(tmp_path, "x.txt")
    msg = message_at(load_error(path), DATA_LINE, DATA_COL, file=path)
    assert "'x.txt'" in msg
    assert ".npy" in msg


def test_data_file_needing_pickle_is_refused(tmp_path):
    arr = np.empty((1, 1, 32, 32), dtype=object)
    np.save(tmp_path / "obj.npy", arr, allow_pickle=True)
    path = write_scenario(tmp_path, "obj.npy")
    msg = message_at(load_error(path), DATA_LINE, DATA_COL, file=path)
    assert "'obj.npy'" in msg


def test_data_file_npy_loads(tmp_path):
    np.save(tmp_path / "x.npy", np.arange(32 * 32, dtype=np.float32).reshape(1, 1, 32, 32))
    path = write_scenario(tmp_path, "x.npy")
    scenario = load(path)
    assert [s.op for s in scenario.steps] == ["from_torch", "to_device"]
    assert scenario.steps[0].args.data.file == "x.npy"
    assert scenario.folder == tmp_path


def test_data_file_relative_to_scenario_not_cwd(tmp_path, monkeypatch):
    sub = tmp_path / "sub"
    sub.mkdir()
    np.save(sub / "x.npy", np.zeros((1, 1, 32, 32), dtype=np.float32))
    path = write_scenario(sub, "x.npy")
    monkeypatch.chdir(tmp_path)  # x.npy is not in the cwd
    assert load(path).steps[0].op == "from_torch"


# -- load() itself -----------------------------------------------------------------------------
def test_load_missing_file_is_a_scenario_error(tmp_path):
    path = tmp_path / "absent.yaml"
    err = load_error(path)
    text = str(err)
    assert "\n" not in text
    assert text.startswith(f"{path}: ")
    assert "no such file" in text


def test_load_folder_is_a_scenario_error(tmp_path):
    err = load_error(tmp_path)
    assert "\n" not in str(err)
    assert str(err).startswith(f"{tmp_path}: ")


def test_load_reports_errors_with_the_file_path(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("meshspec: 1\nmesh: t3k\nsteps:\n  - cpux: {tensor: a}\n", encoding="utf-8")
    msg = message_at(load_error(path), 4, 5, file=path)
    assert "'cpux'" in msg


# -- valid input -------------------------------------------------------------------------------
SEED_TEXT = """
    meshspec: 1
    description: the seed
    mesh: t3k
    profile: uniform-by-value
    steps:
      - allocate_tensor_on_device: {as: dst, shape: [1, 1, 32, 32], dtype: bfloat16, layout: tile}
      - from_torch: {as: src, shape: [1, 7, 32, 32], mesh_mapper: {shard: 1}}
      - copy_host_to_device_tensor: {src: src, dst: dst}
      - to_torch: {tensor: dst, mesh_composer: {concat: 1}}
"""


def test_name_defaults_to_the_file_stem():
    scenario = parse(dedent(SEED_TEXT), Path("some/dir/my-case.yaml"))
    assert scenario.name == "my-case"
    assert scenario.description == "the seed"


def test_name_given_wins_over_the_file_stem():
    scenario = parse("name: given\n" + dedent(SEED_TEXT), "some/dir/my-case.yaml")
    assert scenario.name == "given"


def test_valid_scenario_fields_and_step_lines():
    # The seed's case (docs/semantics.md section 1): a 2x4 T3K mesh.
    scenario = parse(dedent(SEED_TEXT), FILE)
    assert isinstance(scenario, LoadedScenario)
    assert scenario.mesh_shape == (2, 4)
    assert scenario.mesh_name == "t3k"
    assert scenario.profile == "uniform-by-value"
    assert [s.op for s in scenario.steps] == [
        "allocate_tensor_on_device",
        "from_torch",
        "copy_host_to_device_tensor",
        "to_torch",
    ]
    assert [s.index for s in scenario.steps] == [0, 1, 2, 3]
    assert [s.line for s in scenario.steps] == [6, 7, 8, 9]
    alloc = scenario.steps[0].args
    assert list(alloc.shape) == [1, 1, 32, 32]
    assert str(alloc.dtype) == "bfloat16" or alloc.dtype.value == "bfloat16"


@pytest.mark.parametrize("path", BUNDLED, ids=[p.stem for p in BUNDLED])
def test_bundled_scenarios_load(path):
    scenario = load(path)
    # each bundled file names itself after its file (a matrix's first case, after it and its values)
    assert scenario.name == (f"{path.stem}[{scenario.case}]" if scenario.case else path.stem)
    assert scenario.description.strip(), "each bundled scenario says what it shows (issue 2 section 5)"
    assert scenario.steps


def test_there_are_bundled_scenarios():
    names = {p.stem for p in BUNDLED}
    assert {"seed-uneven-copy", "mapper-error-nine-over-eight", "even-copy"} <= names


# -- the fast YAML path (nodes.construct, ScenarioLoader.resolve) gives PyYAML's own data -------------------
YAML_CORPUS = (
    "a: 1\nb: [1, 2.5, true, null, ~, yes, Off, 0x1f, 1_000, 1:30, '', .inf, -.inf, .nan, -3, +4, 2025-01-01,"
    " 0o7, 007, 'q', 1e5, 1.0e+5, 0b101, -0, 00, 3., .5]\n"
    "c: {x: '', 'y z': [[], {}]}\nd:\ne: !!str 5\nf: &x [1, {k: v}]\ng: *x\nh: |\n  two\n  lines\n"
    "base: &b {p: 1, q: 2}\nmerged: {<<: *b, q: 3}\n"
)


def test_fast_construction_and_resolution_are_pyyaml_s():
    import math

    import yaml

    from meshspec.scenario import nodes as L

    class PyYAML(L.ScenarioLoader):  # the loader with PyYAML's own resolver methods back
        resolve = yaml.resolver.BaseResolver.resolve
        descend_resolver = yaml.resolver.BaseResolver.descend_resolver
        ascend_resolver = yaml.resolver.BaseResolver.ascend_resolver

    want = yaml.load(YAML_CORPUS, Loader=PyYAML)
    fast = L.ScenarioLoader(YAML_CORPUS)
    got = L.construct(fast, fast.get_single_node(), "x.yaml")
    nan_at = [i for i, v in enumerate(want["b"]) if isinstance(v, float) and math.isnan(v)]
    assert nan_at and all(math.isnan(got["b"][i]) for i in nan_at)
    for i in nan_at:
        want["b"][i] = got["b"][i] = "nan"
    assert got == want
    assert got["b"][9] == "1:30"  # no base-60 numbers (docs/semantics.md: YAML 1.1's 1:30 is 90)
    assert got["merged"] == {"p": 1, "q": 3}


def test_integers_read_again_are_read_as_the_first_time():
    # decimals are remembered once read (nodes._DECIMALS); other spellings, and long ones, are not
    from meshspec.scenario import nodes as L

    text = "a: [32, 007, 0x20, 1_000, -0, +4, 00, 123456789012345678901234567890]\nb: {c: 32, d: 007}\n"

    def read():
        fast = L.ScenarioLoader(text)
        return L.construct(fast, fast.get_single_node(), "x.yaml", text)

    first, second = read(), read()
    assert first == second == {"a": [32, 7, 32, 1000, 0, 4, 0, 123456789012345678901234567890], "b": {"c": 32, "d": 7}}


@pytest.mark.parametrize("key", ["<<", "!!merge x", "!<tag:yaml.org,2002:merge> x"])
def test_a_merge_key_however_written_merges(key):
    # a source with no "<<" and no "!" is not searched for merge keys (nodes.construct): these have one
    s = parse(dedent(f"""
        meshspec: 1
        mesh: t3k
        steps:
          - allocate_tensor_on_device: &a {{as: d, shape: [1, 1, 32, 32]}}
          - allocate_tensor_on_device: {{{key}: *a, as: e}}
        """))
    assert [st.args.as_ for st in s.steps] == ["d", "e"] and list(s.steps[1].args.shape) == [1, 1, 32, 32]


# -- profiles of a scenario's own (docs/semantics.md section 6) ---------------------------------------
def test_a_scenario_defines_profiles_and_uses_them():
    from meshspec.runner import run

    s = parse(
        "meshspec: 1\nmesh: t3k\nprofile: mine\nprofiles:\n  mine: {base: uniform-by-value, copy: current}\n"
        "steps:\n  - allocate_tensor_on_device: {as: d, shape: [1, 1, 32, 32]}\n"
    )
    assert list(s.profiles) == ["mine"] and s.profile == "mine"
    assert run(s).profile == "mine"


def test_an_inline_profile_is_named_custom():
    s = parse("meshspec: 1\nmesh: t3k\nprofile: {base: current, copy: exact}\nsteps:\n  - allocate_tensor_on_device: {as: d, shape: [1]}\n")
    assert s.profile == "custom" and s.profiles["custom"].copy.value == "exact"


@pytest.mark.parametrize(
    "profiles, line, col, words",
    [
        # "  mine: {base: " is 15 characters: the base at 16
        ("  mine: {base: currnt}\n", 4, 16, "unknown base profile 'currnt' (did you mean 'current'?)"),
        ("  mine: {base: current, copy: by_ref}\n", 4, 31, "profiles.mine.copy: unknown value 'by_ref'; expected 'lost', 'current', 'exact'"),
        ("  current: {base: current}\n", 4, 3, "'current' is one of meshspec's own profiles"),
    ],
)
def test_bad_profile_definitions_say_where(profiles, line, col, words):
    err = parse_error("meshspec: 1\nmesh: t3k\nprofiles:\n" + profiles + "steps:\n  - allocate_tensor_on_device: {as: d, shape: [1]}\n")
    assert words in message_at(err, line, col)


# -- ttnn.distribute as a block of steps ------------------------------------------------------------
def test_a_distribute_block_gives_its_mapper_to_the_from_torch_steps_in_it():
    s = parse(
        "meshspec: 1\nmesh: t3k\nsteps:\n"
        "  - distribute:\n      mesh_mapper: {shard: 1}\n      steps:\n"
        "        - from_torch: {as: a, shape: [1, 8, 32, 32]}\n"
        "        - from_torch: {as: b, shape: [1, 8, 32, 32], mesh_mapper: replicate}\n"
        "  - from_torch: {as: c, shape: [1, 8, 32, 32]}\n"
    )
    assert [st.op for st in s.steps] == ["from_torch"] * 3
    assert [st.line for st in s.steps] == [7, 8, 9]
    assert s.steps[0].args.mesh_mapper.shard == 1  # the block's
    assert s.steps[1].args.mesh_mapper == "replicate"  # its own wins (a keyword default)
    assert s.steps[2].args.mesh_mapper is None  # outside the block


def test_a_distribute_block_needs_one_mapper_or_composer():
    err = parse_error("meshspec: 1\nmesh: t3k\nsteps:\n  - distribute: {mesh_mapper: replicate, mesh_composer: {concat: 0}, steps: []}\n")
    assert "give one of mesh_mapper and mesh_composer" in message_at(err, 4, 17)


@pytest.mark.parametrize(
    "step, path",
    [
        ("from_torch: {as: s, shape: [1, 8, 32, 32], mesh_mapper: {ShardTensorToMesh: {dim: 1, mesh_device: nosuch}}}",
         "from_torch.mesh_mapper.ShardTensorToMesh.mesh_device"),
        ("from_torch: {as: s, shape: [1, 8, 32, 32], mesh_mapper: {create_mesh_mapper: {placements: [R, {shard: 1}], mesh_device: nosuch}}}",
         "from_torch.mesh_mapper.create_mesh_mapper.mesh_device"),
    ],
)
def test_a_mesh_device_named_inside_a_mapper_is_checked_like_a_steps_own(step, path):
    # it was a KeyError at run time (meshspec's internal error, exit 3), and export wrote a script
    # naming an undefined variable
    err = parse_error(f"""
        meshspec: 1
        mesh: t3k
        steps:
          - {step}
        """)
    msg = str(err)
    assert msg.startswith(f"{FILE}:4:") and f"steps[0].{path}: unknown mesh device 'nosuch'; defined so far: mesh_device" in msg


def test_a_composer_naming_a_tensor_as_its_mesh_device_is_refused():
    err = parse_error("""
        meshspec: 1
        mesh: t3k
        steps:
          - from_torch: {as: s, shape: [1, 8, 32, 32], mesh_mapper: {shard: 1}}
          - to_torch: {tensor: s, mesh_composer: {ConcatMeshToTensor: {dim: 1, mesh_device: s}}}
        """)
    assert "steps[1].to_torch.mesh_composer.ConcatMeshToTensor.mesh_device: 's' is a host tensor" in str(err)


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_each_step_keeps_the_names_the_loader_checked(path):
    """The loader hands each step the names it checked, so the runner does not walk the arguments
    again: the touched tensors are the op's own answer, meshes left out."""
    from meshspec.scenario.loader import LoadedStep
    from meshspec.sim.ops import OPS

    for step in load(path).steps:
        op = OPS[step.op]
        assert step.names == tuple(op.names_used(step.args))
        assert step.touched == op.touched(step.args)
        assert LoadedStep(step.index, step.op, step.args, step.line).touched == step.touched  # built otherwise


@pytest.mark.parametrize(
    "value, col, words",
    [
        # the word a mapping form starts with: that form, written out (meshspec/sim/ops/fields.py Mapper, Data)
        ("mesh_mapper: shard", 63, "mesh_mapper: 'shard' is the key of a mapping form: write {shard: DIM}; expected replicate, {shard: DIM}, "),
        ("data: file", 56, "data: 'file' is the key of a mapping form: write {file: x.npy}; expected arange, zeros, ones, {fill: V}, "
                           "{random: SEED} or {file: x.npy}"),
        # another word: every form, the mapping ones too, and the nearest word
        ("data: x.npy", 56, "data: unknown value 'x.npy'; expected arange, zeros, ones, {fill: V}, {random: SEED} or {file: x.npy}"),
        ("data: arnge", 56, "data: unknown value 'arnge' (did you mean 'arange'?); expected arange, zeros, ones, {fill: V}, "),
        ("mesh_mapper: replicat", 63, "unknown value 'replicat' (did you mean 'replicate'?); expected replicate, {shard: DIM}, {placements: "),
    ],
)
def test_a_bad_word_where_mappings_are_allowed_names_every_form(value, col, words):
    err = parse_error(f"meshspec: 1\nmesh: t3k\nsteps:\n  - from_torch: {{as: src, shape: [1, 8, 32, 32], {value}}}\n")
    assert words in message_at(err, 4, col)


def test_a_fill_that_is_no_number_is_refused_where_it_stands():
    err = parse_error("meshspec: 1\nmesh: t3k\nsteps:\n  - from_torch: {as: s, shape: [1, 8, 32, 32], data: {fill: abc}}\n")
    assert "data.fill: expected an integer or a number, got 'abc'" in str(err) and err.line == 4


# -- values copied from Python -----------------------------------------------------------------
# TT-NN users copy values from their Python tests. In a flow mapping YAML splits a tuple or a call
# at its commas ({shape: (1,1,32,32)} reads as shape: "(1" and the keys 1, 32 and "32)"); the
# message is the value's own, read whole, and ends with the YAML to write.
PYTHON_SCENARIO = "meshspec: 1\nmesh: t3k\nsteps:\n  - from_torch: {{as: a, shape: [1, 8, 32, 32]}}\n  - {step}\n"
# line 5, flow: "  - from_torch: {" 1-17, "as: b, " 18-24, "shape: " 25-31, so a shape starts at 32;
# "shape: [1, 8, 32, 32]" 25-45, ", " 46-47, then "mesh_mapper: " 48-60 (a mapper at 61), "layout: "
# 48-55 (56), "dtype: " 48-54 (55), "memory_config: " 48-62 (63); "  - to_torch: {" 1-15,
# "tensor: a, " 16-26, "mesh_composer: " 27-41 (a composer at 42).
# Block: "      shape: " is 13 columns (line 7, the value at 14), "      mesh_mapper: " 19 (line 8, at 20).
FLOW = "from_torch: {{as: b, shape: {}}}"
FLOW_MAPPER = "from_torch: {{as: b, shape: [1, 8, 32, 32], mesh_mapper: {}}}"
BLOCK = "from_torch:\n      as: b\n      shape: {}"
BLOCK_MAPPER = "from_torch:\n      as: b\n      shape: [1, 8, 32, 32]\n      mesh_mapper: {}"
PYTHON_VALUES = [
    # a Python tuple, in a flow mapping and on its own line
    (FLOW, "(1,1,32,32)", 5, 32,
     "steps[1].from_torch.shape: expected a list, got '(1,1,32,32)' (a Python tuple); write [1, 1, 32, 32]"),
    (FLOW, "(1, 32, 32, 32)", 5, 32,  # the pieces 32 and 32 were a duplicate key
     "steps[1].from_torch.shape: expected a list, got '(1, 32, 32, 32)' (a Python tuple); write [1, 32, 32, 32]"),
    (BLOCK, "(1, 1, 32, 32)", 7, 14,
     "steps[1].from_torch.shape: expected a list, got '(1, 1, 32, 32)' (a Python tuple); write [1, 1, 32, 32]"),
    (FLOW, "(32,)", 5, 32, "steps[1].from_torch.shape: expected a list, got '(32,)' (a Python tuple); write [32]"),
    # a shape as meshspec's reports print it
    (FLOW, "1x1x32x32", 5, 32, "steps[1].from_torch.shape: expected a list, got '1x1x32x32'; write [1, 1, 32, 32]"),
    # a mapper or composer call: the mapping form of the same name (meshspec/sim/ops/fields.py MAPPER_FORMS)
    (FLOW_MAPPER, "ShardTensorToMesh(mesh_device, dim=1)", 5, 61,
     "steps[1].from_torch.mesh_mapper: unknown value 'ShardTensorToMesh(mesh_device, dim=1)' (a Python call); "
     "write {ShardTensorToMesh: {dim: 1}}"),
    (BLOCK_MAPPER, "ShardTensorToMesh(mesh_device, dim=1)", 8, 20,
     "steps[1].from_torch.mesh_mapper: unknown value 'ShardTensorToMesh(mesh_device, dim=1)' (a Python call); "
     "write {ShardTensorToMesh: {dim: 1}}"),
    (FLOW_MAPPER, "ttnn.shard_tensor_to_mesh_mapper(mesh_device, 1)", 5, 61,
     "steps[1].from_torch.mesh_mapper: unknown value 'ttnn.shard_tensor_to_mesh_mapper(mesh_device, 1)' (a Python call); "
     "write {shard_tensor_to_mesh_mapper: {dim: 1}}"),
    (FLOW_MAPPER, "ttnn.ReplicateTensorToMesh(mesh_device)", 5, 61,
     "steps[1].from_torch.mesh_mapper: unknown value 'ttnn.ReplicateTensorToMesh(mesh_device)' (a Python call); "
     "write ReplicateTensorToMesh"),
    (FLOW_MAPPER, "ttnn.ShardTensor2dMesh(mesh_device, mesh_shape=(2, 4), dims=(None, 3))", 5, 61,
     "steps[1].from_torch.mesh_mapper: unknown value 'ttnn.ShardTensor2dMesh(mesh_device, mesh_shape=(2, 4), dims=(None, 3))' "
     "(a Python call); write {ShardTensor2dMesh: {mesh_shape: [2, 4], dims: [null, 3]}}"),
    ("to_torch: {{tensor: a, mesh_composer: {}}}", "ttnn.ConcatMeshToTensor(mesh_device, dim=1)", 5, 42,
     "steps[1].to_torch.mesh_composer: unknown value 'ttnn.ConcatMeshToTensor(mesh_device, dim=1)' (a Python call); "
     "write {ConcatMeshToTensor: {dim: 1}}"),
    # a ttnn name: the word without ttnn. (spec.py's enums read TILE_LAYOUT; fields.py NAMED_CONFIGS)
    ("from_torch: {{as: b, shape: [1, 8, 32, 32], layout: {}}}", "ttnn.TILE_LAYOUT", 5, 56,
     "steps[1].from_torch.layout: unknown value 'ttnn.TILE_LAYOUT' (a Python name); write TILE_LAYOUT"),
    ("from_torch: {{as: b, shape: [1, 8, 32, 32], dtype: {}}}", "ttnn.bfloat16", 5, 55,
     "steps[1].from_torch.dtype: unknown value 'ttnn.bfloat16' (a Python name); write bfloat16"),
    ("from_torch: {{as: b, shape: [1, 8, 32, 32], memory_config: {}}}", "ttnn.DRAM_MEMORY_CONFIG", 5, 63,
     "steps[1].from_torch.memory_config: unknown value 'ttnn.DRAM_MEMORY_CONFIG' (a Python name); write DRAM_MEMORY_CONFIG"),
]


PYTHON_IDS = [("block " if "\n" in step else "flow ") + value for step, value, *_ in PYTHON_VALUES]


@pytest.mark.parametrize("step, value, line, col, message", PYTHON_VALUES, ids=PYTHON_IDS)
def test_a_value_copied_from_python_says_the_yaml_to_write(step, value, line, col, message):
    err = parse_error(PYTHON_SCENARIO.format(step=step.format(value)))
    assert message_at(err, line, col) == message


@pytest.mark.parametrize("step, value, line, col, message", PYTHON_VALUES, ids=PYTHON_IDS)
def test_the_yaml_a_message_says_to_write_loads(step, value, line, col, message):
    said = str(parse_error(PYTHON_SCENARIO.format(step=step.format(value))))
    written = said.rpartition("; write ")[2]
    assert written != said, said
    loaded = parse(PYTHON_SCENARIO.format(step=step.format(written)), FILE)
    assert len(loaded.steps) == 2


def test_a_python_call_whose_arguments_do_not_fit_names_the_form():
    # (2, 4) and (None, 3) by position: mesh_shape and dims both take [2, 4], so neither is guessed
    value = "ttnn.ShardTensor2dMesh(mesh_device, (2, 4), (None, 3))"
    err = parse_error(PYTHON_SCENARIO.format(step=FLOW_MAPPER.format(value)))
    assert message_at(err, 5, 61) == (
        f"steps[1].from_torch.mesh_mapper: unknown value {value!r} (a Python call); write {{ShardTensor2dMesh: {{...}}}} "
        "with its arguments by name"
    )


def test_a_split_value_is_read_whole_only_where_that_explains_the_error():
    # a tuple's pieces: the tuple's own error; a cache file name is any text, so os.path.join(d, w)
    # read whole is valid, and its piece w) stays the unknown key it is
    err = parse_error(PYTHON_SCENARIO.format(step=FLOW.format("(1, 1, 32, 32)")))
    assert message_at(err, 5, 32).endswith("(a Python tuple); write [1, 1, 32, 32]")
    step = "as_tensor: {as: b, shape: [1, 8, 32, 32], cache_file_name: os.path.join(d, w), device: mesh_device}"
    err = parse_error(PYTHON_SCENARIO.format(step=step))
    # "  - as_tensor: {" 1-16, "as: b, " 17-23, "shape: [1, 8, 32, 32], " 24-46, "cache_file_name: " 47-63,
    # "os.path.join(d, " 64-79, "w)" at 80
    assert message_at(err, 5, 80).startswith("unknown key 'w)' in steps[1].as_tensor; valid keys: shape, ")


@pytest.mark.parametrize("value, shown", [("null", "null"), ("true", "true"), ("[1, null]", "[1, null]")])
def test_a_bad_value_is_shown_as_yaml_writes_it(value, shown):
    # not Python's None or True: the user wrote YAML (typed.py _show)
    err = parse_error(f"meshspec: 1\nmesh: t3k\nsteps:\n  - from_torch: {{as: s, shape: [1, 8, 32, 32], mesh_mapper: {{shard: {value}}}}}\n")
    assert message_at(err, 4, 69) == f"steps[0].from_torch.mesh_mapper.shard: expected an integer, got {shown}"


def test_a_socket_or_fifo_named_as_a_scenario_is_refused_without_waiting(tmp_path):
    # the file is opened without waiting (O_NONBLOCK: a FIFO with no writer) and judged by what the
    # open file is; a socket cannot be opened at all (ENXIO): both are not regular files
    import socket

    from meshspec.scenario.sniff import read_regular

    fifo, sock = tmp_path / "fifo.yaml", tmp_path / "sock.yaml"
    os.mkfifo(fifo)
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(sock))
        for path in (fifo, sock):
            with pytest.raises(ScenarioError, match="is not a regular file"):
                load(path)
        assert read_regular(fifo, 100) is None
        (tmp_path / "s.yaml").write_text("meshspec: 1\n")
        assert read_regular(tmp_path / "s.yaml", 100) == b"meshspec: 1\n" and read_regular(tmp_path / "s.yaml", 5) is None
    finally:
        server.close()


def test_a_fill_value_written_as_1e5_is_the_number_as_a_data_fill_is():
    """YAML 1.1 reads 1e5 (no dot) as text; full's fill_value takes it as the number it plainly
    is, as from_torch's data: {fill: 1e5} does (sim/ops/fields.py FillValue)."""
    steps = "steps:\n  - full: {as: f, shape: [1, 1, 32, 32], fill_value: 1e5}\n  - from_torch: {as: h, shape: [1, 1, 32, 32], data: {fill: 1e5}}\n"
    scenario = parse("meshspec: 1\nmesh: t3k\n" + steps, "f.yaml")
    assert scenario.steps[0].args.fill_value == 1e5 and scenario.steps[1].args.data.fill == 1e5
    with pytest.raises(ScenarioError, match="fill_value: expected an integer or a number, got '1e5x'"):
        parse("meshspec: 1\nmesh: t3k\nsteps:\n  - full: {as: f, shape: [1, 1, 32, 32], fill_value: 1e5x}\n", "f.yaml")


@pytest.mark.parametrize("text, where", [
    ("meshspec: 1\nmesh: t3k\nsteps: []\n~: 1\n", (4, 1)),
    ("meshspec: 1\nmesh: t3k\nsteps:\n  - allocate_tensor_on_device: {as: a, shape: [1, 1, 32, 32], null: 3}\n", (4, 63)),
])
def test_a_null_key_is_named_as_yaml_writes_it_and_pointed_at(text, where):
    with pytest.raises(ScenarioError, match=r"unknown key ~ \(null\) in ") as err:
        parse(text, "n.yaml")
    assert (err.value.line, err.value.column) == where


# -- placements as they are printed ---------------------------------------------------------------
def _topology_of(placements: str) -> dict:
    from meshspec.runner import run

    scenario = parse(dedent(f"""
        meshspec: 1
        mesh: t3k
        steps:
          - from_torch: {{as: a, shape: [1, 8, 32, 64], mesh_mapper: {{placements: {placements}, mesh_shape: [1, 8]}}}}
          - update_tensor_topology: {{tensor: a, topology: {{distribution_shape: [1, 8], placements: {placements}, coords: [[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [1, 1], [1, 2], [1, 3]]}}}}
        """), FILE)
    (tensor,) = run(scenario).to_json()["tensors"]
    return tensor["topology"]


def test_placements_paste_in_as_tables_and_ttnn_print_them():
    """A table prints a topology's placements as ``[R, S(1)]`` (meshspec/sim/placement.py, the
    str of Replicate and Shard); ttnn prints ``[PlacementReplicate(), PlacementShard(1)]``
    (docs/semantics.md section 4). Both paste into a scenario unchanged and mean what the
    scenario's own spelling means."""
    from meshspec.sim.placement import Replicate, Shard

    printed = "[" + ", ".join(str(p) for p in (Replicate(), Shard(dim=1))) + "]"
    assert printed == "[R, S(1)]"
    want = {"distribution_shape": [1, 8], "placements": ["R", {"shard": 1}],
            "coords": [[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [1, 1], [1, 2], [1, 3]]}
    assert _topology_of("[replicate, {shard: 1}]") == want
    assert _topology_of(printed) == want
    assert _topology_of("[PlacementReplicate(), PlacementShard(1)]") == want
    assert _topology_of("[R, S(-1)]")["placements"] == ["R", {"shard": -1}]  # kept as given, as ttnn keeps it


@pytest.mark.parametrize("bad", ["S(x)", "S(1", "Shard(1)", "PlacementShard()"])
def test_a_misprinted_placement_is_refused_where_it_is(bad):
    err = parse_error(f"""
        meshspec: 1
        mesh: t3k
        steps:
          - from_torch: {{as: a, shape: [1, 8, 32, 64], mesh_mapper: {{placements: [R, "{bad}"]}}}}
        """)
    # line 4: "  - from_torch: {" 1-17, "as: a, " 18-24, "shape: [1, 8, 32, 64], " 25-47,
    # "mesh_mapper: {" 48-61, "placements: [" 62-74, "R, " 75-77, the bad value at 78
    msg = message_at(err, 4, 78)
    assert f"unknown value '{bad}'" in msg and "{shard: DIM} (or S(DIM))" in msg


# -- a device's spec as a report prints it -------------------------------------------------------
_SHARDED = ("{memory_layout: height_sharded, buffer_type: l1, shard_spec: {grid: [[[0, 0], [1, 0]]], shape: [32, 64], "
            "orientation: row_major}}")


def _printed_spec(memory_config: str = _SHARDED) -> dict:
    """The spec a report prints for a device of a tensor allocated with ``memory_config``."""
    from meshspec.runner import run

    scenario = parse(dedent(f"""
        meshspec: 1
        mesh: t3k
        steps:
          - allocate_tensor_on_device: {{as: a, shape: [1, 1, 64, 64], memory_config: {memory_config}}}
        """), FILE)
    return run(scenario).to_json()["tensors"][0]["devices"][0]["spec"]


def test_a_printed_spec_pastes_into_an_allocation_and_prints_the_same():
    import json

    from meshspec.runner import run

    printed = _printed_spec()
    assert set(printed) >= {"padded_shape", "page_size", "aligned_page_size", "num_pages", "buffer_bytes", "memory_config"}
    scenario = parse(f"meshspec: 1\nmesh: t3k\nsteps:\n  - allocate_tensor_on_device: {{as: b, {json.dumps(printed)[1:-1]}}}\n", FILE)
    assert run(scenario).to_json()["tensors"][0]["devices"][0]["spec"] == printed


def test_a_pasted_spec_whose_worked_out_key_is_not_its_own_is_refused_at_that_key():
    import json

    printed = _printed_spec() | {"num_pages": 5}
    text = f"meshspec: 1\nmesh: t3k\nsteps:\n  - allocate_tensor_on_device: {{as: b, {json.dumps(printed)[1:-1]}}}\n"
    err = parse_error(text)
    column = text.splitlines()[3].index('"num_pages": 5') + len('"num_pages": ') + 1  # the value's column
    msg = message_at(err, 4, column)
    assert msg.startswith("steps[0].allocate_tensor_on_device.num_pages: 5 is not this spec's (4, ")
    assert "correct it or leave it out" in msg


def test_a_printed_spec_pastes_into_an_expect_devices_entry():
    """Every key of a report's device spec is a key of expect's devices (docs/scenario-format.md, Expectations)."""
    import json

    from meshspec.runner import run

    printed = _printed_spec()
    steps = f"steps:\n  - allocate_tensor_on_device: {{as: a, shape: [1, 1, 64, 64], memory_config: {_SHARDED}}}\n"
    for spec, passed in ((printed, True), (printed | {"tile": [16, 32], "page_size": 1}, False)):
        expect = f"expect:\n  tensors:\n    a:\n      devices:\n        \"[0, 0]\": {json.dumps(spec)}\n"
        result = run(parse("meshspec: 1\nmesh: t3k\n" + steps + expect, FILE)).expect
        assert result.passed is passed
    assert result.mismatches == ("a (0,0): tile: expected [16, 32], got [32, 32]", "a (0,0): page_size: expected 1, got 2048")


# -- errors in file order ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "mesh, where, words",
    [("t3kk", (2, 7), "mesh: unknown system 't3kk' (did you mean 't3k'?)"),
     ("{system: t3k, shape: [4, 4]}", (2, 28), "mesh.shape: Requested mesh shape MeshShape([4, 4]) requires 16 devices")],
)
def test_a_mesh_error_before_an_invalid_step_list_is_the_one_reported(mesh, where, words):
    # the mesh is checked after the file's types, but it comes first in the file: it is said first
    err = parse_error(f"meshspec: 1\nmesh: {mesh}\nsteps: []\n")
    assert message_at(err, *where).startswith(words)
    later = parse_error(f"meshspec: 1\nsteps: []\nmesh: {mesh}\n")
    assert message_at(later, 2, 8).startswith("steps: expected at least 1 item")
