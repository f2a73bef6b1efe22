"""What the real ttnn runtime records, as ``meshspec.report/1`` JSON.

Runs where ttnn runs (hardware, or the mock on a CPU), so it imports nothing of meshspec:
``meshspec export`` inlines this file into the scripts it writes, and ``meshspec record`` imports
it. Each tensor is reported as meshspec reports one: its storage, topology, and per device whether
the runtime records it (``device_coords()``) with the tensor's spec and the buffer's page numbers;
a host tensor per populated shard of its host buffer. What the runtime does not know (which bytes
a write reached, a shard's global offset) is left out, and ``meshspec diff`` does not compare it.

ttnn 0.66.0 and 0.67.0 have no ``Tensor.device_coords()``, no ``DistributedHostBuffer.get_shard()``
and no ``buffer_page_size()`` (observed in the mock): there the recorded coordinates are those of
``tensor_topology()``, one per part of ``ttnn.get_device_tensors``, and the page numbers are left out
(docs/semantics.md section 10).
"""

import hashlib
import itertools
import json
import os
import stat

REPORT_FORMAT = "meshspec.report/1"


def _ttnn():
    import ttnn

    return ttnn


def _name(enum_value) -> str:
    """``DataType.BFLOAT16`` -> ``bfloat16``; ``BufferType.L1`` -> ``l1``."""
    return str(enum_value).split(".")[-1].lower()


def placement_json(p):
    ttnn = _ttnn()
    return {"shard": p.dim} if isinstance(p, ttnn.PlacementShard) else "R"


def topology_json(t) -> dict:
    topo = t.tensor_topology()
    return {
        "distribution_shape": list(topo.distribution_shape()),
        "placements": [placement_json(p) for p in topo.placements()],
        "coords": [list(c) for c in topo.mesh_coords()],
    }


def spec_json(t, pages: bool) -> dict:
    """The tensor's spec; with ``pages``, the allocated buffer's page numbers too."""
    ttnn = _ttnn()
    out = {
        "shape": list(t.shape),
        "padded_shape": list(t.padded_shape),
        "dtype": _name(t.dtype),
        "layout": _name(t.layout),
        "tile": list(t.tile.tile_shape),
        "memory": _name(t.memory_config().buffer_type),
    }
    config = memory_config_json(t.memory_config())
    if config["memory_layout"] != "interleaved":
        out["memory_config"] = config
    if pages and hasattr(t, "buffer_page_size"):  # 0.66.0 and 0.67.0 have no page numbers: left out, not compared
        page, num = t.buffer_page_size(), t.buffer_num_pages()
        out |= {"page_size": page, "aligned_page_size": t.buffer_aligned_page_size(), "num_pages": num, "buffer_bytes": page * num}
    return out


def memory_config_json(config) -> dict:
    """A ``ttnn.MemoryConfig`` as a scenario writes it: ``{memory_layout, buffer_type, shard_spec:
    {grid, shape, orientation}}``, or its ``nd_shard_spec`` where it has one and no 2-D spec (0.66.0
    and 0.67.0 have no ND_SHARDED layout: such a config says BLOCK_SHARDED; docs/semantics.md section 11)."""
    out = {"memory_layout": _name(config.memory_layout), "buffer_type": _name(config.buffer_type)}
    nd = getattr(config, "nd_shard_spec", None)
    if nd is not None and (out["memory_layout"] == "nd_sharded" or config.shard_spec is None):
        grid = [[[r.start.x, r.start.y], [r.end.x, r.end.y]] for r in nd.grid.ranges()]
        out["nd_shard_spec"] = {"shard_shape": list(nd.shard_shape), "grid": grid, "orientation": _name(nd.orientation),
                                "distribution": _name(nd.shard_distribution_strategy)}
        return out
    shard = config.shard_spec
    if shard is not None:
        grid = [[[r.start.x, r.start.y], [r.end.x, r.end.y]] for r in shard.grid.ranges()]
        out["shard_spec"] = {"grid": grid, "shape": list(shard.shape), "orientation": _name(shard.orientation)}
    return out


def populated(t) -> list:
    """Coordinates of a host tensor's distributed host buffer that hold a shard, row-major. Without
    ``get_shard`` (0.66.0, 0.67.0): the buffer's coordinates its topology lists, one per part."""
    ttnn = _ttnn()
    buffer = t.host_buffer()
    coords = [list(c) for c in itertools.product(*map(range, buffer.shape()))]
    if hasattr(buffer, "get_shard"):
        return [c for c in coords if buffer.get_shard(ttnn.MeshCoordinate(c)) is not None]
    listed = [list(c) for c in t.tensor_topology().mesh_coords()]
    found = coords if len(coords) == 1 else [c for c in coords if c in listed]
    return _one_per_part(found, t)


def recorded_coords(t) -> list:
    """The mesh coordinates a device tensor's storage records: ``device_coords()``, or without it
    (0.66.0, 0.67.0) its topology's coordinates, one per part of ``ttnn.get_device_tensors``."""
    if hasattr(t, "device_coords"):
        return [list(c) for c in t.device_coords()]
    return _one_per_part([list(c) for c in t.tensor_topology().mesh_coords()], t)


def _one_per_part(coords: list, t) -> list:
    """``coords`` if the tensor has one part per coordinate; else the runtime's records cannot be
    told apart, and the tensor is reported unreadable rather than guessed."""
    parts = len(_ttnn().get_device_tensors(t))
    if parts != len(coords):
        raise RuntimeError(f"{parts} device tensors but {len(coords)} coordinates in its topology: no device_coords() to tell them apart")
    return coords


def on_hardware() -> bool:
    """Whether device reads mean anything: the mock (TT_METAL_MOCK_CLUSTER_DESC_PATH set) reads
    zeros from every device (ttnn-mock README), so there no values are reported."""
    return not os.environ.get("TT_METAL_MOCK_CLUSTER_DESC_PATH")


def values_json(t):
    """A tensor's values as meshspec reports them (docs/semantics.md section 7: shape, dtype, the
    SHA-256 of its bytes, bfloat16 as two bytes; the first 16), when it holds one array: a host
    tensor of one shard, a device tensor on one device (read back). None otherwise or on the mock."""
    import numpy as np

    ttnn = _ttnn()
    if not on_hardware():
        return None
    if t.storage_type() == ttnn.StorageType.DEVICE:
        if not t.is_allocated() or len(recorded_coords(t)) != 1:
            return None
        t = t.cpu()
    elif len(populated(t)) != 1:
        return None
    v = host_array(ttnn.get_device_tensors(t)[0])
    dtype = _name(t.dtype)
    raw = (v.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16) if dtype == "bfloat16" else v
    first = [x.item() for x in v.reshape(-1)[:16]]
    return {"shape": list(v.shape), "dtype": dtype if dtype == "bfloat16" else str(v.dtype),
            "sha256": hashlib.sha256(raw.tobytes()).hexdigest(), "first": [x if x == x else str(x) for x in first]}


def host_array(t):
    """A one-shard host tensor's values as numpy, in logical (row-major) order: float32 for the
    bfloat types (ttnn 0.81.1's to_numpy of a bfloat16 tensor gives an unusable object array, so
    they go through ttnn.to_dtype(t, float32) first; observed in the mock); uint16 as uint16."""
    import numpy as np

    ttnn = _ttnn()
    if _name(t.dtype) in ("bfloat16", "bfloat8_b", "bfloat4_b"):
        t = ttnn.to_dtype(t, ttnn.float32)
    v = np.ascontiguousarray(t.to_numpy())
    if _name(t.dtype) == "uint16" and v.dtype == np.int16:  # 0.66.0's to_numpy gives the same bytes as int16 (observed)
        v = v.view(np.uint16)
    return v


def tensor_json(name: str, t) -> dict:
    out = _tensor_json(name, t)
    out["values"] = values_json(t) if out["storage"] != "deallocated" else None
    return out


def _tensor_json(name: str, t) -> dict:
    ttnn = _ttnn()
    if t.storage_type() == ttnn.StorageType.DEVICE:
        if not t.is_allocated():
            return {"name": name, "storage": "deallocated", "topology": topology_json(t), "devices": []}
        recorded = recorded_coords(t)
        spec = spec_json(t, pages=True)
        mesh = list(t.device().shape)
        # a device the runtime does not record has no spec it can tell: "spec" is left out (unknown)
        devices = [
            {"coord": list(c), "recorded": True, "spec": spec} if list(c) in recorded else {"coord": list(c), "recorded": False}
            for c in itertools.product(*map(range, mesh))
        ]
        # a coordinate the runtime records but the mesh no longer has (after a reshape)
        devices += [{"coord": c, "recorded": True, "spec": spec} for c in recorded if len(c) != len(mesh) or any(x >= n for x, n in zip(c, mesh))]
        return {"name": name, "storage": "device", "topology": topology_json(t), "address": t.buffer_address(), "devices": devices}
    parts = ttnn.get_device_tensors(t)
    devices = [{"coord": c, "recorded": True, "spec": spec_json(p, pages=False)} for c, p in zip(populated(t), parts)]
    return {"name": name, "storage": "host", "topology": topology_json(t), "devices": devices}


def error_json(step: int, op: str, exc: BaseException) -> dict:
    """The step's error as meshspec words it: a TT_FATAL's message (the text after ``info:``), else
    the exception's first line."""
    text = str(exc)
    if "info:" in text:
        text = text.split("info:", 1)[1].strip().split("\nbacktrace")[0].strip()
    return {"step": step, "op": op, "message": text.strip().splitlines()[0] if text.strip() else type(exc).__name__, "source": "ttnn"}


def ttnn_version() -> str:
    import importlib.metadata

    try:
        return importlib.metadata.version("ttnn")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def _storage(t) -> str:
    """Where a tensor the observer could not describe lives, as far as the runtime still says."""
    try:
        return "device" if t.storage_type() == _ttnn().StorageType.DEVICE else "host"
    except Exception:  # noqa: BLE001 (it could not be described: say the least)
        return "device"


def report_json(scenario: str, mesh_shape, tensors: dict, error, steps_run: int, steps_total: int) -> dict:
    """A meshspec.report/1 of the named tensors as the runtime records them now."""
    version = ttnn_version()
    reported = []
    for name, t in tensors.items():
        try:
            reported.append(tensor_json(name, t))
        except Exception as exc:  # a tensor the runtime can no longer describe (e.g. off its mesh)
            reported.append({"name": name, "storage": _storage(t), "topology": {"distribution_shape": [], "placements": [], "coords": []},
                             "devices": [], "unreadable": str(exc).splitlines()[0]})
    return {
        "format": REPORT_FORMAT,
        "scenario": scenario,
        "path": None,
        "profile": f"ttnn {version} (the real runtime)",
        "mesh": list(mesh_shape),
        "error": error,
        "steps_run": steps_run,
        "steps_total": steps_total,
        "tensors": reported,
        "findings": [],
    }


def write(report: dict, path):
    """The report as JSON to ``path`` (stdout if None); the bytes written to a path, else None.

    Never through a link at ``path``: a FIFO or a character device (``/dev/stdout``) is written
    through, as what was opened proves (the descriptor's own type, so nothing swapped in between
    the look and the open is written); anything else is a new private file written beside the
    name and renamed over it (replacing a link planted there, not what it points at)."""
    text = json.dumps(report, indent=1)
    if path is None:
        print(text)
        return None
    data = (text + "\n").encode()
    if _stream(path):
        fd = os.open(path, os.O_WRONLY | getattr(os, "O_CLOEXEC", 0))  # no O_CREAT, no O_TRUNC: a file opened here is untouched
        with os.fdopen(fd, "wb") as f:
            if stat.S_ISFIFO(os.fstat(fd).st_mode) or stat.S_ISCHR(os.fstat(fd).st_mode):
                f.write(data)
                return data
    folder = os.path.dirname(os.path.abspath(path))
    tmp = os.path.join(folder, f".{os.path.basename(path)}.{os.urandom(4).hex()}.tmp")
    try:
        mode = stat.S_IMODE(os.lstat(path).st_mode) if stat.S_ISREG(os.lstat(path).st_mode) else None
    except OSError:
        mode = None
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0), 0o666)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        if mode is not None:
            os.chmod(tmp, mode)  # a report replaced keeps its mode
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return data


def _stream(path):
    """Whether ``path`` names a FIFO or a character device (written through, not replaced)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)


def cannot_write(path):
    """Why a report cannot be written at ``path`` (one line), or None: a FIFO or device is written
    through; anything else needs a folder this user can write (the report is renamed into it)."""
    if _stream(path):
        return None
    if os.path.isdir(path):
        return "it is a folder"
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        return f"folder {folder} does not exist"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"folder {folder} is not writable"
    return None
