"""``meshspec init``: a commented starter scenario for a system."""

from __future__ import annotations

import json

from .errors import UsageError, did_you_mean, one_of
from .sim.mesh import SYSTEMS, system_named, volume
from .sim.profiles import PROFILES
from .text import printable

TEMPLATE = """\
# yaml-language-server: $schema=meshspec-scenario.schema.json   (meshspec schema > that file)
# A meshspec scenario: each step is a ttnn call. Run it with
#   meshspec run {file}   (add --profile all to compare runtime eras)
meshspec: 1
name: {name}                # quoted: a name like 2024 or yes stays text
description: >
  Describe what this scenario reproduces. {story}
mesh: {system}                      # {rows}; or a shape such as [2, 4]
profile: current                   # {profiles}
steps:
  # ttnn.allocate_tensor_on_device(ttnn.TensorSpec([1, 1, 32, 32], ttnn.bfloat16, ttnn.TILE_LAYOUT), mesh)
  - allocate_tensor_on_device: {{as: dst, shape: [1, 1, 32, 32], dtype: bfloat16, layout: tile}}
  # ttnn.from_torch(torch.arange(...), mesh_mapper=ttnn.shard_tensor_to_mesh_mapper(mesh, dim=1))
  - from_torch: {{as: src, shape: [1, {rows_minus_one}, 32, 32], dtype: bfloat16, mesh_mapper: {{shard: 1}}}}
  # ttnn.copy_host_to_device_tensor(src, dst)
  - copy_host_to_device_tensor: {{src: src, dst: dst}}
  # ttnn.to_torch(dst, mesh_composer=ttnn.concat_mesh_to_tensor_composer(mesh, dim=1))
  - to_torch: {{tensor: dst, mesh_composer: {{concat: 1}}}}
# What a correct run records; `meshspec check` checks it.
expect:
  profiles:
    default:
      findings: []
"""


def starter(system: str, file_name: str) -> str:
    key = system_named(system) or system.lower()
    if key not in SYSTEMS:
        raise UsageError(f"unknown system {system!r}{did_you_mean(key, list(SYSTEMS))}; {one_of(list(SYSTEMS))}")
    shape, note = SYSTEMS[key].shape, SYSTEMS[key].note
    n = volume(shape)
    stem = file_name.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    if n > 1:
        story = (
            f"This starter shards a tensor with one row fewer than the {key} has devices and copies it into a "
            "uniform allocation: the last device gets nothing (try --profile all)."
        )
    else:
        story = f"This starter copies a tensor onto the {key}'s single device and reads it back."
    return TEMPLATE.format(
        file=printable(file_name).replace("\n", "\\n"),
        name=json.dumps(printable(stem)),  # a JSON string is a YAML double-quoted scalar
        system=key,
        story=story,
        rows=f"{'x'.join(map(str, shape))}: {note}",
        rows_minus_one=max(n - 1, 1),
        profiles=" | ".join(PROFILES),
    )
