"""The languages: every text the user reads, looked up by key in the current language (texts.py) from
the catalogues (catalogue.py, errors.py, help.py, reports.py). At the bottom of the package: every part may
use it; it imports nothing of the solver but solver.errors."""
