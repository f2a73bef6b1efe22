"""The JSON layout (meshspec/render/json.py: dumps): what fits on a line is on one line, a long
list has an item per line, a long list of coordinates is packed into lines of at most 100
columns, and the text is JSON that loads back to the same value."""

import json

from meshspec.render.json import dumps


def test_short_values_stay_on_one_line_and_containers_open_up():
    text = dumps({"shape": [1, 2, 32, 32], "spec": {"dtype": "bfloat16", "layout": "tile"}, "empty": [], "none": None})
    assert text == (
        "{\n"
        '  "shape": [1, 2, 32, 32],\n'
        '  "spec": {"dtype": "bfloat16", "layout": "tile"},\n'
        '  "empty": [],\n'
        '  "none": null\n'
        "}\n"
    )


def test_a_long_list_has_one_item_per_line():
    devices = [{"coord": [0, i], "status": "ok"} for i in range(65)]  # over LONG (64) items
    lines = dumps({"devices": devices}).splitlines()
    assert lines[:3] == ["{", '  "devices": [', '    {"coord": [0, 0], "status": "ok"},']
    assert lines[-3:] == ['    {"coord": [0, 64], "status": "ok"}', "  ]", "}"]
    assert len(lines) == 65 + 4


def test_long_coordinate_lists_are_packed_to_100_columns():
    coords = [[r, c] for r in range(8) for c in range(32)]  # a Galaxy-sized topology, 256 coords
    value = {"topology": {"coords": coords}}
    text = dumps(value)
    assert json.loads(text) == value
    lines = text.splitlines()
    body = lines[3:-3]
    assert all(len(line) <= 100 for line in lines)
    assert body[0].startswith("      [0, 0], [0, 1], ")
    assert all(line.endswith(",") for line in body[:-1]) and not body[-1].endswith(",")
    # packed: each line is full (the next coordinate would not fit), not one coordinate per line
    assert all(len(line) + len(" [7, 31],") > 100 for line in body[:-1])


def test_values_are_encoded_as_the_json_package_encodes_them():
    """dumps takes CPython's C encoder from ``_json`` (the json package would import its decoder
    too): every value's text is the json package's, escapes, non-ASCII text, NaN and str enums too."""
    import enum

    from meshspec.render.json import _compact, _item

    class Word(str, enum.Enum):
        STALE = "stale"

    values = ["a\"b\\c\n\u00e9\u4e2d\ud83d", 1.5, 1e300, float("nan"), float("-inf"), -(2**70), True, None, Word.STALE,
              {"k\u00e9": [1, {"x": None}], "e": []}, [[0, 1], [2.0, "s"]], (1, 2)]
    for v in values:
        assert _compact(v) == json.dumps(v, separators=(", ", ": ")), v
        assert _item(v) == json.dumps(v, separators=(", ", ": ")), v
    assert json.loads(dumps({"v": values[:3]})) == {"v": values[:3]}
    try:
        _compact({"x": object()})
    except TypeError as err:
        assert str(err) == "Object of type object is not JSON serializable"
    else:
        raise AssertionError("an object JSON cannot hold was encoded")


def test_writing_json_imports_no_json_decoder():
    """A run writing JSON reads none: the json package (its decoder and scanner, 1 ms of start-up)
    is not imported (bench/report_format.py)."""
    import subprocess
    import sys
    from pathlib import Path

    seed = Path(__file__).resolve().parents[2] / "scenarios" / "seed-uneven-copy.yaml"
    code = ("import sys\nsys.argv = ['meshspec', 'run', %r, '-f', 'json']\nfrom meshspec.cli import main\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\nsys.stderr.write('LOADED ' + str('json.decoder' in sys.modules))\n") % str(seed)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.startswith("{") and out.stderr.rpartition("LOADED ")[2] == "False"
