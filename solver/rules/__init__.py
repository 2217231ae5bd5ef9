"""The rules as data: a variant (variant.py: dice, boxes, bonuses, joker and scratch rules), the presets
(presets.py), the points of each box (scoring.py), the dice and their keep lattice (dice.py) and the checks of
arguments (checks.py). Nothing here solves anything; it may import only solver.errors and solver.i18n."""
