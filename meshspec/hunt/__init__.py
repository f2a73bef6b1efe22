"""``meshspec hunt``: find new mismatches by search and shrink them to the smallest repro.

:mod:`.programs` makes random programs from the op registry's vocabulary, :mod:`.search` runs
each under two profiles, names why they disagree (the finding kind, the rule, the op) and shrinks
the program, :mod:`.hunt` drives the search and writes each distinct disagreement as a scenario.
"""
