"""Playing to win (issue 13): against an opponent who plays for the maximum expected score.

Each option is valued  sum_i P(opponent finishes with i) * P(I finish with at least i + 1 | option):
the opponent's final-score pmf comes from the exact forward pass (distribution.final_pmf), my
probabilities from the target table, for every need at once (dp.target_vectors). A tie (equal final
scores) counts as not winning. Exact when the opponent's card is full; otherwise it is the usual
rule of playing against the opponent's distribution as if it were fixed (the opponent does not
react to me because it plays for the mean), not the exact two-player optimum (about 2^48 states).

Needs beyond the target table's reach (more than N points above my card) count as unreachable, so
an opponent score above my points + N counts as a loss: a lower bound, off by at most
P(opponent finishes above my points + N).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import erf
from pathlib import Path

import numpy as np

from ..advice.advisor import Advisor, Option
from ..advice.cards import Card
from ..dp.forward import forward_pmf
from ..dp.target_vectors import target_keep_vectors
from ..errors import KniffelError
from ..rules.variant import Variant
from ..store.bounded_cache import BoundedCache
from ..store.expected_play_cache import cached_rest, store_rest, values_digest
from ..store.target_layers import next_tables, state_column
from .distribution import final_pmf, p_at_least
from .targets import TargetTable

VERSUS_DEFAULT_PAIRS = 200  # simulate --versus without -n
VECTOR_CACHE_BYTES = 512 * 2**20  # my turns' keep vectors kept by simulate --versus (up to ~3 MB a state)
# simulate --versus: the opponent's exact pmf (forward pass) once it has at most this many boxes left;
# earlier, a forward pass costs seconds to minutes per state (29 s from one filled yatzy box on the
# loaded test machine), so a discretised normal with the exact mean and standard deviation stands in
EXACT_LEFT = 5
WIN_TIE = 1e-9  # win probabilities closer than this count as equal (then the higher expected score first)


class OpponentError(KniffelError):
    """An opponent request that cannot be answered."""


def probability_expected_play(
    variant: Variant, values: np.ndarray, card: Card, target: int, directory: Path | None = None
) -> float:
    """P(final score >= target) when the rest of the game is played for the maximum expected score
    (the exact distribution of the forward pass; cached per state in `directory` when given)."""
    if directory is None or card.full:
        pmf = final_pmf(variant, values, card)
    else:
        pmf = np.concatenate([np.zeros(card.points), rest_pmf(variant, values, card, directory)])
    return p_at_least(pmf, target)


def rest_pmf(variant: Variant, values: np.ndarray, card: Card, directory: Path, engine=None) -> np.ndarray:
    """The pmf of the points still to come from `card` (not full) under max-expected play, from the
    disk cache of expected_play_cache or by the forward pass (then cached)."""
    digest = values_digest(values)
    rest = cached_rest(variant, directory, digest, card.state)
    if rest is None:
        rest = final_pmf(variant, values, card, engine)[card.points :]  # checks the card, Kniffel 7
        store_rest(variant, directory, digest, card.state, rest, _table_file_sha256(variant, directory, digest))
    return rest


def _table_file_sha256(variant: Variant, directory: Path, digest: str) -> str | None:
    """The value table file's checksum (its sidecar's) when that file holds exactly the values of
    `digest`, else None (target_quick trusts the cache only for the table on disk)."""
    from ..store.tables import TableError, load

    try:
        on_disk, meta = load(variant, directory)  # every check of a table load (files.open_regular among them)
    except TableError:
        return None
    return meta["sha256"] if values_digest(on_disk) == digest else None


def check_opponent(card: Card, opponent: Card) -> None:
    if card.full:
        raise OpponentError("the card is full: the game is over, there is nothing to advise")
    if opponent.variant != card.variant:
        raise OpponentError(
            f"the opponent's card is a {opponent.variant.name} card, yours is {card.variant.name}: "
            "both play the same variant"
        )


# -- my side: P(reaching every need) ----------------------------------------------------------------
def state_vector(table: TargetTable, card: Card) -> np.ndarray:
    """P(at least n more points) from `card` at the start of a turn, n = 1..L (0 beyond L)."""
    if card.full:
        return np.zeros(0)
    mask, upper, joker_scored = card.state
    if table.layout.col[table.layout.row[mask, joker_scored], upper] < 0:
        raise OpponentError(f"the card {card.format()!r} cannot occur under the rules of {table.variant.name}")
    return np.asarray(state_column(table.engine, table.layout, table.flat, mask, upper, joker_scored), np.float64)


def turn_vectors(table: TargetTable, card: Card) -> tuple[np.ndarray, np.ndarray]:
    """(after roll 2, after roll 1): (K, L) probabilities of reaching every need, per keep."""
    mask, upper, joker_scored = card.state
    flat, layout = next_tables(table.engine, table.layout, table.flat, mask, upper, joker_scored)
    return target_keep_vectors(table.engine, layout, flat, mask, upper, joker_scored)


def win_values(opponent_pmf: np.ndarray, points: int, vectors: np.ndarray) -> np.ndarray:
    """P(my final > opponent's final) for each row of `vectors` (P(at least n more), n = 1..L) when I
    have `points` now: opponent scores below `points` are beaten for sure, score i needs i + 1 - points."""
    beaten = float(opponent_pmf[:points].sum())
    seg = opponent_pmf[points : points + vectors.shape[-1]]
    return beaten + vectors[..., : seg.shape[0]] @ seg


def win_probability(opponent_pmf: np.ndarray, card: Card, table: TargetTable) -> float:
    """P(I beat the opponent) from `card` at the start of a turn (or full), playing to win."""
    return float(win_values(opponent_pmf, card.points, state_vector(table, card)))


# -- advise --opponent ------------------------------------------------------------------------------
@dataclass(frozen=True)
class WinOption:
    option: Option
    win: float  # P(finishing above the opponent), a tie is not a win

    def as_dict(self, variant: Variant) -> dict:
        return {**self.option.as_dict(variant), "win": self.win}


def _rank(options: list[WinOption]) -> list[WinOption]:
    """By win probability; within WIN_TIE of each other by expected final score."""
    return sorted(options, key=lambda o: (-round(o.win / WIN_TIE), -o.option.expected_final_score))


_REST_PMFS: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}  # (variant, state) -> (values, pmf of points to come)
_REST_PMFS_MAX = 256


def opponent_pmf(
    variant: Variant, values: np.ndarray, opponent: Card, engine=None, directory: Path | None = None
) -> np.ndarray:
    """The opponent's final-score pmf under max-expected play (a point mass for a full card).

    The forward pass (seconds from an early card) runs once per opponent state and value table in a
    process (and once at all with a cache `directory`): the points still to come do not depend on
    the points on the card, which only shift them."""
    if opponent.full:
        return final_pmf(variant, values, opponent)
    key = (variant, opponent.state)
    cached = _REST_PMFS.get(key)
    if cached is None or cached[0] is not values:
        if len(_REST_PMFS) >= _REST_PMFS_MAX:
            _REST_PMFS.clear()
        if directory is None:
            rest = final_pmf(variant, values, opponent, engine)[opponent.points :]  # checks the card, Kniffel 7
        else:
            rest = rest_pmf(variant, values, opponent, directory, engine)
        cached = _REST_PMFS[key] = (values, rest)
    return np.concatenate([np.zeros(opponent.points), cached[1]])


def opponent_options(
    variant: Variant,
    table: TargetTable,
    advisor: Advisor,
    card: Card,
    dice,
    roll: int,
    opp_pmf: np.ndarray,
    box_now: bool = False,
) -> tuple[str, list[WinOption]]:
    """('keep' or 'box', every option ranked by the probability of beating the opponent)."""
    action, options = advisor.advise(card, dice, roll, box_now)
    if action == "box":
        ranked = []
        for o in options:
            after = card.with_entry(o.box, o.points, o.extra)
            ranked.append(WinOption(o, win_probability(opp_pmf, after, table)))
        return action, _rank(ranked)
    after_second, after_first = turn_vectors(table, card)
    wins = win_values(opp_pmf, card.points, after_first if roll == 1 else after_second)
    ranked = [WinOption(o, float(wins[advisor.keep_index[_counts(variant, o.keep)]])) for o in options]
    return action, _rank(ranked)


def _counts(variant: Variant, dice) -> tuple[int, ...]:
    return tuple(sum(1 for d in dice if d == f) for f in variant.faces)


# -- simulate --versus ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Versus:
    pairs: int
    wins: int
    ties: int
    losses: int
    seed: int

    @property
    def win_rate(self) -> float:
        """Ties counted half."""
        return (self.wins + 0.5 * self.ties) / self.pairs

    @property
    def stderr(self) -> float:
        outcomes = np.array([1.0] * self.wins + [0.5] * self.ties + [0.0] * self.losses)
        return float(outcomes.std(ddof=1) / np.sqrt(self.pairs)) if self.pairs > 1 else float("nan")

    @property
    def h2h(self) -> float:
        """Wins / (wins + losses): ties left out, as the published head-to-head figure counts."""
        decided = self.wins + self.losses
        return self.wins / decided if decided else float("nan")

    @property
    def h2h_stderr(self) -> float:
        decided = self.wins + self.losses
        p = self.h2h
        return float(np.sqrt(p * (1 - p) / decided)) if decided else float("nan")

    def as_dict(self) -> dict:
        return {
            "pairs": self.pairs,
            "seed": self.seed,
            "wins": self.wins,
            "ties": self.ties,
            "losses": self.losses,
            "win_rate": self.win_rate,
            "stderr": self.stderr,
            "h2h": self.h2h,
            "h2h_stderr": self.h2h_stderr,
        }


def _roll(rng, faces, n: int) -> tuple[int, ...]:
    return tuple(int(x) for x in rng.choice(faces, n))


def _play_turn(variant, advisor, card, rng, choose_keep, choose_box) -> Card:
    """One turn: choose_keep(dice, roll) -> kept faces, choose_box(dice, roll) -> the card after (roll 1: the
    turn stopped after roll 1, entries with first-roll points where the variant has them)."""
    n_dice = variant.n_dice
    dice = tuple(sorted(_roll(rng, variant.faces, n_dice)))
    for roll in (1, 2):
        kept = choose_keep(dice, roll)
        if len(kept) == n_dice:
            return choose_box(dice, roll)
        dice = tuple(sorted(kept + _roll(rng, variant.faces, n_dice - len(kept))))
    return choose_box(dice, 3)


def _expected_turn(variant, advisor: Advisor, card: Card, rng) -> Card:
    """The max-expected player's turn: the advisor's first option each time (best_action: its turn is
    computed once and looked up at the next roll)."""
    first_roll_box = variant.has_first_roll_points  # an entry after roll 1 scores otherwise: advise's way

    def keep(dice, roll):
        return advisor.best_action(card, dice, roll).keep

    def box(dice, roll):
        o = (
            advisor.box_options(card, dice, 1)[0]
            if roll == 1 and first_roll_box
            else advisor.best_action(card, dice, 3)
        )
        return card.with_entry(o.box, o.points, o.extra)

    return _play_turn(variant, advisor, card, rng, keep, box)


def _win_turn(variant, table, advisor, card, opp_pmf, rng, vector_cache) -> Card:
    """My turn, each decision maximising P(beating the opponent's final score) (ties in that
    probability: the option the advisor ranks first, i.e. the higher expected score)."""
    key = card.state
    if key not in vector_cache:
        vector_cache[key] = turn_vectors(table, card)
    after_second, after_first = vector_cache[key]
    # P(win) per keep-lattice index, as Python floats: read a few dozen times a decision
    by_roll = {
        1: win_values(opp_pmf, card.points, after_first).tolist(),
        2: win_values(opp_pmf, card.points, after_second).tolist(),
    }

    def keep(dice, roll):
        wins = by_roll[roll]
        best, best_p_win = -1, -1.0
        for k in advisor.ranked_keeps(card, dice, roll):  # by expected score: ties go to the better one
            p_win = wins[k]
            if p_win > best_p_win + WIN_TIE:
                best, best_p_win = k, p_win
        return advisor.keep_faces(best)

    def box(dice, roll):
        best_card, best_p_win = None, -1.0
        for o in advisor.box_options(card, dice, roll):
            after = card.with_entry(o.box, o.points, o.extra)
            p_win = win_probability(opp_pmf, after, table)
            if p_win > best_p_win + WIN_TIE:
                best_card, best_p_win = after, p_win
        assert best_card is not None
        return best_card

    return _play_turn(variant, advisor, card, rng, keep, box)


def simulate_versus(
    variant: Variant,
    values: np.ndarray,
    table: TargetTable,
    advisor: Advisor,
    pairs: int,
    seed: int = 0,
    progress=None,
    m2: np.ndarray | None = None,
    exact_left: int = EXACT_LEFT,
) -> Versus:
    """`pairs` games of the win strategy (me) against a max-expected player, independent dice. Each
    round the opponent plays first; at the start of my turn I take the opponent's final-score pmf from
    its card: exact (forward pass, cached per opponent state within the run, shifted by its points)
    when it has at most `exact_left` boxes left or `m2` is None, else a discretised normal with the
    exact mean (values) and second moment (m2, the second moments the solve saves beside the table)."""
    my_rng = np.random.default_rng([seed, 1])
    opp_rng = np.random.default_rng([seed, 2])
    engine = table.engine
    pmf_cache: dict = {}
    vector_cache = BoundedCache(VECTOR_CACHE_BYTES)
    wins = ties = losses = 0
    for _ in range(pairs):
        me, opp = Card(variant), Card(variant)
        while not me.full:
            opp = _expected_turn(variant, advisor, opp, opp_rng)
            pmf = _opponent_final(engine, values, opp, pmf_cache, m2, exact_left)
            me = _win_turn(variant, table, advisor, me, pmf, my_rng, vector_cache)
        wins += me.points > opp.points
        ties += me.points == opp.points
        losses += me.points < opp.points
        if progress is not None:
            progress(1)
    return Versus(pairs, wins, ties, losses, seed)


def _opponent_final(engine, values, opp: Card, cache: dict, m2=None, exact_left: int = EXACT_LEFT) -> np.ndarray:
    if opp.full:
        pmf = np.zeros(opp.points + 1)
        pmf[opp.points] = 1.0
        return pmf
    key = opp.state
    if key not in cache:
        if len(cache) > 50_000:
            cache.clear()
        if m2 is None or len(opp.variant.boxes) - len(opp.filled) <= exact_left:
            cache[key] = forward_pmf(engine, values, *key, 0)  # the points still to come
        else:
            cache[key] = normal_pmf(float(values[key]), float(m2[key]))
    rest = cache[key]
    return np.concatenate([np.zeros(opp.points), rest])


def normal_pmf(mean: float, second_moment: float) -> np.ndarray:
    """A normal with this mean and second moment, discretised to the integers 0 .. mean + 6 sd."""
    sd = max(np.sqrt(max(second_moment - mean * mean, 0.0)), 1e-9)
    edges = (np.arange(int(mean + 6 * sd) + 2) - 0.5 - mean) / (sd * np.sqrt(2.0))
    cdf = 0.5 * (1.0 + np.array([erf(x) for x in edges]))
    pmf = np.diff(cdf)
    return pmf / pmf.sum()
