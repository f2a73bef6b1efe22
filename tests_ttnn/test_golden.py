"""The golden file the main suite checks meshspec against (tests/golden/ttnn_0_81_1.json) is still
what ttnn 0.81.1 says: tools/golden/record_ttnn.py, run again, writes the same bytes (it is
deterministic; about 25 s)."""

import sys

import pytest

from conftest import ROOT, VERSION, run_mock


def test_the_golden_file_is_what_the_library_records_today(tmp_path):
    if VERSION != "0.81.1":
        pytest.skip(f"tools/golden/record_ttnn.py records 0.81.1 (it reads device_coords() and get_shard(), which {VERSION} has not); "
                    f"{VERSION}'s golden data is recorded by tools/golden/record_device_ids.py, record_replicated_distribution.py "
                    "and record_placement_eras.py")
    result = run_mock(["python", str(ROOT / "tools" / "golden" / "record_ttnn.py"), "--golden", str(tmp_path / "g.json")], "t3k",
                      tmp_path, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    committed = (ROOT / "tests" / "golden" / "ttnn_0_81_1.json").read_text()
    assert (tmp_path / "g.json").read_text() == committed, "re-recorded golden data differs: run tools/golden/record_ttnn.py and review"
