"""`kniffel poker`: the dice-poker duel's exact advice (solver/poker), printed or as JSON."""

from __future__ import annotations

import json

import click

from ..i18n.texts import choose_language, number, set_language, t
from ..poker.hands import CATEGORIES, TIES, category
from ..rules.presets import PRESETS
from .base import _settings, cli, lang_option


@cli.command()
@click.argument("dice", metavar="[DICE]", required=False)
@click.option("--hand", default=None)
@click.option("--roll", type=click.IntRange(1, 3), default=1)
@click.option("--rolls", type=click.IntRange(1, 3), default=3)
@click.option("--max-reroll", type=click.IntRange(1, 5), default=5)
@click.option("--ties", type=click.Choice(TIES), default="kickers")
@click.option("--match-rolls", is_flag=True)
@click.option("--json", "as_json", is_flag=True)
@lang_option
@click.pass_context
def poker(ctx, dice, hand, roll, rolls, max_reroll, ties, match_rolls, as_json):
    """Würfelpoker, the poker-hand duel: the exact chance to win of every keep."""
    from ..api import poker_advice

    set_language(choose_language(_settings(ctx).lang, PRESETS["wuerfelpoker"].lang))
    advice = poker_advice(dice, hand, roll, rolls, max_reroll, ties, match_rolls)
    if as_json:
        click.echo(json.dumps(advice.as_dict(), indent=2))
        return
    for line in advice_lines(advice):
        click.echo(line)


def shown(dice) -> str:
    return " ".join(map(str, dice))


def hand_name(dice) -> str:
    return t(f"poker_hand_{CATEGORIES[category(dice)]}")


def option_text(option) -> str:
    if option.reroll == 0:
        return t("poker_stop")
    if not option.keep:
        return t("poker_reroll_all", n=option.reroll)
    return t("poker_keep", kept=shown(option.keep), n=option.reroll)


def advice_lines(advice) -> list[str]:
    rules = advice.rules
    ties = t(f"poker_ties_{rules.ties}")
    match = t("poker_match") if rules.match_rolls else ""
    lines = [t("poker_rules_line", most=rules.max_reroll, ties=ties, match=match)]
    if advice.hand:
        lines.append(t("poker_head_second", hand=shown(advice.hand), name=hand_name(advice.hand)))
    else:
        lines.append(t("poker_head_first"))
    lines.append(t("poker_start", p=number(advice.start, ".2%")))
    if advice.dice:
        lines.append(t("poker_dice_line", roll=advice.roll, rolls=advice.rolls, dice=shown(advice.dice),
                       name=hand_name(advice.dice)))  # fmt: skip
        lines.append(t("poker_best", option=option_text(advice.best), p=number(advice.best.p_win, ".2%")))
        texts = [option_text(o) for o in advice.options]
        width = max(len(x) for x in texts)
        lines.append(f"   #  {'':{width}}  {t('poker_column'):>8}")
        rows = enumerate(zip(texts, advice.options), 1)
        lines += [f"{i:4}  {x:{width}}  {number(o.p_win, '8.2%')}" for i, (x, o) in rows]
    return lines
