"""The exact dice-poker duel (docs/RULES.md, "Würfelpoker, the duel"): the second player's best reroll against a
known hand, and the first player's best stop-or-reroll against the second player's best reply.

Rolls are multisets of the dice (252 for five), keeps are sub-multisets (462). One reroll step is a matrix
product: P[keep, roll] is the chance that rerolling the other dice of `keep` gives `roll`; the value of a roll
with rerolls left is the best over its allowed keeps (keeping every die = stopping). All hands to beat are
columns of one array, so the second player's whole answer to every first hand is a few small products.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from itertools import combinations, combinations_with_replacement, product

import numpy as np

from ..i18n.texts import t
from .hands import TIES, PokerError, hand_key

FACES = (1, 2, 3, 4, 5, 6)


@dataclass(frozen=True)
class DuelRules:
    n_dice: int = 5
    rolls: int = 3  # rolls a turn may have
    max_reroll: int = 5  # dice a reroll may take up (the house rule: 3)
    ties: str = "kickers"
    match_rolls: bool = False  # the second player may roll no more often than the first did

    def __post_init__(self):
        if self.ties not in TIES:
            raise PokerError(t("poker_bad_ties", ties=self.ties, allowed=", ".join(TIES)))
        if type(self.max_reroll) is not int or not 1 <= self.max_reroll <= self.n_dice:
            raise PokerError(t("poker_bad_max_reroll", value=self.max_reroll, most=self.n_dice))


class Lattice:
    """Rolls, keeps and the reroll matrix of n ordinary dice."""

    def __init__(self, n_dice: int, max_reroll: int):
        self.rolls = list(combinations_with_replacement(FACES, n_dice))
        self.roll_index = {r: i for i, r in enumerate(self.rolls)}
        self.keeps = [k for m in range(n_dice + 1) for k in combinations_with_replacement(FACES, m)]
        self.keep_index = {k: i for i, k in enumerate(self.keeps)}
        self.P = np.zeros((len(self.keeps), len(self.rolls)))
        for i, keep in enumerate(self.keeps):
            m = n_dice - len(keep)
            for new in product(FACES, repeat=m):
                self.P[i, self.roll_index[tuple(sorted(keep + new))]] += 6.0**-m
        self.first = self.P[self.keep_index[()]]  # the turn's first roll: all dice rolled
        # the allowed keeps of each roll (at most max_reroll dice rerolled; keeping all is stopping)
        self.keeps_of = [
            np.array(sorted({self.keep_index[k] for k in sub_multisets(r, max_reroll)})) for r in self.rolls
        ]

    def best(self, after_keep: np.ndarray, reroll_only: bool = False) -> np.ndarray:
        """Value of each roll with one reroll left: the best allowed keep (`reroll_only`: not stopping)."""
        n = len(self.rolls[0])
        out = np.empty((len(self.rolls), *after_keep.shape[1:]))
        for r, keeps in enumerate(self.keeps_of):
            if reroll_only:
                keeps = keeps[[len(self.keeps[k]) < n for k in keeps]]
            out[r] = after_keep[keeps].max(axis=0)
        return out


def sub_multisets(roll: tuple[int, ...], max_reroll: int):
    n = len(roll)
    for size in range(max(0, n - max_reroll), n + 1):
        yield from {tuple(roll[i] for i in idx) for idx in combinations(range(n), size)}


class Duel:
    """Every exact value of the duel under one set of rules."""

    def __init__(self, rules: DuelRules):
        self.rules = rules
        self.lat = lat = Lattice(rules.n_dice, rules.max_reroll)
        keys = [hand_key(r, rules.ties) for r in lat.rolls]
        # outcome[r, h]: the second player's roll r against the first player's hand h (1, 0.5 or 0)
        self.outcome = np.array([[1.0 if a > b else 0.5 if a == b else 0.0 for b in keys] for a in keys])
        # second[j][r, h]: the second player's P(win) with roll r, j rerolls left, against hand h
        self.second = [self.outcome]
        for _ in range(rules.rolls - 1):
            self.second.append(lat.best(lat.P @ self.second[-1]))
        # reply[k][h]: the second player's P(win) from the start of a turn of k rolls against h
        self.reply = {k: lat.first @ self.second[k - 1] for k in range(1, rules.rolls + 1)}
        # first[u][r]: the first player's P(win) holding roll r after u rolls, playing on optimally
        self.first = {rules.rolls: self.stop_value(rules.rolls)}
        for u in range(rules.rolls - 1, 0, -1):
            reroll = lat.best(lat.P @ self.first[u + 1], reroll_only=True)
            self.first[u] = np.maximum(self.stop_value(u), reroll)

    def stop_value(self, used: int) -> np.ndarray:
        """The first player's P(win) stopping after `used` rolls with each roll (ties count half)."""
        return 1.0 - self.reply[used if self.rules.match_rolls else self.rules.rolls]

    @property
    def first_player_start(self) -> float:
        return float(self.lat.first @ self.first[1])

    def beat_options(self, hand, dice, rerolls_left: int) -> list[tuple[tuple[int, ...], float]]:
        """(kept dice, P(win)) of every allowed keep, best first; keeping all dice is stopping."""
        lat = self.lat
        h, r = lat.roll_index[tuple(sorted(hand))], lat.roll_index[tuple(sorted(dice))]
        if rerolls_left == 0:
            return [(dice, float(self.outcome[r, h]))]
        after = lat.P[lat.keeps_of[r]] @ self.second[rerolls_left - 1][:, h]
        return ranked(lat, lat.keeps_of[r], after)

    def first_options(self, dice, rolls_used: int) -> list[tuple[tuple[int, ...], float]]:
        """(kept dice, P(win)) of stopping (all dice kept) and of every allowed reroll, best first."""
        lat = self.lat
        r = lat.roll_index[tuple(sorted(dice))]
        stop = float(self.stop_value(rolls_used)[r])
        if rolls_used == self.rules.rolls:
            return [(dice, stop)]
        keeps = np.array([k for k in lat.keeps_of[r] if len(lat.keeps[k]) < len(dice)])
        return ranked(lat, keeps, lat.P[keeps] @ self.first[rolls_used + 1], first=(dice, stop))


def ranked(lat: Lattice, keeps, values, first=None) -> list[tuple[tuple[int, ...], float]]:
    options = ([first] if first else []) + [(lat.keeps[k], float(v)) for k, v in zip(keeps, values)]
    # best first; among equals, the one keeping more dice (fewer to roll), then the higher dice
    return sorted(options, key=lambda o: (-round(o[1], 12), -len(o[0]), tuple(-f for f in o[0])))


@functools.lru_cache(maxsize=8)
def duel(rules: DuelRules) -> Duel:
    return Duel(rules)
