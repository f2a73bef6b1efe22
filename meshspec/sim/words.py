"""ttnn's words as an era prints them (docs/semantics.md section 23).

The simulator raises ttnn's refusals in 0.81.1's words; where an older version prints the same
value otherwise, :func:`era_words` rewrites the message for a profile, at the one place a step's
error becomes the report's (meshspec/runner.py). Only the printing of values differs here, never
which call is refused: that is a rule of its own.

>>> from meshspec.sim.profiles import get_profile
>>> era_words("Invalid dimension index; got dims: {4, 3}, tensor dimension: 4", get_profile("ttnn-0.67.0"))
'Invalid dimension index; got dims: SmallVector([4, 3]), tensor dimension: 4'
>>> era_words("Invalid dimension index; got dims: {4, 3}, tensor dimension: 4", get_profile("current"))
'Invalid dimension index; got dims: {4, 3}, tensor dimension: 4'
"""

from __future__ import annotations

import re

from .profiles import DimListWords, Profile

_DIMS = re.compile(r"got dims: \{([-0-9, ]*)\}")
"""ttnn's list of dims in its refusal of a mapper's or composer's dims (mapping.py, compose.py)."""


def era_words(message: str, profile: Profile) -> str:
    """``message`` as the era of ``profile`` prints it (rule ``dim_list_words``: 0.66.0 and 0.67.0
    print a SmallVector of dims ``SmallVector([4, 3])`` where 0.81.1 prints ``{4, 3}``)."""
    if profile.dim_list_words is DimListWords.SMALL_VECTOR:
        return _DIMS.sub(lambda m: f"got dims: SmallVector([{m.group(1)}])", message)
    return message
