"""Rules as data: boxes, bonuses, jokers and the Variant that holds them (the presets: presets.py).

Every rule of docs/RULES.md lives here as a field value; the scoring
tables (scoring.py) and the DP kernels (dp/) read these fields and contain
no variant names.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import re
import unicodedata
from dataclasses import dataclass, field
from enum import Enum

from ..errors import KniffelError
from ..i18n.texts import t


class BoxKind(str, Enum):
    """How a box decides whether a roll fits."""

    UPPER = "upper"  # at least one die shows `face`
    GROUPS = "groups"  # the dice contain disjoint groups of equal values of sizes `groups`
    STRAIGHT = "straight"  # the dice contain one of the face sets in `runs`
    CHANCE = "chance"  # always


class Scoring(str, Enum):
    """What a fitting roll scores."""

    FACE = "face"  # face x number of dice showing it
    SUM_ALL = "sum_all"  # sum of all dice
    SUM_GROUPS = "sum_groups"  # sum of the dice in the best choice of groups
    FIXED = "fixed"  # `points`
    SUM_PLUS = "sum_plus"  # sum of all dice + `points` (Kismet's full houses, four of a kind, Kismet)


class Scratch(str, Enum):
    """When a box may take a 0."""

    FREE = "free"  # any free box at any time
    RESTRICTED = "restricted"  # only when the roll fits no free box


class Joker(str, Enum):
    """What a further roll fitting the joker box (five equal dice ...) does."""

    NONE = "none"  # scored normally
    BOX_MAX = "box_max"  # Kniffel: any free box, scoring that box's maximum
    FORCED = "forced"  # Yahtzee: matching upper box, else a lower box, else an upper scratch
    FREE = "free"  # 1999 convention: any box; fixed lower boxes pay when the upper is filled
    FIXED = "fixed"  # Kniffel 7: any free box holds `joker_score`
    FITS = "fits"  # Kismet: while the joker box holds points, the roll also fits the boxes marked `joker_points`

    @property
    def needs_points_in_box(self) -> bool:
        """Applies only while the joker box holds points (not merely when it is filled)."""
        return self in (Joker.BOX_MAX, Joker.FIXED, Joker.FITS)


# str enums: json.dumps writes their values, so rule fingerprints (and committed tables) are unchanged.
UPPER, GROUPS, STRAIGHT, CHANCE = BoxKind
FACE, SUM_ALL, SUM_GROUPS, FIXED, SUM_PLUS = Scoring


class RuleError(KniffelError):
    """Bad input measured against a variant's rules (box, card, dice, variant)."""


@dataclass(frozen=True)
class Box:
    key: str
    name_de: str
    name_en: str
    kind: BoxKind
    scores: Scoring
    face: int = 0
    groups: tuple[int, ...] = ()
    distinct: bool = False
    runs: tuple[tuple[int, ...], ...] = ()
    points: int = 0
    joker_points: bool = False  # Joker.FORCED/FREE: a joker roll scores `points` here; Joker.FITS: it fits here
    same_colour: bool = False  # the dice the box uses (its groups; every die for CHANCE) show one colour
    aliases: tuple[str, ...] = ()
    first_roll_points: int = 0  # added to a fitting roll entered when the turn stops after roll 1 (Generala: servida)
    only_as_joker: bool = False  # takes points only from a joker roll (Generala's Doble Generala), never normally

    @property
    def is_upper(self) -> bool:
        return self.kind == UPPER

    def __post_init__(self):
        # a rule setting given as its string becomes the enum member; anything else is refused
        object.__setattr__(self, "kind", BoxKind(self.kind))
        object.__setattr__(self, "scores", Scoring(self.scores))
        if self.same_colour and self.kind not in (BoxKind.GROUPS, BoxKind.CHANCE):
            raise ValueError(f"box {self.key}: only groups and chance boxes can ask for one colour")
        if self.first_roll_points and self.kind == BoxKind.UPPER:
            # the kernels share one move (box, upper points, flag) between a roll's normal and first-roll entry
            raise ValueError(f"box {self.key}: upper boxes take no first-roll points")


@dataclass(frozen=True)
class Bonus:
    threshold: int
    points: int


@dataclass(frozen=True)
class Variant:
    name: str
    title: str
    dice: tuple[tuple[int, ...], ...]  # the faces of each die
    boxes: tuple[Box, ...]
    bonuses: tuple[Bonus, ...]
    scratch: Scratch = Scratch.FREE
    joker_box: str | None = None  # box whose points (> 0) earn extras for further fitting rolls
    extra_points: int = 0  # paid for each further roll fitting the joker box while it holds points
    joker: Joker = Joker.NONE
    joker_score: int = 0  # Joker.FIXED: what the chosen box holds
    min_keep_last_reroll: int = 0  # house rule: dice that must stay before the third roll
    rolls: int = 3
    die_names: tuple[str, ...] = ()
    colours: tuple[tuple[int, ...], ...] = ()  # faces that share one colour (Kismet: 1-6, 2-5, 3-4)
    wild: int = 0  # a face that counts as any number another die shows (Cheerio's wild ones); 0: none
    aliases: tuple[str, ...] = ()
    options: tuple[str, ...] = field(default=(), compare=False)
    lang: str = "en"  # the language of its players: "de", "en", "es" or "fr" (the default of --lang)

    def __post_init__(self):
        object.__setattr__(self, "scratch", Scratch(self.scratch))
        object.__setattr__(self, "joker", Joker(self.joker))
        if self.lang not in ("de", "en", "es", "fr"):
            raise ValueError(f"variant {self.name}: lang must be 'de', 'en', 'es' or 'fr', not {self.lang!r}")
        keys = [b.key for b in self.boxes]
        if len(set(keys)) != len(keys):
            raise ValueError(f"variant {self.name}: box keys repeat")
        if self.joker_box is not None and self.joker_box not in keys:
            raise ValueError(f"variant {self.name}: joker box {self.joker_box!r} is not one of its boxes")
        coloured = [f for group in self.colours for f in group]
        if self.colours and sorted(coloured) != list(self.faces):
            raise ValueError(f"variant {self.name}: colours must give every face {self.faces} exactly one colour")
        if self.wild and self.wild not in self.faces:
            raise ValueError(f"variant {self.name}: the wild face {self.wild} is on no die")
        if any(b.same_colour for b in self.boxes) and not self.colours:
            raise ValueError(f"variant {self.name}: a box asks for one colour, but the dice have no colours")

    def __hash__(self) -> int:
        # kept once: many small lookups are cached per variant (functools.cache), and hashing every
        # field of every box each time cost more than the lookups (tens of µs per parsed card)
        h = self.__dict__.get("_hash")
        if h is None:
            h = hash(tuple(getattr(self, f.name) for f in dataclasses.fields(self) if f.compare))
            self.__dict__["_hash"] = h
        return h

    def __getstate__(self) -> dict:
        # string hashes differ between processes: a pickled copy computes its own
        return {k: v for k, v in self.__dict__.items() if k not in ("_hash", "_box_lookup")}

    # -- derived facts -------------------------------------------------
    @property
    def n_dice(self) -> int:
        return len(self.dice)

    @property
    def faces(self) -> tuple[int, ...]:
        """Every face any die can show, ascending."""
        return tuple(sorted({f for die in self.dice for f in die}))

    @property
    def identical_dice(self) -> bool:
        return all(die == self.dice[0] for die in self.dice)

    @property
    def upper_cap(self) -> int:
        """Upper totals at or above the highest threshold behave alike."""
        return max((b.threshold for b in self.bonuses), default=0)

    @property
    def has_first_roll_points(self) -> bool:
        """Does a box score more when the turn stops after its first roll (Generala's servida)?"""
        return any(b.first_roll_points for b in self.boxes)

    @functools.cached_property
    def joker_index(self) -> int:
        return -1 if self.joker_box is None else self.box_index(self.joker_box)

    @property
    def has_flag(self) -> bool:
        """Does the future depend on whether the joker box holds points?"""
        return self.joker_box is not None and (self.extra_points > 0 or self.joker.needs_points_in_box)

    def box_name(self, index: int) -> str:
        from ..i18n.texts import box_name

        return box_name(self, index, self.lang)

    def pad_letter(self, index: int) -> str:
        """The letter a Generala pad writes for the box (PAD_LETTERS), '' on another sheet (Yams' Full has none)."""
        keys = {box.key for box in self.boxes}
        return PAD_LETTERS.get(self.boxes[index].key, "") if PAD_LETTERS.keys() <= keys else ""

    def box_index(self, key: str) -> int:
        for i, box in enumerate(self.boxes):
            if box.key == key:
                return i
        raise RuleError(t("rules_no_box", variant=self.name, box=key, boxes=", ".join(b.key for b in self.boxes)))

    def fingerprint(self) -> str:
        """Hash of every rule field (not of names), so a stale table is detected."""
        rules = dataclasses.asdict(self)
        for key in ("name", "title", "aliases", "options", "die_names", "lang"):
            rules.pop(key)
        _drop_defaults(rules, LATER_VARIANT_FIELDS)
        for box in rules["boxes"]:
            for key in ("name_de", "name_en", "aliases"):
                box.pop(key)
            _drop_defaults(box, LATER_BOX_FIELDS)
        blob = json.dumps(rules, sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    def reduced(self, boxes=None, n_dice=None, bonuses=None, name=None) -> Variant:
        """A smaller variant with the same rules (for tests against the naive solver)."""
        keep = self.boxes if boxes is None else tuple(self.boxes[self.box_index(k)] for k in boxes)
        joker_box = self.joker_box if any(b.key == self.joker_box for b in keep) else None
        dice = self.dice if n_dice is None else self.dice[:n_dice]
        # a box that asks for all dice equal, and the joker box (Kniffel 7's Super-Kniffel: six of seven),
        # keep asking for all dice but as many as before
        keep = tuple(
            dataclasses.replace(b, groups=(b.groups[0] - self.n_dice + len(dice),))
            if b.groups == (self.n_dice,) or (b.key == self.joker_box and len(b.groups) == 1)
            else b
            for b in keep
        )
        return dataclasses.replace(
            self,
            name=name or f"{self.name}-reduced",
            boxes=keep,
            dice=dice,
            die_names=self.die_names[: len(dice)],
            bonuses=self.bonuses if bonuses is None else tuple(Bonus(t, p) for t, p in bonuses),
            joker_box=joker_box,
        )

    # -- names ---------------------------------------------------------
    def find_box(self, name: str) -> int:
        """Index of a box given by German or English name, key, alias or 1-based position."""
        text = name.strip()
        if text.isascii() and text.isdigit():
            pos = int(text)
            if 1 <= pos <= len(self.boxes):
                return pos - 1
            from ..i18n.texts import t

            raise RuleError(t("err_box_position", pos=pos, variant=self.name, count=len(self.boxes)))
        lookup = self._box_lookup
        found = lookup.get(text)
        if found is None:
            found = lookup.get(normalize(text))
        if found is not None:
            return found
        from ..i18n.texts import box_name, did_you_mean, t

        names = [box_name(self, i) for i in range(len(self.boxes))]
        spellings = {s: box_name(self, i) for i, b in enumerate(self.boxes) for s in box_spellings(b)}
        suggest = did_you_mean(text, spellings, normalize)  # named as the player's language names the box
        raise RuleError(t("err_unknown_box", name=text, variant=self.name, suggest=suggest, boxes=", ".join(names)))

    @functools.cached_property
    def _box_lookup(self) -> dict[str, int]:
        """Every spelling of every box (box_spellings) -> its index (the first box, should two share one)."""
        lookup: dict[str, int] = {}
        for i, box in enumerate(self.boxes):
            for spelling in box_spellings(box):
                lookup.setdefault(spelling, i)
        return lookup

    def find_die(self, name: str) -> int:
        """Index of a die given by its colour (i18n.texts.colour_spellings: English, German or the language's
        name, the language's short code, a unique beginning), '#n' or 1-based number."""
        from ..i18n.texts import colour_spellings, did_you_mean, die_name, language, t, word_list

        text = name.strip().lower().lstrip("#")
        if text.isascii() and text.isdigit() and 1 <= int(text) <= self.n_dice:
            return int(text) - 1
        if self.die_names:
            colours = colour_spellings(language()).items()
            spellings = {s: self.die_names.index(c) for s, c in colours if c in self.die_names}
            spellings.update([(normalize(s), i) for s, i in spellings.items()])  # 'weiss', 'vérde'
            if normalize(text) in spellings or text in spellings:
                return spellings.get(text, spellings.get(normalize(text), -1))
            starts = {i for s, i in spellings.items() if len(s) > 2 and s.startswith(text) and len(text) >= 2}
            if len(starts) == 1:
                return starts.pop()
            if len(starts) > 1:
                names = word_list([die_name(self, i) for i in sorted(starts)])
                raise RuleError(t("err_ambiguous_die", name=name.strip(), names=names))
        names = ", ".join(die_name(self, i) for i in range(len(self.die_names))) or "-"
        suggest = did_you_mean(text, [die_name(self, i) for i in range(len(self.die_names))])
        raise RuleError(
            t("err_unknown_die", name=name.strip(), variant=self.name, suggest=suggest, names=names, count=self.n_dice)
        )


# Rule fields added after tables were published: left out of the fingerprint while at their defaults, so
# the fingerprints (and the tables) of the variants that do not use them stay as they were.
LATER_VARIANT_FIELDS = {"colours": (), "wild": 0}
LATER_BOX_FIELDS = {"same_colour": False, "first_roll_points": 0, "only_as_joker": False}


PER_VARIANT_KEPT = 64  # variants per_variant keeps answers for (the presets are a dozen)


def per_variant(fn):
    """functools.cache for a function of one Variant, keyed by the object itself: for the lookups on the path of
    every parsed card or roll, where hashing a Variant (a Python __hash__) costs more than the lookup."""
    kept: dict[int, object] = {}  # id -> the answer; the variant is held with it, so its id stays its own

    @functools.wraps(fn)
    def cached(variant):
        hit = kept.get(id(variant))
        if hit is None:
            if len(kept) >= PER_VARIANT_KEPT:  # equal copies (unpickled, deep-copied) are kept apart: a bound
                kept.clear()
            hit = kept[id(variant)] = (variant, fn(variant))
        return hit[1]

    return cached


def _drop_defaults(fields: dict, later: dict) -> None:
    for key, default in later.items():
        if fields[key] == default:
            fields.pop(key)


def normalize(text: str) -> str:
    """Case-, space- and accent-insensitive spelling: 'Große Straße' == 'grosse-strasse', 'Carré' == 'carre'."""
    if text.isascii() and text.isalnum() and text.islower():
        return text  # already plain (card keys such as 'chance'): the common case of a parsed card
    text = text.lower().replace("ß", "ss").replace("ä", "ae").replace("ö", "oe").replace("ü", "ue")
    text = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return re.sub(r"[\s_\-.']+", "", text)


# what players write on their pads in every language, by box key (the boxes' own names and aliases, and their
# names in the catalogues of the other languages, and Generala's letters, PAD_LETTERS, count as well): Yams' as,
# deux ... six, German pads' Kl. Straße
PAD_ALIASES = {
    "ones": ("unos", "uno", "as", "al uno"),
    "twos": ("doses", "dos", "deux"),
    "threes": ("treses", "tres", "trois"),
    "fours": ("cuatros", "cuatro", "quatre"),
    "fives": ("cincos", "cinco", "cinq"),
    "sixes": ("seises", "seis", "six"),
    "three_of_a_kind": ("brelan", "trío", "tres iguales"),
    "four_of_a_kind": ("carré", "póker", "póquer", "cuatro iguales"),
    "full_house": ("full", "full servido"),
    "small_straight": ("Kl. Straße", "kleine Straße", "petite suite", "escalera corta"),
    "large_straight": ("Gr. Straße", "große Straße", "grande suite", "escalera larga"),
    "escalera": ("escalera servida", "suite"),
    "full": ("full servido",),
    "poker": ("póquer", "carré"),
    "generala": ("generala servida",),
    "doble_generala": ("doble",),
    "brelan": ("trío",),
    "carre": ("póker", "póquer"),
    "petite_suite": ("petite", "escalera corta"),
    "grande_suite": ("grande", "escalera larga"),
    "yams": ("yam",),
}
# a Generala pad's letters for its lower boxes: accepted as box names, shown on Generala's score sheet
PAD_LETTERS = {"escalera": "E", "full": "F", "poker": "P", "generala": "G", "doble_generala": "DG"}


def box_spellings(box: Box) -> set[str]:
    from ..i18n.texts import CATALOGUES

    translated = [CATALOGUES[lang].get(f"box_{box.key}", box.name_en) for lang in ("es", "fr")]
    spellings = set()
    letters = [PAD_LETTERS[box.key]] if box.key in PAD_LETTERS else []
    for name in (box.key, *letters, box.name_de, box.name_en, *box.aliases, *translated, *PAD_ALIASES.get(box.key, ())):
        n = normalize(name)
        spellings.add(n)
        spellings.add(n.replace("ae", "a").replace("oe", "o").replace("ue", "u"))
    return spellings
