# ruff: noqa: E501  (messages are data: one line each reads best)
"""The texts of `distribution`, `odds`, `chances`, `advise --target` and `advise --opponent` for solver/texts.py.
Same form as texts_catalogue.py (message id -> format string, both languages with the same ids and fields)."""

EN_REPORTS = {
    # -- distribution ---------------------------------------------------------------------------
    "dist_title": "{title}: exact final-score distribution of optimal play ({seconds:.2f} s)",
    "card_line": "Card: {card} ({points} points)",
    "dist_summary": "mean {mean:.4f}, std {std:.4f}, median {median}, min {min}, max {max}",
    "dist_percentiles": "percentiles: {values}",
    "dist_at_least": "P(score >= t): {values}",
    "plot_written": "plot written to {path}",
    # -- odds -----------------------------------------------------------------------------------
    "odds_title": "{title}: {count} players, each playing for the best mean score",
    "odds_columns": "player,win,expected,std",
    "odds_tie": "  tie for first: {tie}",
    "odds_cards": "Cards:",
    "odds_card": "  {name}: {card}",
    # -- chances --------------------------------------------------------------------------------
    "chances_title": "{variant}, target {target} or more:",
    "chances_best": "  best play for the target reaches it with probability {p:.6f} ({p:.2%})",
    "chances_mean": "  playing for the highest expected score: {p:.6f} ({p:.2%})",
    # -- advise --target / --opponent -------------------------------------------------------------
    "target_start": "Target {target}: reached with probability {p:.2%} from the start of this turn",
    "target_best": "Best for the target: {text}  -> reaches {target} with probability {p:.4%}",
    "target_best_then": "Best for the target: {text}, then {then}  -> reaches {target} with probability {p:.4%}",
    "target_label": "P(>= {target})",
    "opponent_card": "Opponent: {card} ({points} points), expects {mean:.1f}",
    "opponent_start": "P(win) {p:.2%} from the start of this turn (a tie is not a win)",
    "opponent_best": "Best to win: {text}  -> beats the opponent with probability {p:.4%}",
    "opponent_best_then": "Best to win: {text}, then {then}  -> beats the opponent with probability {p:.4%}",
    "opponent_label": "P(win)",
    "chance_columns": "option,expected",
    "err_target_opponent": "--target and --opponent do not go together: play to reach a score or to beat a card",
}

DE_REPORTS = {
    "dist_title": "{title}: genaue Verteilung des Endstands bei bestem Spiel ({seconds:.2f} s)",
    "card_line": "Zettel: {card} ({points} Punkte)",
    "dist_summary": "Mittel {mean:.4f}, Std.-Abw. {std:.4f}, Median {median}, Minimum {min}, Maximum {max}",
    "dist_percentiles": "Perzentile: {values}",
    "dist_at_least": "P(Endstand >= t): {values}",
    "plot_written": "Grafik geschrieben: {path}",
    "odds_title": "{title}: {count} Spieler, jeder spielt auf den besten Durchschnitt",
    "odds_columns": "Spieler,Sieg,erwartet,Std.-Abw.",
    "odds_tie": "  gleichauf vorn: {tie}",
    "odds_cards": "Zettel:",
    "odds_card": "  {name}: {card}",
    "chances_title": "{variant}, Ziel {target} oder mehr:",
    "chances_best": "  bestes Spiel auf das Ziel erreicht es mit Wahrscheinlichkeit {p:.6f} ({p:.2%})",
    "chances_mean": "  Spiel auf den höchsten erwarteten Endstand: {p:.6f} ({p:.2%})",
    "target_start": "Ziel {target}: erreicht mit Wahrscheinlichkeit {p:.2%} vom Beginn dieser Runde an",
    "target_best": "Am besten für das Ziel: {text}  -> erreicht {target} mit Wahrscheinlichkeit {p:.4%}",
    "target_best_then": "Am besten für das Ziel: {text}, dann {then}  -> erreicht {target} mit Wahrscheinlichkeit {p:.4%}",
    "target_label": "P(>= {target})",
    "opponent_card": "Gegner: {card} ({points} Punkte), erwartet {mean:.1f}",
    "opponent_start": "P(Sieg) {p:.2%} vom Beginn dieser Runde an (Gleichstand ist kein Sieg)",
    "opponent_best": "Am besten zum Sieg: {text}  -> schlägt den Gegner mit Wahrscheinlichkeit {p:.4%}",
    "opponent_best_then": "Am besten zum Sieg: {text}, dann {then}  -> schlägt den Gegner mit Wahrscheinlichkeit {p:.4%}",
    "opponent_label": "P(Sieg)",
    "chance_columns": "Möglichkeit,erwartet",
    "err_target_opponent": "--target und --opponent gehen nicht zusammen: entweder auf eine Punktzahl oder gegen einen Zettel spielen",
}
