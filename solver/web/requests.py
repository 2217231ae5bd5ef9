"""The parameters of the API's requests (web/app.py): each one's length limit, unknown and repeated ones
refused with one line, the flags, the roll, the target and the card read as the CLI reads them."""

from __future__ import annotations

from starlette.requests import Request

from ..advice.cards import Card, parse_card, without_pending_bonus
from ..errors import KniffelError
from ..i18n.texts import t

MAX_QUERY = 1000  # characters in the whole query string
LIMITS = {
    "variant": 40,
    "card": 400,
    "dice": 60,
    "roll": 10,  # more than the value needs: "nan" is told what a roll is, not its length
    "box": 5,
    "all": 5,
    "target": 6,
    "lang": 5,
}  # characters per parameter
FLAGS = {"": False, "0": False, "false": False, "1": True, "true": True}


def query(request: Request, *, required: tuple[str, ...] = (), allowed: tuple[str, ...] = ()) -> dict[str, str]:
    """The request's parameters, each at most LIMITS[name] characters; unknown, repeated or missing
    ones are refused with a one-line message."""
    raw = request.url.query
    if len(raw) > MAX_QUERY:
        raise KniffelError(t("api_query_long", length=len(raw), most=MAX_QUERY))
    names = required + allowed
    out: dict[str, str] = {}
    for key, value in request.query_params.multi_items():
        if key not in names:
            allowed_text = ", ".join(names) if names else t("api_none")
            raise KniffelError(t("api_unknown_parameter", name=key[:40], allowed=allowed_text))
        if key in out:
            raise KniffelError(t("api_parameter_twice", name=key))
        if len(value) > LIMITS[key]:
            raise KniffelError(t("api_parameter_long", name=key, length=len(value), most=LIMITS[key]))
        out[key] = value
    for key in required:
        if key not in out:
            raise KniffelError(t("api_parameter_missing", name=key))
    return out


def joker_scored(params: dict[str, str], name: str) -> bool:
    value = params.get(name, "")
    if value.lower() not in FLAGS:
        raise KniffelError(t("api_flag_value", name=name, value=value))
    return FLAGS[value.lower()]


def roll_number(params: dict[str, str]) -> int:
    text = params.get("roll", "1")
    if text not in ("1", "2", "3"):
        raise KniffelError(t("api_roll", roll=repr(text)))
    return int(text)


def target_number(params: dict[str, str]) -> int | None:
    """The target score (a whole number), or None when the parameter is absent or empty."""
    text = params.get("target", "")
    if text == "":
        return None
    digits = text[1:] if text.startswith("-") else text
    if not (digits.isascii() and digits.isdigit()):
        raise KniffelError(t("api_target", value=text))
    return int(text)


def turn_start_card(variant, params: dict[str, str]) -> tuple[Card, dict[str, int]]:
    """The card at the start of the turn being played, and {"bonus_waiting": points} when its latest bonus still
    waits for its box. The page keeps the pad as the player writes it, who may mark a further Kniffel's bonus
    before choosing its box (advise pays it with that box); the CLI, where no turn is being played, refuses
    such a card for value, distribution and chances (cards.at_turn_start)."""
    card = parse_card(variant, params.get("card", ""))
    counted = without_pending_bonus(card)
    return counted, ({"bonus_waiting": card.extra - counted.extra} if counted is not card else {})
