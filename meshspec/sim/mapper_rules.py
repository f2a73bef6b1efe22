"""What a runtime era's mapper accepts: the rules :func:`~meshspec.sim.mapping.distribute` takes
and each profile names (docs/semantics.md section 4).

Apart from the mapping math so that the profile registry, which the CLI's help text lists, loads
without it.
"""

from __future__ import annotations

from ..frozen import Frozen


class MapperRules(Frozen):
    """What a runtime era's mapper accepts (see profiles)."""

    name: str
    equal_shards: bool
    """Current TT-NN: every shard must have the same shape (issue #22977)."""


CURRENT_MAPPER = MapperRules("current", equal_shards=True)
LEGACY_MAPPER = MapperRules("legacy", equal_shards=False)
