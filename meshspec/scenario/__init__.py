"""Scenario files: the typed model (format 1) and the loader that validates YAML against it."""

from .loader import LoadedScenario, LoadedStep, load, parse

__all__ = ["LoadedScenario", "LoadedStep", "load", "parse"]
