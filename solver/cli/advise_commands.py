"""`kniffel advise` (for the mean, --target, --opponent) and `kniffel chances`."""

from __future__ import annotations

import json

import click
import numpy as np

from ..advice.card_checks import check_bonus_roll
from ..advice.cards import at_turn_start, parse_card, without_pending_bonus
from ..game.dice_input import parse_dice
from ..i18n.texts import bonus_name, number, t
from ..rules.presets import PRESETS, find_variant
from ..rules.variant import RuleError
from . import target_compile, waits
from .base import (
    _advisor,
    _settings,
    _speak,
    _table,
    cli,
    computing_notice,
    get_table,
    get_target_table,
    lang_option,
    quick_answer_from_disk,
)
from .ordered_answers import (
    beyond_reach,
    beyond_reach_opponent,
    chances_ordered,
    check_job_dir,
    found_in_job,
    job_dir_option,
)
from .settings import _variant_or_default


@cli.command()
@click.argument("variant_name", metavar="VARIANT")
@click.option("--card", default="")
@click.option("--target", type=int, required=True)
@click.option("--keep-one", is_flag=True)
@click.option("--json", "as_json", is_flag=True)
@job_dir_option
@lang_option
@click.pass_context
def chances(ctx, variant_name, card, target, keep_one, as_json):
    """The highest probability of finishing with at least TARGET points, from a card at the start of a turn."""
    variant = find_variant(variant_name, keep_one)
    _speak(ctx, variant)
    check_job_dir(ctx, variant, target)
    if not variant.identical_dice:
        return chances_ordered(ctx, variant, card, target, as_json)
    _quick_target(ctx, variant, card, next_layer=False, expected_play=True)
    from ..chances import targets
    from ..chances.win import probability_expected_play

    targets.target_engine(variant)  # Kniffel 7: one line, before any work
    parsed = at_turn_start(parse_card(variant, card))
    targets.check_target(variant, parsed, target)
    settings = _settings(ctx)
    target_compile.start(variant, settings.tables_dir)  # the target kernels compile beside the value table
    values, _ = get_table(variant, settings)
    table = get_target_table(variant, settings)
    result = targets.chances(
        variant,
        table,
        parsed,
        target,
        lambda c, t: probability_expected_play(variant, values, c, t, settings.tables_dir),
    )
    if as_json:
        click.echo(json.dumps(result.as_dict()))
        return
    from ..advice.explain import card_text, fit

    click.echo(t("chances_title", variant=variant.name, target=target))
    click.echo(fit(t("card_line", card=card_text(parsed), points=parsed.points, count=parsed.points)))
    click.echo(t("chances_best", p=result.probability))
    click.echo(t("chances_mean", p=result.probability_expected_play))


def _quick_target(ctx, variant, card_text: str, *, next_layer: bool, expected_play: bool) -> None:
    """A one-shot target answer that files alone give runs the kernels as plain Python (target_quick.py)."""
    from . import base

    if not base.ONE_SHOT:
        return
    from ..chances.target_quick import answers_from_disk
    from ..errors import KniffelError

    try:
        parsed = parse_card(variant, card_text)
        state = (without_pending_bonus(parsed) if next_layer else at_turn_start(parsed)).state  # as each counts it
    except KniffelError:
        return  # reported by the command itself
    if answers_from_disk(variant, _settings(ctx).tables_dir, state, next_layer=next_layer, expected_play=expected_play):
        from .. import numba_setup

        numba_setup.interpret()


def _option_rows(variant, options, top: int | None, dice=None) -> list[str]:
    from ..advice.explain import loss_text, option_text

    shown = options if top is None else options[:top]
    texts = [option_text(variant, o, dice) for o in shown]
    width = max(len(x) for x in texts)
    with_std = any(o.std is not None for o in shown)
    option, expected, loss = t("advise_columns").split(",")
    std_label = t("advise_std")
    std_w = max(6, len(std_label))
    spread = f"  {std_label:>{std_w}}" if with_std else ""
    rows = [f"  {'#':>3}  {option:<{width}}  {expected:>9}  {loss:>10}{spread}"]
    for i, (o, text) in enumerate(zip(shown, texts), 1):
        mark = t("best") if i == 1 else loss_text(o.loss)
        std = f"  {number(o.std, f'>{std_w}.2f')}" if with_std and o.std is not None else ""
        rows.append(f"  {i:>3}  {text:<{width}}  {number(o.expected_final_score, '>9.2f')}  {mark:>10}{std}")
    if len(shown) < len(options):
        rows.append(t("advise_more", count=len(options) - len(shown)))
    return rows


def _echo_chance_rows(variant, rolled, options, show_all: bool, label: str, chance) -> None:
    """The ranked options of `advise --target` / `--opponent`: a chance column, then the expected score."""
    from ..advice.explain import option_text

    shown = options if show_all else options[:10]
    texts = [option_text(variant, o.option, rolled) for o in shown]
    option, expected = t("chance_columns").split(",")
    width = max([len(x) for x in texts] + [len(option)])
    col = max(len(label), 9)
    click.echo(f"  {'#':>3}  {option:<{width}}  {label:>{col}}  {expected:>9}")
    for i, (o, text) in enumerate(zip(shown, texts), 1):
        score = number(o.option.expected_final_score, ">9.2f")
        click.echo(f"  {i:>3}  {text:<{width}}  {number(chance(o), f'>{col}.4%')}  {score}")
    if len(shown) < len(options):
        click.echo(t("advise_more", count=len(options) - len(shown)))


def _echo_header(variant, card, rolled, roll) -> None:
    """The first line of every advice: the variant, the roll, its dice and the card, wrapped at 100 columns."""
    from ..advice.explain import card_text, dice_text, fit

    header = t(
        "advise_header",
        variant=variant.name,
        roll=roll,
        dice=dice_text(variant, rolled),
        card=card_text(card),
        points=card.points,
        count=card.points,
    )
    click.echo(fit(header))


def _looks_like_dice(text: str) -> bool:
    """'33516', '3,3,5,1,6', 'blue=2,...': dice, not a variant name."""
    return text not in PRESETS and (text.replace(",", "").replace(" ", "").isdigit() or "=" in text)


@cli.command()
@click.argument("variant_name", metavar="[VARIANT]", required=False)
@click.argument("dice_arg", metavar="[DICE]", required=False)
@click.option("--card", default="")
@click.option("--dice", default=None)
@click.option("--roll", type=click.IntRange(1, 3), default=1, show_default=True)
@click.option("--box", "box_now", is_flag=True)
@click.option("--all", "show_all", is_flag=True)
@click.option("--keep-one", is_flag=True)
@click.option("--json", "as_json", is_flag=True)
@click.option("--target", type=int, default=None)
@click.option("--opponent", default=None)
@job_dir_option
@lang_option
@click.pass_context
def advise(ctx, variant_name, dice_arg, card, dice, roll, box_now, show_all, keep_one, as_json, target, opponent):
    """What to keep after this roll, or which box to fill (default variant: kniffel)."""
    from ..advice.explain import fit, joker_rule, option_text, tie_order

    if variant_name and dice_arg is None and _looks_like_dice(variant_name):
        variant_name, dice_arg = None, variant_name  # `advise 33516`: the default variant's dice
    variant = find_variant(_variant_or_default(variant_name), keep_one)
    _speak(ctx, variant)
    if dice_arg is not None and dice is not None:
        raise click.UsageError(t("err_advise_dice_twice", a=dice_arg, b=dice))
    dice = dice if dice is not None else dice_arg
    if dice is None:
        raise click.UsageError(t("err_advise_dice", variant=variant.name))
    if target is not None and opponent is not None:
        from ..chances.win import OpponentError

        raise OpponentError(t("err_target_opponent"))
    check_job_dir(ctx, variant, target)
    given = parse_card(variant, card)
    rolled = parse_dice(variant, dice)  # before any table is loaded or solved
    counted = without_pending_bonus(given)  # the card as the rules count it: a bonus is paid with its box
    check_bonus_roll(given, counted, rolled)
    if counted is not given and not as_json:
        click.echo(t("pending_bonus", bonus=bonus_name(variant), points=given.extra - counted.extra))
    if target is not None or opponent is not None:
        if opponent is None:
            _quick_target(ctx, variant, card, next_layer=True, expected_play=False)
        parsed = counted
        if opponent is not None:
            if _advise_opponent(ctx, variant, parsed, rolled, roll, box_now, show_all, as_json, opponent) is not False:
                return
        elif _advise_target(ctx, variant, parsed, rolled, roll, box_now, show_all, as_json, target) is not False:
            return
    quick_answer_from_disk(variant, _settings(ctx))
    table = _table(variant, _settings(ctx))
    if variant.identical_dice:
        waits.compiling("advice")
    advice = table.advise(card, dice, roll, box_now=box_now, spread=True)
    if as_json:
        beyond = ctx.meta.get("target_beyond")  # advise --target beyond one machine (Kniffel 7): its figures too
        click.echo(
            json.dumps({**advice.as_dict(all_options=show_all), **({"target": beyond} if beyond else {})}, indent=2)
        )
        return
    parsed, rolled, best, then, options = advice.card, advice.dice, advice.best, advice.then, advice.options
    options = tie_order(list(options))
    _echo_header(variant, parsed, rolled, roll)
    if options[0] is not best:  # a tie with "keep all": stopping is shown first, and its box
        best, then = options[0], tie_order(table.advisor.box_options(parsed, rolled, roll))[0]
    text, expected = option_text(variant, best, rolled), best.expected_final_score
    if then:
        click.echo(fit(t("advise_best_then", text=text, then=option_text(variant, then, rolled), expected=expected)))
    else:
        click.echo(fit(t("advise_best", text=text, expected=expected)))
    if best.kind == "box" or then:
        rule = joker_rule(variant, parsed, rolled)
        if rule:
            click.echo(fit(rule))
    for row in _option_rows(variant, options, None if show_all else 10, rolled):
        click.echo(row)


def _advise_target(ctx, variant, card, rolled, roll, box_now, show_all, as_json, target):
    """advise --target: every option ranked by the probability of finishing with at least target."""
    from ..advice.explain import fit
    from ..chances import targets

    settings = _settings(ctx)
    if variant.identical_dice:
        targets.check_target(variant, card, target)  # before any table is loaded or built
        target_compile.start(variant, settings.tables_dir)  # the target kernels compile beside the value table
        advisor = _advisor(variant, settings)
        table = get_target_table(variant, settings)
        advice = targets.target_advice(variant, table, advisor, card, rolled, roll, target, box_now)
    else:
        from ..chances.ordered_chances import check_card, ordered_target_advice

        check_card(variant, card, target)
        advisor = _advisor(variant, settings)
        found = found_in_job(ctx, variant, card, target)  # None without --job-dir or beyond its layers
        with computing_notice(settings) as on_plan:
            found = ordered_target_advice(advisor, card, rolled, roll, target, box_now, on_plan, found=found)
        if found is None:
            return beyond_reach(ctx, variant, card, target, as_json)
        advice = found
    if as_json:
        click.echo(json.dumps(advice.as_dict(all_options=show_all), indent=2))
        return
    best, then, probability, options = advice.best, advice.then, advice.probability, advice.options
    from ..advice.explain import option_text

    _echo_header(variant, card, rolled, roll)
    click.echo(t("target_start", target=target, p=probability))
    text, p = option_text(variant, best.option, rolled), best.probability
    if then:
        then_text = option_text(variant, then.option, rolled)
        click.echo(fit(t("target_best_then", text=text, then=then_text, target=target, p=p)))
    else:
        click.echo(fit(t("target_best", text=text, target=target, p=p)))
    _echo_chance_rows(variant, rolled, options, show_all, t("target_label", target=target), lambda o: o.probability)


def _advise_opponent(ctx, variant, card, rolled, roll, box_now, show_all, as_json, opponent_text):
    """advise --opponent: every option ranked by the probability of beating the opponent's final score."""
    from ..advice.explain import fit
    from ..chances import win
    from ..chances.ordered_chances import SIMULATED_GAMES

    try:  # bad cards: one line saying whose, before any engine is built
        opponent = parse_card(variant, opponent_text)
    except RuleError as exc:
        raise RuleError(t("opponent_card_error", error=exc)) from None
    if card.full:  # win.check_opponent says so too, in English for the Python API
        raise win.OpponentError(t("card_full"))
    win.check_opponent(card, opponent)
    settings = _settings(ctx)
    target_compile.start(variant, settings.tables_dir)  # the target kernels compile beside the value table
    values, _ = get_table(variant, settings)
    advisor = _advisor(variant, settings)
    exact = True
    if variant.identical_dice:
        table = get_target_table(variant, settings)
        opp_pmf = win.opponent_pmf(variant, values, opponent, directory=settings.tables_dir)

        def ranked(box_now):
            return win.opponent_options(variant, table, advisor, card, rolled, roll, opp_pmf, box_now)

        p_win = win.win_probability(opp_pmf, card, table)
    else:  # Kniffel 7: my chances from my card, on demand; the opponent's pmf exact only for a full card
        from ..chances import ordered_win

        with computing_notice(settings) as on_plan:
            found = ordered_win.my_targets(variant, card, on_plan)
        if found is None:
            return beyond_reach_opponent(ctx, variant, opponent, as_json)
        opp_pmf, exact = ordered_win.opponent_pmf(variant, values, opponent)

        def ranked(box_now):
            return ordered_win.ordered_opponent_options(advisor, found, card, rolled, roll, opp_pmf, box_now)

        p_win = ordered_win.win_probability(opp_pmf, card, found)
    action, options = ranked(box_now)
    best = options[0]
    then = None
    if action == "keep" and len(best.option.keep) == variant.n_dice:  # stopping: the box comes next
        then = ranked(True)[1][0]
    opp_mean = float(np.arange(opp_pmf.shape[0]) @ opp_pmf)
    if as_json:
        out = {
            "variant": variant.name,
            "card": card.format(),
            "opponent": opponent.format(),
            "dice": list(rolled),
            "roll": roll,
            "action": action,
            "win": p_win,
            "opponent_expected_final_score": opp_mean,
            **({} if exact else {"opponent_simulated_games": SIMULATED_GAMES}),
            "expected_final_score": advisor.expected_final(card),
            "best": best.as_dict(variant),
            "then": then.as_dict(variant) if then else None,
            "options": [o.as_dict(variant) for o in (options if show_all else options[:10])],
            "options_total": len(options),
        }
        click.echo(json.dumps(out, indent=2))
        return
    from ..advice.explain import card_text, option_text

    _echo_header(variant, card, rolled, roll)
    click.echo(
        fit(t("opponent_card", card=card_text(opponent), points=opponent.points, count=opponent.points, mean=opp_mean))
    )
    if not exact:
        click.echo(t("opponent_simulated", games=SIMULATED_GAMES))
    click.echo(t("opponent_start", p=p_win))
    text, p = option_text(variant, best.option, rolled), best.win
    if then:
        then_text = option_text(variant, then.option, rolled)
        click.echo(fit(t("opponent_best_then", text=text, then=then_text, p=p)))
    else:
        click.echo(fit(t("opponent_best", text=text, p=p)))
    _echo_chance_rows(variant, rolled, options, show_all, t("opponent_label"), lambda o: o.win)
