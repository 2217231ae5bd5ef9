"""Games played with the advisor: the record of a game (record.py) and its review (review.py), the
terminal play loop (play.py), the game of several players at a table (table_game.py, table_play.py) and
the entry of dice and boxes (entry.py, dice_input.py). It may import everything below it (rules, dp,
store, advice, chances, errors, i18n), never solver.api, solver.cli or solver.web."""
