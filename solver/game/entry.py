"""What a player types at the prompts of `kniffel play`: the dice of a roll and the dice to keep.

Digits always mean face values (as with five identical dice); a die told apart (Kniffel 7) is chosen by
its colour (English, German or the chosen language's name, or that language's short code) or by its position '#n'.
"""

from __future__ import annotations

import re

from ..i18n.texts import CATALOGUES, die_name, language, t
from ..rules.variant import RuleError, Variant


def words(msg_id: str) -> tuple[str, ...]:
    """The words of one command in the current language (English ones always work too)."""
    return tuple(CATALOGUES[language()][msg_id].split(",")) + tuple(CATALOGUES["en"][msg_id].split(","))


def _tokens(text: str) -> list[str]:
    return [p for p in re.split(r"[\s,;]+", text.strip()) if p]


def _faces(token: str) -> list[int] | None:
    """'66' -> [6, 6], '3' -> [3]; None for a token that is not digits."""
    return [int(c) for c in token] if token.isascii() and token.isdigit() else None


def strip_word(text: str, msg_id: str) -> tuple[bool, str]:
    """(True, rest) when text starts with one of the command's words ('keep 3 3', 'behalte 3 3')."""
    head, _, rest = text.strip().partition(" ")
    if head.lower() in words(msg_id) and rest.strip():
        return True, rest.strip()
    return False, text.strip()


def parse_roll(variant: Variant, text: str, kept_dice=(), kept_faces=(), shown=()) -> tuple[int, ...]:
    """The whole roll from what was typed: every die, or only the dice rolled again after a keep.

    Identical dice: faces ('33516', '3 3 5'). Dice told apart: faces in die order (of the rerolled dice,
    or of all), or 'colour=face' entries ('b=2 gr=5', 'blue=2', '#3=4')."""
    n = variant.n_dice
    if variant.identical_dice:
        faces: list[int] = []
        free = n - len(kept_faces)
        for token in _tokens(text):
            got = _faces(token)
            if got is None:
                raise RuleError(t("err_roll_word", word=token, example=_example(variant, free)))
            faces += got
        die = variant.dice[0]
        wrong = next((face for face in faces if face not in die), None)
        if wrong is not None:  # before the count: '7' is a face that is not there, not "1 dice given"
            example = _example(variant, free if kept_faces else n)
            raise RuleError(t("err_roll_not_face", face=wrong, low=die[0], high=die[-1], example=example))
        if len(faces) == free and kept_faces:
            dice = tuple(kept_faces) + tuple(faces)
        elif len(faces) == n:
            dice = tuple(faces)
        elif kept_faces:
            raise _count_error(len(faces), free, "", n)
        else:
            raise RuleError(
                t(
                    "err_roll_count_all",
                    given=len(faces),
                    count=len(faces),
                    total=n,
                    order="",
                    example=_example(variant, n),
                )
            )
        _check_faces(variant, dice)
        return dice
    return complete_roll(variant, _parse_ordered_roll(variant, text, kept_dice), shown)


def _parse_ordered_roll(variant: Variant, text: str, kept_dice: tuple[int, ...]) -> dict[int, int]:
    from ..advice.explain import die_order

    n = variant.n_dice
    free = [d for d in range(n) if d not in kept_dice]
    given: dict[int, int] = {}
    if "=" in text:
        for token in _tokens(text.replace(" =", "=").replace("= ", "=")):
            name, sep, face = token.partition("=")
            if not sep or _faces(face) is None or len(face) != 1:
                raise RuleError(t("err_roll_word", word=token, example="b=2"))
            die = variant.find_die(name)
            if die in given:
                raise RuleError(t("err_roll_twice", die=name))
            given[die] = int(face)
        dice_map = given
    else:
        faces: list[int] = []
        for token in _tokens(text):
            got = _faces(token)
            if got is None:
                raise RuleError(t("err_roll_word", word=token, example=_example(variant, len(free))))
            faces += got
        if len(faces) == len(free):
            dice_map = dict(zip(free, faces))
        elif len(faces) == n:
            dice_map = dict(enumerate(faces))
        elif kept_dice:
            raise _count_error(len(faces), len(free), die_order(variant, free), n)
        else:
            raise RuleError(
                t(
                    "err_roll_count_all",
                    given=len(faces),
                    count=len(faces),
                    total=n,
                    order=die_order(variant),
                    example=_example(variant, n),
                )
            )
    if set(dice_map) == set(free) or set(dice_map) == set(range(n)):
        return dice_map
    kept = [d for d in dice_map if d not in free]
    if kept and len(dice_map) < n:  # a kept die typed: it is not rolled again
        names = ", ".join(die_name(variant, d) for d in kept)
        raise RuleError(t("err_roll_kept", names=names, order=die_order(variant, free), total=n))
    missing = ", ".join(die_name(variant, d) for d in free if d not in dice_map)  # by colour: which to add
    raise RuleError(t("err_roll_missing", given=len(dice_map), names=missing, total=len(free)))


def _count_error(given: int, rerolled: int, order: str, total: int) -> RuleError:
    """Too few or too many dice typed after a keep: the rerolled ones or all of them are wanted."""
    key = "err_roll_count_one" if rerolled == 1 else "err_roll_count"
    return RuleError(t(key, given=given, count=given, rerolled=rerolled, order=order, total=total))


def _example(variant: Variant, count: int) -> str:
    return "".join(str(die[i % len(die)]) for i, die in enumerate(variant.dice[:count]))


def _check_faces(variant: Variant, dice) -> None:
    for i, (face, die) in enumerate(zip(dice, variant.dice)):
        if face not in die:
            name = die_name(variant, i) if variant.die_names else str(i + 1)
            raise RuleError(t("err_roll_face", die=name, face=face))


def complete_roll(variant: Variant, dice_map: dict[int, int], shown: tuple[int, ...]) -> tuple[int, ...]:
    """Dice told apart: the new roll from the typed dice and the kept dice (which still show `shown`)."""
    dice = tuple(dice_map.get(d, shown[d] if shown else 0) for d in range(variant.n_dice))
    _check_faces(variant, dice)
    return dice


def parse_keep(variant: Variant, text: str, dice: tuple[int, ...]) -> tuple[set[int], list[int]]:
    """(dice chosen by colour or position, faces chosen by value) from 'keep 6 6', 'blau schwarz', '#1 #6'."""
    chosen: set[int] = set()
    faces: list[int] = []
    for token in _tokens(text):
        got = _faces(token)
        if got is not None:
            faces += got
        elif token.startswith("#") and token[1:].isdigit():
            pos = int(token[1:])
            if not 1 <= pos <= variant.n_dice:
                raise RuleError(t("err_keep_position", pos=pos, count=variant.n_dice))
            chosen.add(pos - 1)
        elif variant.die_names:
            chosen.add(variant.find_die(token))
        else:
            raise RuleError(t("err_unknown_command", text=text, suggest=_command_suggestion(variant, text)))
    return chosen, faces


def _command_suggestion(variant: Variant, text: str) -> str:
    """The closest commands, or 'box NAME' for a misspelt box."""
    from ..i18n.texts import box_name, did_you_mean
    from ..rules.variant import normalize

    box_word = words("words_box")[0]
    spellings = {
        s: f"{box_word} {box_name(variant, i)}" for i, b in enumerate(variant.boxes) for s in (b.name_de, b.name_en)
    }
    boxes = did_you_mean(text, spellings, normalize)
    if boxes:
        return boxes
    every = [
        w
        for msg in (
            "words_help",
            "words_card",
            "words_undo",
            "words_quit",
            "words_options",
            "words_stop",
            "words_none",
            "words_keep",
            "words_box",
        )
        for w in words(msg)
        if len(w) > 2
    ]
    return did_you_mean(text, every)
