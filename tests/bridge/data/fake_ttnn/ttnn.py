"""A stand-in for ttnn: every call returns an object that answers every call; files are real."""
import pathlib


class _Any:
    def __init__(self, *a, **k):
        pass

    def __getattr__(self, name):
        if name.startswith("__") or name == "storage_type":
            raise AttributeError(name)
        return _Any()

    def __call__(self, *a, **k):
        return _Any()


def dump_tensor(path, t):
    pathlib.Path(path).write_bytes(b"tensor")


def load_tensor(path, device=None):
    if not pathlib.Path(path).exists():
        raise RuntimeError(f"Unable to load the tensor from {path}.  The file does not exist.")
    return _Any()


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return _Any()
