# ruff: noqa: E501  (messages are data: one line each reads best)
"""The two catalogues of solver/i18n/texts.py: message id -> format string. Both hold the same ids with the
same {fields} (tests/test_texts.py checks it)."""

EN = {
    # -- words --------------------------------------------------------------------------------
    "or": "or",
    "numbers": "no,one,two,three,four,five,six,seven",
    "die": "die",
    "dice": "dice",
    "extra": "extra",
    "joker_bonus_name": "{box} bonus",
    "tie": "tie",
    "best": "best",
    "empty": "empty",
    "did_you_mean": " Did you mean {words}?",
    # -- prompt words (comma-separated; English words work in both languages) ------------------
    "words_help": "help,h,?",
    "words_card": "card,c,sheet",
    "words_undo": "undo,u",
    "words_quit": "quit,q,exit",
    "words_options": "options,o",
    "words_stop": "all,stop,a",
    "words_none": "none,reroll,-,0",
    "words_keep": "keep,k",
    "words_box": "box",
    # -- play ---------------------------------------------------------------------------------
    "play_start": "{title}.\nThe game is saved to {path} after every step; type 'help' for commands.",
    "play_help": (
        "Commands at any prompt:\n"
        "  (Enter)          follow the advice\n"
        "  33 / keep 3 3    keep dice showing these faces, roll the others   (after roll 1 or 2)\n"
        "{ordered_help}"
        "  all / stop       keep every die and choose a box now\n"
        "  none             reroll every die\n"
        "  box NAME         score NAME now (name or number, e.g. 'box chance', 'box 13')\n"
        "  NAME             at the box prompt: the box to score\n"
        "  options          every option with its expected final score\n"
        "  card             the score sheet\n"
        "  undo             step back one decision\n"
        "  help             this text\n"
        "  quit             stop (the game stays saved; continue with --resume FILE)\n"
        "Dice: all of them ('33516'), or after a keep only the rerolled ones."
    ),
    "play_help_ordered": (
        "  blue black       Kniffel 7: the dice to keep by colour, or by position: #1 #6\n"
        "  b=2 g=5 ...      Kniffel 7: dice by colour code: b g p y r k w (blue ... white)\n"
    ),
    "turn_header": "== Turn {turn} of {turns} ==   ({points} points, expected final score {expected:.2f})",
    "prompt_roll_all": "Roll {roll}, all {count} dice{order}:",
    "prompt_roll_rest": "Roll {roll}, kept {kept} — the other {count} {dice}{order}:",
    "prompt_roll_rest_one": "Roll {roll}, kept {kept} — the other die{order}:",
    "prompt_order": " ({names})",
    "rolled": "Roll {roll}: {dice}",
    "echo_dice": "  = {dice}",
    "advice": "Advice: {text}  (expected {expected:.2f})",
    "advice_then": "Advice: {text}, then {then}  (expected {expected:.2f})",
    "advice_or": "   or: {text}  ({expected:.2f}, {loss})",
    "option_row": "  {text}  ({expected:.2f}, {loss})",
    "prompt_keep": "Keep which dice? (Enter = advice)",
    "prompt_box": "Which box? (Enter = advice)",
    "kept_echo": "  kept {kept}; rerolling {count} {dice}",
    "kept_none": "  rerolling all {count} dice",
    "scored": "  -> {text}",
    "undone": "  undone",
    "nothing_to_undo": "  nothing to undo",
    "where_roll": "Turn {turn} of {turns}, roll {roll}: {dice}",
    "where_card": "Card: {card} ({points} points)",
    "stopped": "Stopped. Continue with: kniffel play --resume {path}",
    "play_interrupted": "Saved in {path}. Continue with: kniffel play --resume {path}",
    "play_interrupted_new": "Nothing saved yet: the game had no step.",
    "game_over": "== Game over ==",
    "final_score": "Final score: {points}",
    "game_loss": "Against optimal play: {loss} expected points over {count} decisions.",
    "review_hint": "Every decision and what it cost: kniffel review {path}",
    # -- score sheet --------------------------------------------------------------------------
    "sheet_upper_total": "upper total",
    "sheet_bonus": "bonus {threshold}+",
    "sheet_total": "total",
    "sheet_expected": "  expected final score: {expected:.2f}",
    # -- option texts -------------------------------------------------------------------------
    "opt_keep_all": "keep all: {faces} (stop rolling)",
    "opt_keep_all_named": "keep all (stop rolling)",
    "opt_reroll_all": "reroll all {count} dice",
    "opt_keep": "keep {faces}, reroll {count} {dice}",
    "opt_keep_named": "keep {dice}; reroll the other {count}",
    "opt_reroll_named": "reroll {dice}; keep the other {count}",
    "opt_score": "score {box} for {points}",
    "opt_scratch": "scratch {box} (0)",
    "opt_extra": ", +{extra} {name}",
    # -- the rule behind an entry -------------------------------------------------------------
    "rule_box_max": "Rule: {box} holds {held}: +{extra} {name}; the roll may go into any free box, at its maximum.",
    "rule_fixed": "Rule: {box} holds {held}, so six equal dice put {points} Super-Points into any free box.",
    "rule_no_joker_scratched": "Rule: {box} was scratched (0), so this roll earns nothing extra and scores normally.",
    "rule_no_joker": "Rule: {box} holds {held}: +{extra} {name}, but the roll scores normally (no joker).",
    "rule_forced_upper": "Forced joker: a further {box} must go into {upper} while that box is free.",
    "rule_forced_lower": (
        "Forced joker: {upper} is filled, so any free lower box may take it (Full House 25, Small Straight 30, "
        "Large Straight 40)."
    ),
    "rule_forced_scratch": "Forced joker: {upper} and every lower box are filled, so an upper box is scratched.",
    "rule_free": "Joker: with {box} and {upper} filled, Full House, Small Straight and Large Straight pay in full.",
    "rule_bonus": " {box} holds {held}: +{extra} {name}.",
    # -- refusals -----------------------------------------------------------------------------
    "refuse_filled": "{box} is already filled ({points}).",
    "refuse_restricted": (
        "{box} does not fit this roll, and the basic rules allow a 0 only when the roll fits no free box "
        "(it fits {fits}). Free scratching: play kniffel-meister."
    ),
    "refuse_forced": "Forced joker: a further {joker} must go into {upper} while it is free.",
    "refuse_other": "{box} cannot be filled with this roll; allowed: {allowed}.",
    # -- input errors -------------------------------------------------------------------------
    "err_unknown_box": "unknown box {name!r} for {variant}.{suggest} Boxes: {boxes}",
    "err_box_position": "box position {pos} is out of range: {variant} has boxes 1-{count}",
    "err_unknown_variant": "unknown variant {name!r}.{suggest} The known variants: {variants}",
    "err_unknown_die": "{name!r} is not a die of {variant}.{suggest} Dice: {names}, or by position #1-#{count}",
    "err_ambiguous_die": "{name!r} could be {names}: write more of the name",
    "err_unknown_command": "{text!r} is neither a command nor dice to keep.{suggest} 'help' lists the commands",
    "err_keep_faces": "cannot keep {faces}: the dice are {dice}",
    "err_keep_position": "#{pos}: the dice are #1-#{count}",
    "err_roll_count": "{given} dice given; type the {count} rerolled dice{order} or all {total}",
    "err_roll_count_one": "{given} dice given; type the rerolled die{order} or all {total}",
    "err_roll_kept": "kept, not rolled again: {names}; type the rerolled dice{order} or all {total}",
    "err_roll_count_all": "{given} dice given; type all {total} dice{order}, e.g. {example}",
    "err_roll_missing": "{given} of {total} dice given; missing: {names}",
    "err_roll_face": "die {die} has no face {face}",
    "err_roll_word": "{word!r} is not a die face; type the dice as numbers, e.g. {example}",
    "err_roll_twice": "die {die} given twice",
    "err_advise_dice": "give the dice: kniffel advise {variant} 33516 (or --dice 33516)",
    "err_advise_dice_twice": "dice given twice ({a!r} and --dice {b!r}): give them once",
    # -- advise / review / variants -----------------------------------------------------------
    "pending_bonus": "The card's latest {bonus} ({points}) still waits for its box: it is counted once, when that box is filled.",
    "advise_header": "{variant}, roll {roll}: {dice}   (card {card}: {points} points)",
    "advise_best": "Best: {text}  -> expected final score {expected:.2f}",
    "advise_best_then": "Best: {text}, then {then}  -> expected final score {expected:.2f}",
    "advise_columns": "option,expected,loss",
    "advise_std": "std",
    "advise_more": "  ... {count} more (--all shows every option)",
    "review_title": "Review of {path}: {title}",
    "review_columns": "turn,roll,dice,chosen,loss",
    "review_dice_order": "Dice in the order {names}",
    "review_total": "Against optimal play: {loss} expected points over {count} decisions (mean {mean} per decision)",
    "review_best": "{pad}best: {text} ({expected:.2f})",
    "review_costliest": "Costliest decisions:",
    "review_costly_row": "  turn {turn}, roll {roll} ({dice}): {chosen} instead of {best}: {loss}",
    "review_score": "Score: {points}",
    "review_player": "== {name} ==",
    "review_unfinished": " (game not finished)",
    "variants_row": "{name:<20} {title} — {dice} dice, {start}{options}",
    "variants_start": "start value {value:.4f}",
    "variants_no_table": "no table yet",
    "variants_options": " (options: {options})",
    # -- play --players (a table of 2-6) --------------------------------------------------------
    "table_players": "Players, in this order: {names}.",
    "table_turn": ">>> {name}'s turn <<<",
    "table_standings": "Standings:",
    "table_row": "{mark} {name:<{width}} {points:>4} points   expects {expected:6.1f}   wins {win:6.1%}",
    "table_row_plain": "{mark} {name:<{width}} {points:>4} points   expects {expected:6.1f}",
    "table_tie": "  a tie for first: {tie:.1%}",
    "table_no_odds": "  (no chances of winning: {reason})",
    "table_odds_later": "the exact distributions of {variant} from these cards take about {minutes} min; they come later in the game",
    "table_win_target": "  To win: {target} points beat {leader}; the first advice reaches them with probability {p:.2%}",
    "table_win_opponent": "  To win against the leader {leader} (expects {expected:.1f})",
    "table_win_none": "  (no win advice here: {reason}; the advice is for the highest expected score)",
    "table_final_row": "  {rank}. {name:<{width}} {points:>4}   (decisions cost {loss} points of expected score)",
    "table_winner": "{names} wins!",
    "table_shared": "A tie for first: {names}.",
    # -- the presets' titles (solver/rules/presets.py holds the English ones) ----------------------
    "title_kniffel": "Kniffel (Schmidt Spiele, basic rules)",
    "title_kniffel-keep-one": "Kniffel, house rule: keep a die before the third roll",
    "title_kniffel-meister": "Kniffel with the Meisterschaftsregel",
    "title_yahtzee": "Yahtzee (Hasbro official rules, forced joker)",
    "title_yahtzee-free-joker": "Yahtzee, free-choice joker (1999 solver convention)",
    "title_yatzy": "Scandinavian Yatzy",
    "title_yatzy6": "Yatzy with six dice",
    "title_kniffel7": "Kniffel 7 (seven different dice)",
    "option_house rule: --keep-one": "house rule: --keep-one",
}

DE = {
    "or": "oder",
    "numbers": "keinen,einen,zwei,drei,vier,fünf,sechs,sieben",
    "die": "Würfel",
    "dice": "Würfel",
    "extra": "Extrapunkte",
    "joker_bonus_name": "{box}-Bonus",
    "tie": "gleich",
    "best": "beste",
    "empty": "leer",
    "did_you_mean": " Meinten Sie {words}?",
    "words_help": "hilfe,help,h,?",
    "words_card": "zettel,block,karte,card,c,sheet",
    "words_undo": "zurück,zurueck,undo,u",
    "words_quit": "ende,beenden,quit,q,exit",
    "words_options": "optionen,options,o",
    "words_stop": "alle,stopp,all,stop,a",
    "words_none": "keine,keinen,neu,none,reroll,-,0",
    "words_keep": "behalte,behalten,halte,keep,k",
    "words_box": "feld,box",
    "play_start": "{title}.\nDas Spiel wird nach jedem Schritt in {path} gespeichert; 'hilfe' zeigt die Befehle.",
    "play_help": (
        "Befehle an jeder Eingabe:\n"
        "  (Enter)             dem Rat folgen\n"
        "  33 / behalte 3 3    diese Augen behalten, die anderen neu würfeln   (nach Wurf 1 oder 2)\n"
        "{ordered_help}"
        "  alle / stopp        alle Würfel behalten und jetzt ein Feld wählen\n"
        "  keine               alle Würfel neu würfeln\n"
        "  feld NAME           jetzt NAME eintragen (Name oder Nummer, z. B. 'feld chance', 'feld 13')\n"
        "  NAME                bei der Feldfrage: das Feld zum Eintragen\n"
        "  optionen            jede Möglichkeit mit ihrem erwarteten Endstand\n"
        "  zettel              der Spielzettel\n"
        "  zurück              eine Entscheidung zurücknehmen\n"
        "  hilfe               dieser Text\n"
        "  ende                aufhören (das Spiel bleibt gespeichert; weiter mit --resume DATEI)\n"
        "Würfel: alle ('33516'), oder nach dem Behalten nur die neu gewürfelten."
    ),
    "play_help_ordered": (
        "  blau schwarz        Kniffel 7: die Würfel nach Farbe, oder nach Platz: #1 #6\n"
        "  b=2 gr=5 ...        Kniffel 7: Würfel nach Farbcode: b gr l ge r s w (blau ... weiß)\n"
    ),
    "turn_header": "== Runde {turn} von {turns} ==   ({points} Punkte, erwarteter Endstand {expected:.2f})",
    "prompt_roll_all": "Wurf {roll}, alle {count} Würfel{order}:",
    "prompt_roll_rest": "Wurf {roll}, behalten {kept} — die anderen {count} {dice}{order}:",
    "prompt_roll_rest_one": "Wurf {roll}, behalten {kept} — der andere Würfel{order}:",
    "prompt_order": " ({names})",
    "rolled": "Wurf {roll}: {dice}",
    "echo_dice": "  = {dice}",
    "advice": "Rat: {text}  (erwartet {expected:.2f})",
    "advice_then": "Rat: {text}, dann {then}  (erwartet {expected:.2f})",
    "advice_or": " oder: {text}  ({expected:.2f}, {loss})",
    "option_row": "  {text}  ({expected:.2f}, {loss})",
    "prompt_keep": "Welche Würfel behalten? (Enter = Rat)",
    "prompt_box": "Welches Feld? (Enter = Rat)",
    "kept_echo": "  behalten: {kept}; {count} {dice} neu",
    "kept_none": "  alle {count} Würfel neu",
    "scored": "  -> {text}",
    "undone": "  zurückgenommen",
    "nothing_to_undo": "  nichts zurückzunehmen",
    "where_roll": "Runde {turn} von {turns}, Wurf {roll}: {dice}",
    "where_card": "Zettel: {card} ({points} Punkte)",
    "stopped": "Angehalten. Weiter mit: kniffel play --resume {path}",
    "play_interrupted": "Gespeichert in {path}. Weiter mit: kniffel play --resume {path}",
    "play_interrupted_new": "Noch nichts gespeichert: das Spiel hatte noch keinen Schritt.",
    "game_over": "== Spielende ==",
    "final_score": "Endstand: {points}",
    "game_loss": "Gegenüber dem besten Spiel: {loss} erwartete Punkte bei {count} Entscheidungen.",
    "review_hint": "Jede Entscheidung und was sie kostete: kniffel review {path}",
    "sheet_upper_total": "oben gesamt",
    "sheet_bonus": "Bonus ab {threshold}",
    "sheet_total": "gesamt",
    "sheet_expected": "  erwarteter Endstand: {expected:.2f}",
    "opt_keep_all": "alle behalten: {faces} (nicht mehr würfeln)",
    "opt_keep_all_named": "alle behalten (nicht mehr würfeln)",
    "opt_reroll_all": "alle {count} Würfel neu würfeln",
    "opt_keep": "behalte {faces}, {count} {dice} neu würfeln",
    "opt_keep_named": "behalte {dice}; die anderen {count} neu",
    "opt_reroll_named": "{dice} neu; die anderen {count} behalten",
    "opt_score": "{box} für {points} eintragen",
    "opt_scratch": "{box} streichen (0)",
    "opt_extra": ", +{extra} {name}",
    "rule_box_max": "Regel: {box} hat {held}: +{extra} {name}; der Wurf darf in jedes freie Feld, zum Höchstwert.",
    "rule_fixed": "Regel: {box} hat {held}, also bringen sechs gleiche Würfel {points} Super-Punkte in ein freies Feld.",
    "rule_no_joker_scratched": "Regel: {box} wurde gestrichen (0), also zählt dieser Wurf normal, ohne Extrapunkte.",
    "rule_no_joker": "Regel: {box} hat {held}: +{extra} {name}, aber der Wurf zählt normal (kein Joker).",
    "rule_forced_upper": "Pflicht-Joker: ein weiterer {box} muss in {upper}, solange dieses Feld frei ist.",
    "rule_forced_lower": (
        "Pflicht-Joker: {upper} ist belegt, also darf er in jedes freie untere Feld (Full House 25, "
        "Kleine Straße 30, Große Straße 40)."
    ),
    "rule_forced_scratch": "Pflicht-Joker: {upper} und alle unteren Felder sind belegt, also wird oben gestrichen.",
    "rule_free": "Joker: {box} und {upper} sind belegt, also zählen Full House und Straßen voll.",
    "rule_bonus": " {box} hat {held}: +{extra} {name}.",
    "refuse_filled": "{box} ist schon belegt ({points}).",
    "refuse_restricted": (
        "{box} passt nicht, und nach den Grundregeln darf man nur streichen, wenn der Wurf in kein freies Feld "
        "passt (er passt in {fits}). Freies Streichen: kniffel-meister."
    ),
    "refuse_forced": "Pflicht-Joker: ein weiterer {joker} muss in {upper}, solange es frei ist.",
    "refuse_other": "{box} geht mit diesem Wurf nicht; möglich: {allowed}.",
    "err_unknown_box": "unbekanntes Feld {name!r} für {variant}.{suggest} Felder: {boxes}",
    "err_box_position": "Feld Nummer {pos} gibt es nicht: {variant} hat die Felder 1-{count}",
    "err_unknown_variant": "unbekannte Variante {name!r}.{suggest} Varianten: {variants}",
    "err_unknown_die": "{name!r} ist kein Würfel von {variant}.{suggest} Würfel: {names}, oder nach Platz #1-#{count}",
    "err_ambiguous_die": "{name!r} kann {names} sein: bitte mehr vom Namen schreiben",
    "err_unknown_command": "{text!r} ist weder ein Befehl noch Würfel zum Behalten.{suggest} 'hilfe' zeigt die Befehle",
    "err_keep_faces": "{faces} kann nicht behalten werden: die Würfel zeigen {dice}",
    "err_keep_position": "#{pos}: die Würfel sind #1-#{count}",
    "err_roll_count": "{given} Würfel angegeben; bitte die {count} neu gewürfelten{order} oder alle {total} eingeben",
    "err_roll_count_one": "{given} Würfel angegeben; bitte den neu gewürfelten{order} oder alle {total} eingeben",
    "err_roll_kept": "behalten, nicht neu gewürfelt: {names}; bitte die neu gewürfelten{order} oder alle {total} eingeben",
    "err_roll_count_all": "{given} Würfel angegeben; bitte alle {total} Würfel{order} eingeben, z. B. {example}",
    "err_roll_missing": "{given} von {total} Würfeln angegeben; es fehlen: {names}",
    "err_roll_face": "Würfel {die} hat keine {face}",
    "err_roll_word": "{word!r} ist keine Augenzahl; Würfel als Zahlen eingeben, z. B. {example}",
    "err_roll_twice": "Würfel {die} zweimal angegeben",
    "err_advise_dice": "bitte die Würfel angeben: kniffel advise {variant} 33516 (oder --dice 33516)",
    "err_advise_dice_twice": "Würfel doppelt angegeben ({a!r} und --dice {b!r}): bitte nur einmal",
    "pending_bonus": "Der letzte {bonus} auf dem Zettel ({points}) wartet noch auf sein Feld: er zählt einmal, wenn das Feld eingetragen wird.",
    "advise_header": "{variant}, Wurf {roll}: {dice}   (Zettel {card}: {points} Punkte)",
    "advise_best": "Am besten: {text}  -> erwarteter Endstand {expected:.2f}",
    "advise_best_then": "Am besten: {text}, dann {then}  -> erwarteter Endstand {expected:.2f}",
    "advise_columns": "Möglichkeit,erwartet,Verlust",
    "advise_std": "Std.-Abw.",
    "advise_more": "  ... {count} weitere (--all zeigt alle)",
    "review_title": "Auswertung von {path}: {title}",
    "review_columns": "Runde,Wurf,Würfel,gewählt,Verlust",
    "review_dice_order": "Würfel in der Reihenfolge {names}",
    "review_total": "Gegenüber dem besten Spiel: {loss} erwartete Punkte bei {count} Entscheidungen ({mean} je Entscheidung)",
    "review_best": "{pad}besser: {text} ({expected:.2f})",
    "review_costliest": "Teuerste Entscheidungen:",
    "review_costly_row": "  Runde {turn}, Wurf {roll} ({dice}): {chosen} statt {best}: {loss}",
    "review_score": "Punkte: {points}",
    "review_player": "== {name} ==",
    "review_unfinished": " (Spiel nicht beendet)",
    "variants_row": "{name:<20} {title} — {dice} Würfel, {start}{options}",
    "variants_start": "Startwert {value:.4f}",
    "variants_no_table": "noch keine Tabelle",
    "variants_options": " (Optionen: {options})",
    "table_players": "Spieler, in dieser Reihenfolge: {names}.",
    "table_turn": ">>> {name} ist dran <<<",
    "table_standings": "Zwischenstand:",
    "table_row": "{mark} {name:<{width}} {points:>4} Punkte   erwartet {expected:6.1f}   gewinnt {win:6.1%}",
    "table_row_plain": "{mark} {name:<{width}} {points:>4} Punkte   erwartet {expected:6.1f}",
    "table_tie": "  Gleichstand an der Spitze: {tie:.1%}",
    "table_no_odds": "  (keine Gewinnchancen: {reason})",
    "table_odds_later": "die genauen Verteilungen von {variant} von diesen Zetteln aus brauchen etwa {minutes} min; sie kommen später im Spiel",
    "table_win_target": "  Zum Sieg: {target} Punkte schlagen {leader}; der erste Rat erreicht sie mit Wahrscheinlichkeit {p:.2%}",
    "table_win_opponent": "  Zum Sieg gegen {leader} (führt, erwartet {expected:.1f})",
    "table_win_none": "  (hier kein Rat zum Sieg: {reason}; der Rat gilt dem höchsten erwarteten Endstand)",
    "table_final_row": "  {rank}. {name:<{width}} {points:>4}   (Entscheidungen kosteten {loss} Punkte Erwartungswert)",
    "table_winner": "{names} gewinnt!",
    "table_shared": "Gleichstand an der Spitze: {names}.",
    "title_kniffel": "Kniffel (Schmidt Spiele, Grundregeln)",
    "title_kniffel-keep-one": "Kniffel, Hausregel: vor dem dritten Wurf einen Würfel behalten",
    "title_kniffel-meister": "Kniffel mit der Meisterschaftsregel",
    "title_yahtzee": "Yahtzee (offizielle Hasbro-Regeln, Pflicht-Joker)",
    "title_yahtzee-free-joker": "Yahtzee, Joker frei wählbar (Konvention des Lösers von 1999)",
    "title_yatzy": "Skandinavisches Yatzy",
    "title_yatzy6": "Yatzy mit sechs Würfeln",
    "title_kniffel7": "Kniffel 7 (sieben verschiedene Würfel)",
    "option_house rule: --keep-one": "Hausregel: --keep-one",
}
