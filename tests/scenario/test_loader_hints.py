"""An unknown key's hint names the step the user wrote, even where several steps share one
arguments model (``ones``, ``zeros`` and the rest of ttnn's creation calls)."""

import pytest

from meshspec.errors import ScenarioError
from meshspec.scenario.loader import parse


@pytest.mark.parametrize("op", ["ones", "zeros", "full", "empty", "ones_like", "zeros_like", "empty_like", "full_like"])
def test_the_hint_for_a_wrong_mesh_key_names_the_step_written(op):
    like = op.endswith("_like")
    args = "{tensor: a, mesh_device: 1}" if like else "{as: a, shape: [1, 1, 32, 32], mesh_device: 1}"
    first = "  - zeros: {as: a, shape: [1, 1, 32, 32]}\n" if like else ""
    text = f"meshspec: 1\nmesh: t3k\nsteps:\n{first}  - {op}: {args}\n"
    with pytest.raises(ScenarioError) as err:
        parse(text, "s.yaml")
    # whichever way the step spells its mesh argument, the hint names this step and no other
    assert f"in steps[{1 if like else 0}].{op}: " in str(err.value)
    assert f": {op} " in str(err.value) or "runs where its tensors are" in str(err.value), str(err.value)
