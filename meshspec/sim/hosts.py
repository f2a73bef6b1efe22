"""Multi-host meshes: which host owns which devices of a mesh (docs/semantics.md section 15).

A mesh graph descriptor gives a mesh its ``device_topology`` (the mesh shape) and its
``host_topology`` (a grid of hosts); the mesh is cut into equal blocks, one a host, and the hosts'
ranks are numbered row-major over the host grid (tt_metal/fabric/mesh_graph.cpp @ 00da45c5,
``mesh_host_rank_coord_ranges_``). ``dual_galaxy_mesh_graph_descriptor.textproto`` is 8x8 on
hosts [1, 2]; ``t3k_dual_host_mesh_graph_descriptor.yaml`` is a T3K 2x4 on hosts [1, 2]. Every
host's ``MeshDevice`` spans the whole mesh; a coordinate is *local* to the host that owns it and
*remote* to every other (``MeshDevice::is_local``). A scenario runs as one host: its rank.

A host's block, and a device's owner, are worked out from the rank or the coordinate alone (a
division per dim): asking is cheap however many hosts there are, and no call lists every host's
block (issue 36: rebuilding them all on each ``is_local`` made a call cost devices x hosts).

>>> host_blocks((2, 4), (1, 2))
(((0, 0), (1, 1)), ((0, 2), (1, 3)))
>>> Hosts((2, 4), (1, 2), 1).is_local((0, 1)), Hosts((2, 4), (1, 2), 1).is_local((1, 2))
(False, True)
"""

from __future__ import annotations

import functools
from typing import Optional

from ..frozen import Frozen
from .mesh import Coord, CoordRange, Shape, coords, fmt_range, volume


def host_blocks(mesh: Shape, topology: Shape) -> tuple[CoordRange, ...]:
    """Each host rank's devices, as an inclusive box, in rank order: the mesh cut into
    ``topology`` equal blocks, ranks row-major over the host grid (mesh_graph.cpp)."""
    board = tuple(m // h for m, h in zip(mesh, topology))
    return tuple(
        (tuple(h * b for h, b in zip(host, board)), tuple((h + 1) * b - 1 for h, b in zip(host, board)))
        for host in coords(topology)
    )


@functools.lru_cache(maxsize=64)
def host_block(mesh: Shape, topology: Shape, rank: int) -> CoordRange:
    """Host ``rank``'s devices as an inclusive box: ``host_blocks(mesh, topology)[rank]``, without
    the others (the rank's place on the host grid, row-major, times the block shape).

    >>> host_block((8, 4), (2, 2), 3)
    ((4, 2), (7, 3))
    """
    board = tuple(m // h for m, h in zip(mesh, topology))
    host = []
    for h in reversed(topology):
        rank, i = divmod(rank, h)
        host.append(i)
    host.reverse()
    return tuple(i * b for i, b in zip(host, board)), tuple((i + 1) * b - 1 for i, b in zip(host, board))


def topology_error(mesh: Shape, topology: Shape) -> Optional[str]:
    """The real library's error for a host topology that does not cut ``mesh`` evenly (None: it
    does). mesh_graph.cpp reads two dims of each."""
    if len(mesh) != 2 or len(topology) != 2:
        return (f"a host topology cuts a 2-D mesh (mesh_graph.cpp reads dims 0 and 1 of both); the mesh is "
                f"{list(mesh)} and the host topology {list(topology)}: give the mesh as [rows, cols] and hosts as [rows, cols]")
    if any(h <= 0 or m % h for m, h in zip(mesh, topology)):
        return (f"MeshGraph: Mesh shape {mesh[0]}x{mesh[1]} must be divisible by host shape {topology[0]}x{topology[1]} "
                f"(each host owns an equal block of the mesh: a divisor of {mesh[0]} rows by a divisor of {mesh[1]} columns)")
    return None


class Hosts(Frozen):
    """The hosts a mesh is spread over, and the one a scenario runs as."""

    mesh: Shape
    topology: Shape
    """The mesh graph descriptor's ``host_topology`` dims."""
    rank: int
    """The host this scenario runs as (``MeshHostRankId``)."""

    @property
    def count(self) -> int:
        return volume(self.topology)

    @property
    def blocks(self) -> tuple[CoordRange, ...]:
        return host_blocks(self.mesh, self.topology)

    @property
    def local(self) -> CoordRange:
        """This host's devices, as a box (its own block only: no other host's is made)."""
        return host_block(self.mesh, self.topology, self.rank)

    def owner(self, c: Coord) -> int:
        """The rank of the host that owns device ``c`` of the mesh: its host's place on the host
        grid, row-major."""
        if len(c) != len(self.mesh) or not all(0 <= x < m for x, m in zip(c, self.mesh)):
            raise ValueError(f"{c} is not on the mesh {self.mesh}")
        rank = 0
        for x, m, h in zip(c, self.mesh, self.topology):
            rank = rank * h + x // (m // h)
        return rank

    def is_local(self, c: Coord) -> bool:
        lo, hi = self.local  # made once per Hosts value (host_block is cached)
        return len(c) == len(lo) and all(a <= x <= b for a, x, b in zip(lo, c, hi))

    def describe(self) -> str:
        """``host 1 of 2 (hosts [1, 2]): local (0,2)..(1,3)``, for reports."""
        return f"host {self.rank} of {self.count} (hosts {list(self.topology)}): local {fmt_range(self.local)}"

    def as_written(self) -> dict:
        """As a scenario writes it: ``{topology: [1, 2], rank: 1}`` (a report's line pastes back)."""
        return {"topology": list(self.topology), "rank": self.rank}
