"""The tables on disk: where they live (locations.py), how a file is read and written (files.py), the table
of a variant (tables.py) and its build (solving.py), the target tables and their layers, and the bounded
caches of loaded tables. It may import solver.rules, solver.dp, solver.errors and solver.i18n; it knows
nothing of advice, chances or games."""
