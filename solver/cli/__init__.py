"""The `kniffel` command line: solve tables, value cards, advise, play, simulate, review, serve."""

from __future__ import annotations

from . import (  # noqa: F401
    advise_commands,
    base,
    game_commands,
    poker_command,
    serve_command,
    statistics_commands,
    tables_commands,
)
from .base import Settings, cli, get_table, solve_table

__all__ = ["Settings", "cli", "get_table", "main", "solve_table"]


def main(argv=None) -> None:
    """The `kniffel` program: one command, then the process ends."""
    base.ONE_SHOT = True
    cli.main(args=argv, prog_name="kniffel")
