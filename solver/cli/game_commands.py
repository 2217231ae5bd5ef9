"""`kniffel play` and `kniffel review`: a whole game at the table, and what it cost afterwards."""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path

import click

from ..errors import KniffelError
from ..i18n.texts import t, variant_title
from ..rules.presets import find_variant
from ..rules.variant import RuleError
from ..store.files import check_writable_file
from .base import (
    DEFAULT_GAME_FILE,
    _advisor,
    _settings,
    _speak,
    _speak_guess,
    cli,
    get_target_table,
    lang_option,
    require_input,
)
from .settings import _variant_or_default


@cli.command()
@click.argument("variant_name", metavar="[VARIANT]", required=False)
@click.option("--roll-for-me", is_flag=True)
@click.option("--seed", type=int, default=None)
@click.option(
    "--save",
    "save_path",
    type=click.Path(dir_okay=False),
    default=None,
)
@click.option(
    "--resume",
    "resume_path",
    type=click.Path(dir_okay=False),
    default=None,
)
@click.option("--force", is_flag=True)
@click.option("--keep-one", is_flag=True)
@click.option("--players", default=None)
@click.option(
    "--advice",
    type=click.Choice(["expected", "win"]),
    default="expected",
)
@click.option("--no-odds", is_flag=True)
@lang_option
@click.pass_context
def play(ctx, variant_name, roll_for_me, seed, save_path, resume_path, force, keep_one, players, advice, no_odds):
    """Play a whole game with advice after every roll (type 'help' at any prompt)."""
    from ..game.play import PlayLoop
    from ..game.record import Game
    from ..game.table_game import TableGame, parse_players
    from ..i18n.texts import language

    # the variant's language from the first word: a resumed game's file then says its own (_load_game), but a
    # file that cannot be read at all is refused in the language of the game named (or the default game)
    _speak(ctx, find_variant(_variant_or_default(variant_name), keep_one))
    for option, path in (("--save", save_path), ("--resume", resume_path)):
        if path == "":  # not "no option": that would quietly take the default file or start a new game
            raise KniffelError(t("option_empty_path", option=option))
    names = parse_players(players) if players is not None else None  # bad names: one line, before any work
    game: Game | TableGame
    if resume_path:
        game = _load_game(ctx, resume_path)
        saved = game.names if isinstance(game, TableGame) else None
        if names is not None and names != saved:
            who = ", ".join(saved) if saved else t("play_one_player")
            raise RuleError(t("play_players_fixed", path=resume_path, who=who))
        named = find_variant(_variant_or_default(variant_name), keep_one)
        if (variant_name is not None or keep_one) and named != game.variant:  # --keep-one alone: kniffel-keep-one
            raise RuleError(t("play_resume_variant", path=resume_path, variant=game.variant.name, name=named.name))
        if seed is not None and seed != game.seed:
            raise RuleError(t("play_resume_seed", path=resume_path, seed=game.seed))
        if roll_for_me:
            game.roll_for_me = True
    else:
        variant = find_variant(_variant_or_default(variant_name), keep_one)
        if seed is not None and not roll_for_me:  # the player types the dice: a seed would choose nothing
            raise RuleError(t("play_seed_alone"))
        if names is None:
            game = Game(variant, seed=seed, roll_for_me=roll_for_me)
        else:  # a table rolling for itself gets a seed of its own, so that --resume rolls on the same dice
            table_seed = secrets.randbelow(2**31) if seed is None and roll_for_me else seed
            game = TableGame(variant, names, seed=table_seed, roll_for_me=roll_for_me)
    _speak(ctx, game.variant, game.lang)
    require_input()  # before the game file is written
    if not isinstance(game, TableGame) and (advice != "expected" or no_odds):
        raise RuleError(t("play_advice_alone"))
    game.lang = language()  # saved with the game: a resumed game speaks it again (unless --lang says otherwise)
    target = Path(save_path or resume_path or DEFAULT_GAME_FILE)
    _check_game_target(target, resume_path, force)
    settings = _settings(ctx)
    if isinstance(game, TableGame):
        from ..game.table_play import TablePlayLoop

        target_table = None
        if advice == "win":  # Kniffel 7: no table, the win play is computed from each card (ordered_win.py)
            target_table = get_target_table(game.variant, settings) if game.variant.identical_dice else "on demand"
        advisor = _advisor(game.variant, settings)
        TablePlayLoop(game, advisor, target, odds=not no_odds, target_table=target_table).run()
        return
    PlayLoop(game, _advisor(game.variant, settings), target).run()


def _load_game(ctx, path: str):
    """A saved game, validated completely (by replaying every event); its refusal in its players' language."""
    from ..game.record import read_record, record_language
    from ..game.table_game import game_from_record

    data = read_record(Path(path))
    _speak_guess(ctx, record_language(data))
    return game_from_record(data, t("game_where_file", path=path))


def _check_game_target(target: Path, resume_path: str | None, force: bool) -> None:
    """A game is saved only where nothing would be lost: a new file, the game being resumed, or --force."""
    check_writable_file(target, t("game_file_word"))
    if not target.exists() or force:
        return
    if resume_path and os.path.samefile(target, resume_path):
        return
    if _is_game_file(target):  # a game: continuing it is what was meant far more often than losing it
        raise KniffelError(t("play_save_game_exists", path=target))
    raise KniffelError(t("play_save_exists", path=target))


def _is_game_file(path: Path) -> bool:
    """Does `path` hold a game record (of one player or a table), even one that --resume would refuse?"""
    from ..game.record import FORMAT, read_record

    try:
        data = read_record(path)
    except (KniffelError, OSError):  # unreadable or no JSON: not a game to point --resume at
        return False
    return isinstance(data, dict) and data.get("format") == FORMAT


@cli.command()
@click.argument("game_file", metavar="GAME.json", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True)
@lang_option
@click.pass_context
def review(ctx, game_file, as_json):
    """Every decision of a saved game against the optimal one, and what it cost (at a table: every player's)."""
    from ..game.review import decisions
    from ..game.table_game import TableGame
    from ..i18n.texts import die_name

    if game_file == "":  # not the current folder, which Path('') would name
        raise KniffelError(t("option_empty_path", option="GAME.json"))
    loaded = _load_game(ctx, game_file)
    _speak(ctx, loaded.variant, loaded.lang)
    advisor = _advisor(loaded.variant, _settings(ctx))
    players = (
        list(zip(loaded.names, loaded.games)) if isinstance(loaded, TableGame) else [(None, loaded)]
    )  # a table: each player's own game, replayed and valued alone
    reviewed = [(name, game, decisions(game, advisor)) for name, game in players]
    if as_json:
        one = [_review_json(game, steps) for _, game, steps in reviewed]
        if isinstance(loaded, TableGame):
            data = {"variant": loaded.variant.name, "players": [{"name": n, **d} for n, d in zip(loaded.names, one)]}
        else:
            data = {"variant": loaded.variant.name, **one[0]}
        click.echo(json.dumps(data, indent=2))
        return
    v = loaded.variant
    click.echo(t("review_title", path=game_file, title=variant_title(v)))
    if v.die_names:  # faces in die order keep each line within 100 columns; the order is said once
        click.echo(t("review_dice_order", names=" ".join(die_name(v, i) for i in range(v.n_dice))))
    for name, game, steps in reviewed:
        if name is not None:
            click.echo("\n" + t("review_player", name=name))
        _review_text(game, steps)


def _review_json(game, steps) -> dict:
    """One player's review as `review --json` prints it."""
    total = sum(d.loss for d in steps)
    worst = sorted(steps, key=lambda d: -d.loss)[:3]
    card = game.point().card
    return {
        "finished": card.full,
        "score": card.points,
        "decisions": [
            {
                "turn": d.turn,
                "roll": d.roll,
                "dice": list(d.dice),
                "chosen": d.chosen.text,
                "chosen_expected": d.chosen.expected_final_score,
                "best": d.best.text,
                "best_expected": d.best.expected_final_score,
                "loss": d.loss,
            }
            for d in steps
        ],
        "total_loss": total,
        "mean_loss": total / len(steps) if steps else 0.0,
        "costliest": [steps.index(d) for d in worst if d.loss > 0],
    }


def _verdict(d) -> str:
    from ..advice.explain import loss_text

    return t("best") if d.loss == 0 and _same_move(d.chosen, d.best) else loss_text(d.loss)


def _same_move(a, b) -> bool:
    return (a.kind, a.keep, a.keep_dice, a.box) == (b.kind, b.keep, b.keep_dice, b.box)


def _review_text(game, steps) -> None:
    """One player's review: every decision, the total, the costliest three, the score."""
    from ..advice.explain import dice_text, faces_text, fit, loss_text, option_text, signed

    v = game.variant
    card = game.point().card
    total = sum(d.loss for d in steps)
    worst = sorted(steps, key=lambda d: -d.loss)[:3]
    # 'tie' where a move is as good as the best; each column as wide as its header and its widest entry
    rows = [(d, faces_text(d.dice), option_text(v, d.chosen, d.dice), _verdict(d)) for d in steps]
    dice_w = max([len(r[1]) for r in rows] + [6])
    text_w = max([len(r[2]) for r in rows] + [8])
    turn, roll, dice, chosen, loss = t("review_columns").split(",")
    turn_w, roll_w, loss_w = max(5, len(turn)), max(4, len(roll)), max([7, len(loss)] + [len(r[3]) for r in rows])
    click.echo(f"{turn:>{turn_w}} {roll:>{roll_w}}  {dice:<{dice_w}}  {chosen:<{text_w}}  {loss:>{loss_w}}")
    pad = " " * (turn_w + 1 + roll_w + 2 + dice_w + 2)
    for d, dice_shown, text, verdict in rows:
        click.echo(
            f"{d.turn:>{turn_w}} {d.roll:>{roll_w}}  {dice_shown:<{dice_w}}  {text:<{text_w}}  {verdict:>{loss_w}}"
        )
        if d.loss > 0:
            best = option_text(v, d.best, d.dice)
            click.echo(t("review_best", pad=pad, text=best, expected=d.best.expected_final_score))
    mean = signed(total / len(steps) if steps else 0.0)
    click.echo(fit(t("review_total", loss=signed(total), count=len(steps), mean=mean)))
    costly = [d for d in worst if d.loss > 0]
    if costly:
        click.echo(t("review_costliest"))
        for d in costly:
            chosen, best = option_text(v, d.chosen, d.dice), option_text(v, d.best, d.dice)
            row = t(
                "review_costly_row",
                turn=d.turn,
                roll=d.roll,
                dice=dice_text(v, d.dice),
                chosen=chosen,
                best=best,
                loss=loss_text(d.loss),
            )
            click.echo(fit(row, "      "))
    click.echo(t("review_score", points=card.points) + ("" if card.full else t("review_unfinished")))
