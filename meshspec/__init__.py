"""meshspec: reproduce and diagnose TT-NN mesh spec mismatches on a simulated device mesh.

The Python API (docs/python-api.md): :func:`run`, :func:`load`, :func:`to_yaml`, :class:`Builder`,
:func:`view` and the exception root :class:`MeshspecError`. Each is imported when first used, so
``import meshspec`` (and the CLI, which imports this package first) loads nothing more.
"""

__version__ = "0.1.0"

#: Public name -> the module that defines it (imported at the name's first use).
_LAZY = {
    "run": "meshspec.api",
    "load": "meshspec.api",
    "to_yaml": "meshspec.api",
    "Builder": "meshspec.api.builder",
    "view": "meshspec.api.view",
    "MeshspecError": "meshspec.errors",
    "ScenarioError": "meshspec.errors",
    "UsageError": "meshspec.errors",
}

__all__ = ["__version__", *_LAZY]


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'meshspec' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # found once: the next look-up is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
