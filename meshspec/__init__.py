"""meshspec: reproduce and diagnose TT-NN mesh spec mismatches on a simulated device mesh."""

__version__ = "0.1.0"
