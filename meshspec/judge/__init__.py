"""The judging layer: reads the simulator's state and produces plain report data.

Findings (per-device views and events), expectations, diffs, the step trace and the data view.
"""
