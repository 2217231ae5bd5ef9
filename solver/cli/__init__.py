"""The `kniffel` command line: solve tables, value cards, advise, play, simulate, review, serve."""

from __future__ import annotations

from . import advise_commands, game_commands, serve_command, statistics_commands, tables_commands  # noqa: F401
from .base import Settings, cli, get_table, solve_table

__all__ = ["Settings", "cli", "get_table", "main", "solve_table"]


def main(argv=None) -> None:
    cli.main(args=argv, prog_name="kniffel")
