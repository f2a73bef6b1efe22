"""The ttnn calls ``meshspec record`` writes as steps: for each, how its arguments, in every
spelling ttnn accepts (positional or keyword, by the names of ttnn 0.81.1's signatures), become
the step's fields, and the mapper and composer factories whose results a step can name.

A translator is ``(recorder, frame, *args, **kwargs) -> (op, fields, binds)``; ``binds`` names
what the call returns (``"tensor"``, ``"tensors"``) or is None. One that meets an argument no step
field can express raises :class:`NotModeled`, and the call is recorded as an ``opaque`` step.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Optional

from . import observe


class NotModeled(Exception):
    """An argument the step cannot express; the call is recorded as opaque."""


def arg(args: tuple, kwargs: dict, i: int, *names: str, default: Any = None) -> Any:
    """Argument ``i``, given positionally or by any of ``names``."""
    if len(args) > i:
        return args[i]
    for n in names:
        if n in kwargs:
            return kwargs[n]
    return default


def spec_fields(spec: dict) -> dict:
    """A spec as observe.py reports it -> the step's tensor fields (defaults left out)."""
    out = {"shape": spec["shape"], "dtype": spec["dtype"], "layout": spec["layout"]}
    if spec.get("tile") not in (None, [32, 32]):
        out["tile"] = spec["tile"]
    if spec.get("memory_config") is not None:
        out["memory_config"] = spec["memory_config"]
    elif spec.get("memory") not in (None, "dram"):
        out["memory"] = spec["memory"]
    return out


def _tensor_spec(spec) -> dict:
    """A ``ttnn.TensorSpec`` -> tensor fields (a sharded one's memory_config included)."""
    config = observe.memory_config_json(spec.memory_config)
    fields = {"shape": list(spec.shape), "dtype": observe._name(spec.dtype), "layout": observe._name(spec.layout),
              "tile": list(spec.tile.tile_shape), "memory": config["buffer_type"]}
    if config["memory_layout"] != "interleaved":
        fields["memory_config"] = config
    return spec_fields(fields)


def _memory_field(config) -> dict:
    """``memory_config=`` of a call -> ``memory`` (interleaved) or the whole ``memory_config``."""
    if config is None:
        return {}
    c = observe.memory_config_json(config)
    return {"memory": c["buffer_type"]} if c["memory_layout"] == "interleaved" else {"memory_config": c}


def _with_mesh(rec, frame, fields: dict, device, key: str = "mesh_device") -> dict:
    name = rec.mesh_field(device, frame)
    return fields | ({key: name} if name else {})


def _allocate(op: str):
    def translate(rec, frame, *args, **kwargs):
        first = arg(args, kwargs, 0, "tensor_spec", "spec", "shape")
        if hasattr(first, "memory_config") and hasattr(first, "tile"):  # (tensor_spec, mesh_device)
            fields, device = _tensor_spec(first), arg(args, kwargs, 1, "mesh_device", "device")
        else:  # (shape, dtype, layout, mesh_device, memory_config)
            device = arg(args, kwargs, 3, "mesh_device", "device")
            dtype, layout = arg(args, kwargs, 1, "dtype"), arg(args, kwargs, 2, "layout")
            if dtype is None or layout is None:
                raise NotModeled("a spec spelled another way")
            fields = spec_fields({"shape": list(first), "dtype": observe._name(dtype), "layout": observe._name(layout)})
            fields |= _memory_field(arg(args, kwargs, 4, "memory_config"))
        rec.name_of(device, frame)
        return op, _with_mesh(rec, frame, fields, device), "tensor"

    return translate


def _copy_to_device(rec, frame, *args, **kwargs):
    src, dst = arg(args, kwargs, 0, "host_tensor"), arg(args, kwargs, 1, "device_tensor")
    return "copy_host_to_device_tensor", {"src": rec.name_of(src, frame), "dst": rec.name_of(dst, frame)}, None


def _copy_partial(rec, frame, *args, **kwargs):
    src, dst = arg(args, kwargs, 0, "host_tensor"), arg(args, kwargs, 1, "device_tensor")
    crs = arg(args, kwargs, 2, "logical_core_filter", "core_filter")
    grid = [[[r.start.x, r.start.y], [r.end.x, r.end.y]] for r in crs.ranges()] if crs is not None else []
    return "copy_host_to_device_tensor_partial", {"src": rec.name_of(src, frame), "dst": rec.name_of(dst, frame), "core_filter": grid}, None


def _copy_to_host(rec, frame, *args, **kwargs):
    dev, host = arg(args, kwargs, 0, "device_tensor"), arg(args, kwargs, 1, "host_tensor")
    return "copy_device_to_host_tensor", {"device_tensor": rec.name_of(dev, frame), "host_tensor": rec.name_of(host, frame)}, None


def _to_device(rec, frame, *args, **kwargs):
    t, device = arg(args, kwargs, 0, "tensor"), arg(args, kwargs, 1, "device", "mesh_device")
    fields = {"src": rec.name_of(t, frame)} | _memory_field(arg(args, kwargs, 2, "memory_config"))
    return "to_device", _with_mesh(rec, frame, fields, device, "device"), "tensor"


def _to(rec, frame, *args, **kwargs):
    """``host.to(device, memory_config)`` (a layout or dtype ``to`` is another call)."""
    t, device = args[0], arg(args, kwargs, 1, "device", "mesh_device")
    if device is None or not hasattr(device, "get_device_ids"):
        raise NotModeled("Tensor.to of something other than a mesh device")
    fields = {"tensor": rec.name_of(t, frame)} | _memory_field(arg(args, kwargs, 2, "memory_config", "mem_config"))
    return "to", _with_mesh(rec, frame, fields, device, "device"), "tensor"


def _cpu(rec, frame, *args, **kwargs):
    return "cpu", {"tensor": rec.name_of(arg(args, kwargs, 0, "tensor", "self"), frame)}, "tensor"


def _deallocate(rec, frame, *args, **kwargs):
    fields = {"tensor": rec.name_of(arg(args, kwargs, 0, "tensor"), frame)}
    if not arg(args, kwargs, 1, "force", default=True):
        fields["force"] = False
    return "deallocate", fields, None


def mapper_form(rec, m) -> Any:
    form = rec.mappers.get(id(m))
    if form is None and hasattr(m, "unwrap"):
        form = rec.mappers.get(id(m.unwrap()))
    if form is None:
        raise NotModeled("a mapper or composer not made by a recorded factory")
    return form


def _distribute(rec, frame, *args, **kwargs):
    t, mapper = arg(args, kwargs, 0, "tensor"), arg(args, kwargs, 1, "mapper", "mesh_mapper")
    device = arg(args, kwargs, 2, "mesh_device", "device")
    fields = {"tensor": rec.name_of(t, frame), "mesh_mapper": mapper_form(rec, mapper)}
    if device is not None:
        fields["mesh_device"] = rec.name_of(device, frame)
    return "distribute_tensor", fields, "tensor"


def _aggregate(rec, frame, *args, **kwargs):
    t, composer = arg(args, kwargs, 0, "tensor"), arg(args, kwargs, 1, "composer", "mesh_composer")
    return "aggregate_tensor", {"tensor": rec.name_of(t, frame), "mesh_composer": mapper_form(rec, composer)}, "tensor"


def _get_device_tensors(rec, frame, *args, **kwargs):
    return "get_device_tensors", {"tensor": rec.name_of(arg(args, kwargs, 0, "tensor"), frame)}, "tensors"


def _combine(rec, frame, *args, **kwargs):
    tensors = arg(args, kwargs, 0, "tensors")
    return "combine_device_tensors", {"tensors": [rec.name_of(t, frame) for t in tensors]}, "tensor"


def _to_torch(rec, frame, *args, **kwargs):
    t, composer = arg(args, kwargs, 0, "tensor"), kwargs.get("mesh_composer", args[2] if len(args) > 2 else None)
    fields = {"tensor": rec.name_of(t, frame)}
    if composer is not None:
        fields["mesh_composer"] = mapper_form(rec, composer)
    return "to_torch", fields, "tensor"


def _from_torch(rec, frame, *args, **kwargs):
    import numpy as np

    import ttnn

    source = arg(args, kwargs, 0, "tensor")
    array = source.float().numpy() if hasattr(source, "float") else np.asarray(source, dtype=np.float32)
    data_file = rec.save_array(rec.assigned(frame, "from_torch") or "host", array)
    dtype = arg(args, kwargs, 1, "dtype") or ttnn.bfloat16
    fields = {"shape": list(array.shape), "dtype": observe._name(dtype),
              "layout": observe._name(kwargs.get("layout") or ttnn.ROW_MAJOR_LAYOUT), "data": {"file": data_file}}
    if kwargs.get("mesh_mapper") is not None:
        fields["mesh_mapper"] = mapper_form(rec, kwargs["mesh_mapper"])
    if kwargs.get("device") is not None:
        fields["device"] = rec.name_of(kwargs["device"], frame)
        fields |= _memory_field(kwargs.get("memory_config"))
    return "from_torch", fields, "tensor"


def _creation(op: str, fill: bool = False):
    """``ttnn.empty`` / ``zeros`` / ``ones`` / ``full``: (shape, [fill_value], dtype, layout, device, memory_config)."""

    def translate(rec, frame, *args, **kwargs):
        import ttnn

        shape = arg(args, kwargs, 0, "shape")
        at = 2 if fill else 1
        dtype = arg(args, kwargs, at, "dtype") or ttnn.bfloat16
        layout = arg(args, kwargs, at + 1, "layout") or ttnn.ROW_MAJOR_LAYOUT
        device = arg(args, kwargs, at + 2, "device", "mesh_device")
        fields = spec_fields({"shape": list(shape), "dtype": observe._name(dtype), "layout": observe._name(layout)})
        if fill:
            fields["fill_value"] = arg(args, kwargs, 1, "fill_value")
        if device is not None:
            fields["device"] = rec.name_of(device, frame)
            fields |= _memory_field(arg(args, kwargs, at + 3, "memory_config"))
        elif op == "empty":
            raise NotModeled("ttnn.empty without a device")
        return op, fields, "tensor"

    return translate


def _dump(rec, frame, *args, **kwargs):
    name, t = arg(args, kwargs, 0, "file_name"), arg(args, kwargs, 1, "tensor")
    return "dump_tensor", {"file_name": str(name), "tensor": rec.name_of(t, frame)}, None


def _load(rec, frame, *args, **kwargs):
    name, device = arg(args, kwargs, 0, "file_name"), arg(args, kwargs, 1, "device")
    fields = {"file_name": str(name)}
    if device is not None:
        fields["device"] = rec.name_of(device, frame)
    return "load_tensor", fields, "tensor"


def _create_submesh(rec, frame, *args, **kwargs):
    parent, shape, offset = args[0], arg(args, kwargs, 1, "submesh_shape", "shape"), arg(args, kwargs, 2, "offset")
    fields = {"shape": list(shape), "offset": list(offset) if offset is not None else None}
    return "create_submesh", _with_mesh(rec, frame, fields, parent), "mesh"


def _create_submeshes(rec, frame, *args, **kwargs):
    parent, shape = args[0], arg(args, kwargs, 1, "submesh_shape", "shape")
    return "create_submeshes", _with_mesh(rec, frame, {"shape": list(shape)}, parent), "meshes"


def _reshape(rec, frame, *args, **kwargs):
    md, shape = args[0], arg(args, kwargs, 1, "new_shape", "shape")
    return "MeshDevice.reshape", _with_mesh(rec, frame, {"shape": list(shape)}, md), None


#: ttnn module attribute -> its translator.
TRANSLATORS: dict[str, Callable] = {
    "allocate_tensor_on_device": _allocate("allocate_tensor_on_device"),
    "allocate_tensor_on_host": _allocate("allocate_tensor_on_host"),
    "copy_host_to_device_tensor": _copy_to_device,
    "copy_device_to_host_tensor": _copy_to_host,
    "copy_host_to_device_tensor_partial": _copy_partial,
    "to_device": _to_device,
    "from_device": _cpu,
    "deallocate": _deallocate,
    "distribute_tensor": _distribute,
    "aggregate_tensor": _aggregate,
    "get_device_tensors": _get_device_tensors,
    "combine_device_tensors": _combine,
    "to_torch": _to_torch,
    "from_torch": _from_torch,
    "empty": _creation("empty"),
    "zeros": _creation("zeros"),
    "ones": _creation("ones"),
    "full": _creation("full", fill=True),
    "dump_tensor": _dump,
    "load_tensor": _load,
}

#: (class attribute, method) -> its translator: ``Tensor.cpu``, ``Tensor.to``, the MeshDevice calls.
METHODS: dict[tuple[str, str], Callable] = {
    ("Tensor", "cpu"): _cpu,
    ("Tensor", "to"): _to,
    ("MeshDevice", "create_submesh"): _create_submesh,
    ("MeshDevice", "create_submeshes"): _create_submeshes,
    ("MeshDevice", "reshape"): _reshape,
}


# -- mappers and composers ------------------------------------------------------------------------
def placements(text: str) -> list:
    """Placements in a ttnn repr (``PlacementShard(-3)`` keeps its sign)."""
    return ["replicate" if p.startswith("PlacementReplicate") else {"shard": int(re.search(r"-?\d+", p).group())}
            for p in re.findall(r"Placement(?:Replicate\(\)|Shard\(-?\d+\))", text)]


def override(text: str, key: str) -> Optional[list]:
    m = re.search(key + r"=Mesh(?:Shape|Coordinate)\(\[([\d, ]+)\]\)", text)
    return [int(x) for x in m.group(1).split(",")] if m else None


def _overrides(text: str) -> dict:
    """A mapper or composer config's mesh shape and offset overrides, as the scenario spells them."""
    found = {key: override(text, key) for key in ("mesh_shape_override", "mesh_offset_override")}
    return {key: value for key, value in found.items() if value is not None}


def _mesh_key(rec, device) -> dict:
    name = rec.ids.get(id(device))
    return {"mesh_device": name} if name and name != "mesh_device" else {}


def _mapper_config(rec, *args, **kwargs) -> dict:
    device, config = arg(args, kwargs, 0, "mesh_device"), arg(args, kwargs, 1, "config")
    text = repr(config)
    out: dict = {"placements": placements(text), **_overrides(text)}
    return {"create_mesh_mapper": out | _mesh_key(rec, device)}


def _composer_config(rec, *args, **kwargs) -> dict:
    device, config = arg(args, kwargs, 0, "mesh_device"), arg(args, kwargs, 1, "config")
    text = repr(config)
    m = re.search(r"dims: \[([-\d, ]+)\]", text)
    if not m:
        raise NotModeled(text)
    out: dict = {"dims": [int(x) for x in m.group(1).split(",")], **_overrides(text)}
    return {"create_mesh_composer": out | _mesh_key(rec, device)}


def _shard_mapper(rec, *args, **kwargs) -> dict:
    device, dim = arg(args, kwargs, 0, "mesh_device"), arg(args, kwargs, 1, "dim")
    return {"shard_tensor_to_mesh_mapper": {"dim": dim, **_mesh_key(rec, device)}}


def _replicate_mapper(rec, *args, **kwargs):
    key = _mesh_key(rec, arg(args, kwargs, 0, "mesh_device"))
    return {"replicate_tensor_to_mesh_mapper": key} if key else "replicate_tensor_to_mesh_mapper"


def _replicate_wrapper(rec, *args, **kwargs):
    """``ttnn.ReplicateTensorToMesh(md)``: a Python wrapper around the replicate mapper."""
    key = _mesh_key(rec, arg(args, kwargs, 0, "mesh_device"))
    return {"ReplicateTensorToMesh": key} if key else "ReplicateTensorToMesh"


def _concat_composer(rec, *args, **kwargs) -> dict:
    device, dim = arg(args, kwargs, 0, "mesh_device"), arg(args, kwargs, 1, "dim")
    return {"concat_mesh_to_tensor_composer": {"dim": dim, **_mesh_key(rec, device)}}


#: ttnn mapper and composer factories -> the YAML form of what they made (docs/ttnn-spelling.md's mapper table).
FACTORIES: dict[str, Callable] = {
    "shard_tensor_to_mesh_mapper": _shard_mapper,
    "replicate_tensor_to_mesh_mapper": _replicate_mapper,
    "ReplicateTensorToMesh": _replicate_wrapper,
    "create_mesh_mapper": _mapper_config,
    "concat_mesh_to_tensor_composer": _concat_composer,
    "create_mesh_composer": _composer_config,
}
