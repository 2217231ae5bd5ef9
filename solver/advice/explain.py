"""What the player reads: option texts, dice, cards, the rule behind a joker entry and why a box is refused.

Everything here renders facts the advisor and the rules already hold (an Option's kind, keep, keep_dice,
box, points, extra) in the current language of solver/i18n/texts.py; nothing here values anything.
"""

from __future__ import annotations

import re
import textwrap

from ..i18n.texts import CATALOGUES, bonus_name, box_name, die_name, language, number, t, word_list
from ..rules.variant import Joker, Scratch, Variant
from .card_checks import entry_rules
from .cards import Card


def number_word(n: int) -> str:
    words = CATALOGUES[language()]["numbers"].split(",")
    return words[n] if n < len(words) else str(n)


def dice_word(n: int) -> str:
    return t("die") if n == 1 else t("dice")


def faces_text(faces) -> str:
    return " ".join(str(f) for f in faces)


def named_dice(variant: Variant, dice, which=None) -> str:
    """'blue 2, green 3' for the dice `which` (all when None)."""
    which = range(len(dice)) if which is None else which
    return ", ".join(f"{die_name(variant, d)} {dice[d]}" for d in which)


def dice_text(variant: Variant, dice) -> str:
    """'3 3 5 1 6', or for dice told apart 'blue 2, green 3, ...'."""
    return named_dice(variant, dice) if variant.die_names else faces_text(dice)


def die_order(variant: Variant, which=None) -> str:
    """' (blue green purple ...)' for dice told apart: the order in which to type them."""
    if not variant.die_names:
        return ""
    which = range(variant.n_dice) if which is None else which
    return t("prompt_order", names=" ".join(die_name(variant, d) for d in which))


def option_text(variant: Variant, option, dice=None) -> str:
    """An Option in words; dice (the roll) lets a keep of dice told apart name the few dice to reroll."""
    n = variant.n_dice
    if option.kind == "box":
        box = box_name(variant, option.box)
        served = variant.boxes[option.box].first_roll_points  # Generala: more for a roll made at the first throw
        if served and option.points == variant.boxes[option.box].points + served:
            text = t("opt_score_served", box=box, points=option.points, bonus=served)
        else:
            text = t("opt_score", box=box, points=option.points) if option.points else t("opt_scratch", box=box)
        if option.extra:
            text += t("opt_extra", extra=option.extra, name=bonus_name(variant))
        return text
    k = len(option.keep)
    if k == n:
        return t("opt_keep_all_named") if variant.die_names else t("opt_keep_all", faces=faces_text(option.keep))
    if k == 0:
        return t("opt_reroll_all", count=n)
    if not variant.die_names or dice is None:
        return t("opt_keep", faces=faces_text(option.keep), count=n - k, dice=dice_word(n - k))
    rerolled = [d for d in range(n) if d not in option.keep_dice]
    if len(rerolled) < k:  # fewer words: name the dice that move
        return t("opt_reroll_named", dice=named_dice(variant, dice, rerolled), count=number_word(k))
    return t("opt_keep_named", dice=named_dice(variant, dice, option.keep_dice), count=number_word(n - k))


def tie_order(options: list) -> list:
    """'keep all' first among the options tied with the best (stopping is the simpler move)."""
    if not options or options[0].kind != "keep":
        return options
    n = max(len(o.keep) for o in options)
    tied = [o for o in options if o.loss == 0]
    stop = [o for o in tied if len(o.keep) == n]
    if not stop or stop[0] is options[0]:
        return options
    return [stop[0]] + [o for o in options if o is not stop[0]]


def loss_text(loss: float) -> str:
    """One sign convention everywhere: a loss is shown as a negative number of points, a tie as 'tie'."""
    return t("tie") if loss == 0 else number(-loss, ".2f")


def signed(loss: float) -> str:
    """A total loss with the same sign: '-3.21', or '0.00'."""
    return number(-loss, ".2f") if loss >= 0.005 else number(0.0, ".2f")


def card_text(card: Card) -> str:
    """'Einser 3, Dreierpasch 20, Kniffel-Bonus 50' (the variant's names, in box order), or 'empty'."""
    v = card.variant
    parts = [f"{box_name(v, b)} {p}" for b, p in sorted(card.filled.items())]
    if card.extra:
        parts.append(f"{bonus_name(v)} {card.extra}")
    return ", ".join(parts) or t("empty")


WIDTH = 100  # every line a player reads fits 100 columns


def fit(text: str, indent: str = "    ") -> str:
    """A line wrapped at WIDTH columns, later lines indented: in two at a natural break (before '  (' or
    '  ->', after '. ') when both halves fit, else at spaces (never inside a box name's hyphen)."""
    if len(text) <= WIDTH:
        return text
    for mark, head_end, tail_start in (("  (", 0, 2), ("  -> ", 0, 2), (". ", 1, 2)):
        cut = text.rfind(mark, 0, WIDTH + 1 - head_end)
        if cut > 0 and len(indent) + len(text) - cut - tail_start <= WIDTH:
            return text[: cut + head_end].rstrip() + "\n" + indent + text[cut + tail_start :]
    glued = unbreakable(text, _GLUE)
    wrapped = textwrap.fill(
        glued, WIDTH, subsequent_indent=indent, break_on_hyphens=False, break_long_words=False, replace_whitespace=False
    )
    return wrapped.replace(_GLUE, " ")


# spaces a line must not break at: before French punctuation and a percent sign, between a number and its
# unit 's', after '±' ('44,75\n    s)', '±\n    3,55 %', 'règle maison\n : 3' read badly)
_UNBREAKABLE = re.compile(r" (?=[:;!?%»])|(?<=\d) (?=s\b)|± |« ")
_GLUE = "\x00"  # fit's stand-in for such a space while it wraps: the line keeps its plain spaces


def unbreakable(text: str, glue: str = "\u00a0") -> str:
    """The text with those spaces made no-break ones (click's help wraps at any plain space)."""
    return _UNBREAKABLE.sub(lambda m: m.group().replace(" ", glue), text)


def fit_list(items, indent: str = "    ") -> str:
    """Items joined by ', ', each line within WIDTH columns, broken only between items."""
    lines, line = [], indent
    for i, item in enumerate(items):
        piece = item + ("," if i < len(items) - 1 else "")
        if line.strip() and len(line) + 1 + len(piece) > WIDTH:
            lines.append(line)
            line = indent
        line += ("" if not line.strip() else " ") + piece
    lines.append(line)
    return "\n".join(lines)


# -- the rule behind an entry -------------------------------------------------------------
def joker_rule(variant: Variant, card: Card, dice) -> str | None:
    """One line naming the rule that applies to this final roll, when a joker/Super-Points rule does."""
    if variant.joker_box is None:
        return None
    rules, row_of = entry_rules(variant)
    r = row_of[tuple(sorted(dice))]
    jb = variant.joker_index
    if not rules.joker_roll[r] or jb not in card.filled:
        return None
    box, held = box_name(variant, jb), card.filled[jb]
    upper = int(rules.joker_upper[r])
    upper_name = box_name(variant, upper) if upper >= 0 else ""
    bonus = ""
    if held and variant.extra_points:
        bonus = t("rule_bonus", box=box, held=held, extra=variant.extra_points, name=bonus_name(variant))
    if variant.joker == Joker.BOX_MAX:
        if not held:
            return t("rule_no_joker_scratched", box=box)
        return t("rule_box_max", box=box, held=held, extra=variant.extra_points, name=bonus_name(variant))
    if variant.joker == Joker.FIXED:
        return t("rule_fixed", box=box, held=held, points=variant.joker_score) if held else None
    if variant.joker == Joker.FORCED:
        lower_free = any(not b.is_upper and i not in card.filled for i, b in enumerate(variant.boxes))
        if upper >= 0 and upper not in card.filled:
            return t("rule_forced_upper", box=box, upper=upper_name) + bonus
        if lower_free:
            return t("rule_forced_lower", upper=upper_name) + bonus
        return t("rule_forced_scratch", upper=upper_name) + bonus
    if variant.joker == Joker.FREE:
        if upper >= 0 and upper in card.filled:
            return t("rule_free", box=box, upper=upper_name) + bonus
        return bonus.strip() or None
    if held and variant.extra_points:
        return t("rule_no_joker", box=box, held=held, extra=variant.extra_points, name=bonus_name(variant))
    return None


def refusal(variant: Variant, card: Card, dice, box: int, options) -> str:
    """Why `box` cannot take this roll: already filled, restricted scratching, the forced joker, or else."""
    name = box_name(variant, box)
    if box in card.filled:
        return t("refuse_filled", box=name, points=card.filled[box])
    rules, row_of = entry_rules(variant)
    r = row_of[tuple(sorted(dice))]
    if variant.joker == Joker.FORCED and rules.joker_roll[r] and variant.joker_index in card.filled:
        upper = int(rules.joker_upper[r])
        if upper >= 0 and upper not in card.filled:
            joker = box_name(variant, variant.joker_index)
            return t("refuse_forced", joker=joker, upper=box_name(variant, upper))
    fits = [o.box for o in options if o.points > 0]
    if variant.scratch == Scratch.RESTRICTED and rules.score[r, box] == 0 and fits:
        names = [box_name(variant, b) for b in fits]
        shown = word_list(names) if len(names) <= 3 else ", ".join(names[:3]) + ", ..."
        return t("refuse_restricted", box=name, fits=shown)
    allowed = ", ".join(box_name(variant, o.box) for o in options)
    return t("refuse_other", box=name, allowed=allowed)
