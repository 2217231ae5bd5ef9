"""The plain JSON objects that `kniffel variants --json` and `kniffel value --json` print; the web API
serves the same objects by calling these same functions."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from .i18n.texts import LANGUAGES, box_name, die_name, variant_title
from .rules.presets import PRESETS
from .rules.variant import Variant
from .store import solving

if TYPE_CHECKING:
    from .api import CardLike, Table


def variant_report(v: Variant, tables_dir: Path) -> dict[str, Any]:
    """One preset: names, dice (each die's faces; Kniffel 7's colours in every language), boxes in German, English,
    Spanish and French, bonuses, and the start value where a table for exactly these rules exists."""
    meta = solving.table_meta(v, tables_dir)
    start = meta["start_value"] if meta and meta.get("fingerprint") == v.fingerprint() else None
    return {
        "variant": v.name,
        "title": v.title,
        "titles": {lang: variant_title(v, lang) for lang in LANGUAGES},
        "aliases": list(v.aliases),
        "dice": v.n_dice,
        "die_faces": [list(die) for die in v.dice],
        "die_names": list(v.die_names),
        "die_colours": {lang: [die_name(v, i, lang) for i in range(len(v.die_names))] for lang in LANGUAGES},
        "identical_dice": v.identical_dice,
        "lang": v.lang,
        "boxes": [
            {"position": i + 1, "key": b.key, **{lang: box_name(v, i, lang) for lang in LANGUAGES}}
            for i, b in enumerate(v.boxes)
        ],
        "bonuses": [[b.threshold, b.points] for b in v.bonuses],
        "joker_box": v.joker_box,
        "extra_points": v.extra_points,
        "options": list(v.options),
        "start_value": start,
    }


def variants_report(tables_dir: Path) -> list[dict[str, Any]]:
    """Every preset, in registry order (`kniffel variants --json`)."""
    return [variant_report(v, tables_dir) for v in PRESETS.values()]


def value_report(table: Table, card: CardLike) -> dict[str, Any]:
    """Points on a card and the expected points to come (`kniffel value --json`)."""
    parsed = table.card(card)
    future = table.future(parsed)
    return {
        "variant": table.variant.name,
        "card": parsed.format(),
        "points": parsed.points,
        "upper_total": parsed.upper_total,  # the upper boxes' sum, the bonus it has earned (in points), and
        "upper_bonus": parsed.bonus,  # how many upper boxes are still free (none: no more bonus to earn)
        "upper_free": parsed.upper_free,
        "expected_future": future,
        "expected_final_score": parsed.points + future,
    }
