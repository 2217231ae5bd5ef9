"""Where tables live.

* --tables or $KNIFFEL_TABLES, when given;
* else, running from a source checkout, the repository's tables/ folder;
* else (an installed wheel) the user's data folder (platformdirs: ~/.local/share/kniffel/tables on
  Linux), never the site-packages folder.

Tables that take long to build (Kniffel 7) are shipped inside the package (solver/data/), read-only;
a table in the tables folder wins over a shipped one.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent  # solver/ (this file is solver/store/locations.py)
SHIPPED = PACKAGE / "data"


def checkout_tables_dir() -> Path | None:
    """The repository's tables/ folder when the package runs from a source checkout."""
    root = PACKAGE.parent
    if (root / "pyproject.toml").is_file() and (root / "tables").is_dir():
        return root / "tables"
    return None


def default_tables_dir() -> Path:
    checkout = checkout_tables_dir()
    if checkout is not None:
        return checkout
    from platformdirs import user_data_dir

    return Path(user_data_dir("kniffel", appauthor=False)) / "tables"


def shipped_tables_dir() -> Path:
    return SHIPPED
