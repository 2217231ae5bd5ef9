"""Dice as a player types them: '3,3,5,1,6', '33516' or 'blue=2,green=3,...', checked against each die's faces.

No kernels here (nor anything that loads Numba), so a command can check its dice before it loads or solves a table.
"""

from __future__ import annotations

from ..i18n.texts import die_name, t
from ..rules.variant import RuleError, Variant, per_variant

MAX_DICE_TEXT = 200  # characters of dice as typed (seven named dice take about 100)


def dice_example(variant: Variant) -> str:
    """A valid roll to show in messages: one face of every die (die i shows its face number i + 1)."""
    return ",".join(str(die[i % len(die)]) for i, die in enumerate(variant.dice))


def parse_dice(variant: Variant, text: str) -> tuple[int, ...]:
    """'3,3,5,1,6', '3 3 5 1 6' or '33516' (one digit per die, in die order), or for named dice
    'blue=2,green=3,...'; checked against each die's faces."""
    if len(text) > MAX_DICE_TEXT:  # a message quotes the text: not a flood of a line
        raise RuleError(t("dice_too_long", length=len(text), most=MAX_DICE_TEXT))
    raw = text.strip()
    digits = _face_digits(variant)
    if len(raw) == len(digits):  # '33516', the common case: each die's digit looked up (a face or KeyError)
        try:
            return tuple(map(dict.__getitem__, digits, raw))
        except KeyError:
            pass
    if not raw:
        raise RuleError(t("dice_none", variant=variant.name, count=variant.n_dice, example=dice_example(variant)))
    if "=" in raw:
        raw = _named_dice(variant, raw)
    parts = [p for p in raw.replace(",", " ").split() if p]
    if len(parts) == 1 and _digits(parts[0]) and len(parts[0]) > 1:
        parts = list(parts[0])
    if not all(_digits(p.removeprefix("-")) for p in parts):  # '-1': a number, refused below as no face
        raise RuleError(t("dice_numbers", text=text, count=variant.n_dice, example=dice_example(variant)))
    dice = tuple(int(p) for p in parts)
    if len(dice) != variant.n_dice:
        raise RuleError(
            t(
                "dice_count",
                text=text,
                given=len(dice),
                count=len(dice),
                variant=variant.name,
                total=variant.n_dice,
                example=dice_example(variant),
            )
        )
    for i, (face, die) in enumerate(zip(dice, variant.dice)):
        if face not in die:
            if variant.die_names:
                raise RuleError(t("dice_no_face_named", text=text, pos=i + 1, die=die_name(variant, i), face=face))
            raise RuleError(t("dice_no_face", text=text, face=face, low=die[0], high=die[-1]))
    return dice


@per_variant
def _face_digits(variant: Variant) -> tuple[dict[str, int], ...]:
    """Per die, its faces 0-9 by their digit."""
    return tuple({str(face): face for face in die if 0 <= face <= 9} for die in variant.dice)


def _digits(text: str) -> bool:
    return text.isascii() and text.isdigit()


def _named_dice(variant: Variant, text: str) -> str:
    """'blue=2,green=3,...' -> '2 3 ...' in die order. Every entry must name its die."""
    faces: list[str | None] = [None] * variant.n_dice
    entries = [e.strip() for e in text.replace(";", ",").split(",") if e.strip()]
    for entry in entries:
        name, sep, face = (part.strip() for part in entry.partition("="))
        if not sep:
            names = ",".join(f"{n}={f}" for n, f in zip(variant.die_names, dice_example(variant).split(",")))
            raise RuleError(t("dice_mixed", text=text, entry=entry, names=names, example=dice_example(variant)))
        try:
            die = variant.find_die(name)
        except RuleError as exc:
            raise RuleError(t("dice_prefix", text=text, error=exc)) from None
        if not face:
            raise RuleError(t("dice_no_face_after", text=text, name=name))
        if not _digits(face):
            raise RuleError(t("dice_face_number", text=text, name=name, face=face))
        if faces[die] is not None:
            raise RuleError(t("dice_twice", text=text, name=name))
        faces[die] = face
    missing = [die_name(variant, i) if variant.die_names else str(i + 1) for i, f in enumerate(faces) if f is None]
    if missing:
        raise RuleError(t("dice_missing", text=text, names=", ".join(missing)))
    return " ".join(f for f in faces if f is not None)
