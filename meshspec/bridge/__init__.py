"""The bridge between scenarios and real ttnn code: ``export`` (a scenario as a ttnn script that
reports what the real runtime records), ``record`` (a real program as a scenario and a report of
its real records) and ``import_`` (ttnn's operation tracer and graph capture as scenarios).
"""
