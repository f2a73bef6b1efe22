"""Minimal stand-in for `torch`, only so ttnn 0.81.1's Python code paths
(operation_tracer lazy `import torch`, from_torch numpy path, to_torch dlpack path)
can run in the mock venv, which has no torch wheel for Python 3.10.

NOT torch. torch.Tensor here is a numpy.ndarray subclass whose .dtype reads like a torch
dtype ("torch.float32") so the tracer's `str(value.dtype)` gives what real torch would.
"""
import sys
import types
import ctypes
import numpy as np


class _DType:
    def __init__(self, name, np_dtype):
        self.name, self.np_dtype = name, np_dtype

    def __str__(self):
        return f"torch.{self.name}"

    __repr__ = __str__


float32 = _DType("float32", np.float32)
bfloat16 = _DType("bfloat16", np.float32)  # numpy has no bf16; only used for isinstance/equality checks
int32 = _DType("int32", np.int32)
uint8 = _DType("uint8", np.uint8)
_NP2T = {np.dtype(np.float32): float32, np.dtype(np.int32): int32, np.dtype(np.uint8): uint8}


class Tensor(np.ndarray):
    _torch_dtype = None  # set for bf16 payloads (stored widened to float32)

    def __array_finalize__(self, obj):
        self._torch_dtype = getattr(obj, "_torch_dtype", None)

    @property
    def dtype(self):  # torch-like dtype for Python-level readers (the tracer)
        return self._torch_dtype or _NP2T.get(np.ndarray.dtype.__get__(self), float32)

    def detach(self):
        return self

    def float(self):
        return self


Tensor.__module__ = "torch_stub"  # keep nanobind from routing it to its torch importer


def from_numpy(a):
    return np.asarray(a).view(Tensor)


class _Capsule:
    def __init__(self, capsule):
        self._c = capsule

    def __dlpack__(self, stream=None, **kw):
        return self._c

    def __dlpack_device__(self):
        return (1, 0)  # kDLCPU


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32),
                ("ndim", ctypes.c_int32), ("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


def _bf16_from_capsule(capsule):
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    dl = _DLTensor.from_address(get(capsule, b"dltensor"))  # DLManagedTensor starts with its DLTensor
    assert dl.code == 4 and dl.bits == 16, "only bfloat16 handled here"
    shape = tuple(dl.shape[i] for i in range(dl.ndim))
    n = int(np.prod(shape)) if shape else 1
    raw = np.ctypeslib.as_array((ctypes.c_uint16 * n).from_address(dl.data + dl.byte_offset)).copy()
    out = (raw.astype(np.uint32) << 16).view(np.float32).reshape(shape).view(Tensor)
    out._torch_dtype = bfloat16
    return out


def _from_dlpack(obj):
    # nanobind hands over an nb_ndarray (has __dlpack__), not a raw capsule
    src = obj if hasattr(obj, "__dlpack__") else _Capsule(obj)
    try:
        return np.from_dlpack(src).view(Tensor)
    except RuntimeError:  # numpy has no bfloat16
        return _bf16_from_capsule(src.__dlpack__())


def install():
    m = types.ModuleType("torch")
    for k in ("Tensor", "float32", "bfloat16", "int32", "uint8", "from_numpy"):
        setattr(m, k, globals()[k])
    m.__version__ = "0.0.0+stub"
    utils = types.ModuleType("torch.utils")
    dl = types.ModuleType("torch.utils.dlpack")
    dl.from_dlpack = _from_dlpack
    utils.dlpack = dl
    m.utils = utils
    sys.modules.update({"torch": m, "torch.utils": utils, "torch.utils.dlpack": dl})
    return m
