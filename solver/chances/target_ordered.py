"""Target play for Kniffel 7 (dice told apart) from one card, exactly, on demand.

A whole target table for seven different dice is a cluster job; the end game needs only the states
reachable from the card and, in each, the needs reachable from the target. This driver lists them
(forward from the card), then runs the target turn kernel (solver/dp/ordered_target.py) layer by layer
from the last, 8 columns a call, on as many threads as Numba uses.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..dp.compile import thread_count
from ..dp.engine import Engine
from ..dp.entries import _box_options
from ..dp.ordered import ORDERED_COLUMNS
from ..dp.ordered_layer import on_threads, ordered_work
from ..dp.ordered_target import SECONDS_PER_COLUMN, TargetStates, target_calls
from ..dp.rules import P_CAP, P_EXTRA

State = tuple[int, int, int]  # (mask, capped upper total, joker_scored)


class Plan(NamedTuple):
    """What the computation from one card needs: the reachable states layer by layer (the card's first),
    each state's successors (next state, points gained with the bonus), the most each can still score,
    and the needs to compute in each."""

    layers: list[list[State]]
    successors: dict[State, list[tuple[State, np.ndarray]]]
    most: dict[State, int]
    needs: dict[State, np.ndarray]

    @property
    def columns(self) -> int:
        return sum(len(n) for n in self.needs.values())

    def seconds(self, threads: int) -> float:
        """The estimated wall-clock time on `threads` cores."""
        return self.columns * SECONDS_PER_COLUMN / max(threads, 1)


def _entry_gains(engine: Engine, mask: int, joker_scored: int) -> np.ndarray:
    """(n, 2): every distinct (move, points) entry some final roll allows in (mask, joker_scored), extra
    points of a further joker included."""
    rules = engine.rules
    n_rolls, n_boxes = rules.score.shape
    moves = np.empty((n_rolls, n_boxes), dtype=np.int64)
    points = np.empty((n_rolls, n_boxes), dtype=np.int64)
    n_options = np.empty(n_rolls, dtype=np.int64)
    _box_options(mask, joker_scored, rules, moves, points, n_options)
    extra = np.where((joker_scored == 1) & rules.joker_roll, int(rules.params[P_EXTRA]), 0)
    free = np.array([b for b in range(n_boxes) if not mask >> b & 1], dtype=np.int64)
    implicit = np.flatnonzero(n_options < 0)
    pairs = [
        np.stack(
            [
                rules.norm_move[implicit][:, free].ravel(),
                (rules.score[implicit][:, free] + extra[implicit, None]).ravel(),
            ]
        )
    ]
    for r in np.flatnonzero(n_options > 0):
        pairs.append(np.stack([moves[r, : n_options[r]], points[r, : n_options[r]] + extra[r]]))
    return np.unique(np.concatenate(pairs, axis=1), axis=1).T


def plan(engine: Engine, start: State, needs: np.ndarray) -> Plan:
    """The states reachable from `start`, the most each can still score, and the needs reachable from
    `needs` (at the start) in each, beyond which nothing is computed: needs <= 0 are certain, needs above
    a state's most are impossible."""
    rules = engine.rules
    cap = int(rules.params[P_CAP])
    n_boxes = rules.score.shape[1]
    full = (1 << n_boxes) - 1
    layers: list[list[State]] = [[start]]
    successors: dict[State, list[tuple[State, np.ndarray]]] = {}
    gains_of: dict[tuple[int, int], np.ndarray] = {}
    while layers[-1][0][0] != full:
        nxt: dict[State, None] = {}
        for state in layers[-1]:
            mask, upper, flag = state
            key = (mask, flag)
            if key not in gains_of:
                gains_of[key] = _entry_gains(engine, mask, flag)
            by_next: dict[State, list[int]] = {}
            for m, g in gains_of[key]:
                nu = min(upper + int(rules.move_inc[m]), cap)
                nflag = flag if rules.move_flag[m] < 0 else int(rules.move_flag[m])
                after = (mask | 1 << int(rules.move_box[m]), nu, nflag)
                by_next.setdefault(after, []).append(int(g) + int(rules.bonus_cum[nu] - rules.bonus_cum[upper]))
                nxt[after] = None
            successors[state] = [(s, np.unique(g)) for s, g in by_next.items()]
        layers.append(list(nxt))
    layers.pop()  # the full cards: nothing more to score
    most: dict[State, int] = {}
    for layer in reversed(layers):
        for state in layer:
            most[state] = max(int(g.max()) + most.get(s, 0) for s, g in successors[state])
    reach = {start: np.zeros(most[start] + 1, dtype=bool)}
    reach[start][needs[(needs >= 1) & (needs <= most[start])]] = True
    planned: dict[State, np.ndarray] = {}
    for layer in layers:
        for state in layer:
            here = planned[state] = np.flatnonzero(reach.pop(state)) if state in reach else np.zeros(0, np.int64)
            for s, gained in successors[state]:
                if s[0] == full or here.size == 0:
                    continue
                after = (here[:, None] - gained[None, :]).ravel()
                if s not in reach:
                    reach[s] = np.zeros(most[s] + 1, dtype=bool)
                reach[s][after[(after >= 1) & (after <= most[s])]] = True
    return Plan(layers, successors, most, planned)


class OrderedTargets(NamedTuple):
    """The probabilities computed from one card: P(at least n more points) of every planned (state, need)."""

    engine: Engine
    plan: Plan
    number: dict[State, int]  # each state's row in states
    states: TargetStates

    def probability(self, state: State, need: int) -> float:
        """P(scoring at least `need` more points) from `state` at the start of a turn, playing for it."""
        if need <= 0:
            return 1.0
        if state[0] == (1 << self.engine.rules.score.shape[1]) - 1:
            return 0.0
        s = self.number[state]
        if need > self.states.length[s]:
            return 0.0
        p = float(self.states.prob[self.states.offset[s] + need - 1])
        if np.isnan(p):
            raise KeyError((state, need))  # not planned: a caller's mistake, never a silent figure
        return p

    def column(self, state: State) -> np.ndarray:
        """P(at least n more), n = 1..the most the state can score (NaN where the need was not planned)."""
        s = self.number[state]
        o = self.states.offset[s]
        return self.states.prob[o : o + self.states.length[s]]


def _arrays(engine: Engine, pl: Plan) -> tuple[dict[State, int], TargetStates]:
    cap = int(engine.rules.params[P_CAP])
    every = [s for layer in pl.layers for s in layer]
    index = {s: i for i, s in enumerate(every)}
    masks = sorted({s[0] for s in every})
    mask_row = np.full(1 << engine.rules.score.shape[1], -1, dtype=np.int64)
    mask_row[masks] = np.arange(len(masks))
    state_of = np.full((len(masks), cap + 1, 2), -1, dtype=np.int64)
    for s, i in index.items():
        state_of[mask_row[s[0]], s[1], s[2]] = i
    length = np.array([pl.most[s] for s in every], dtype=np.int64)
    offset = np.concatenate([[0], np.cumsum(length)[:-1]]).astype(np.int64)
    return index, TargetStates(mask_row, state_of, offset, length, np.full(int(length.sum()), np.nan))


def _layer_calls(pl: Plan, layer: list[State], index, states: TargetStates) -> tuple[np.ndarray, np.ndarray]:
    """The layer's columns packed into calls of 8 (the last padded with repeats, dest -1)."""
    rows, dest = [], []
    for state in sorted(layer, key=lambda s: (s[0], s[2], s[1])):  # runs of one (mask, flag): entries listed once
        n = pl.needs[state]
        rows.append(np.column_stack([np.repeat(np.array([state]), len(n), axis=0), n]))
        dest.append(states.offset[index[state]] + n - 1)
    cols = np.concatenate(rows).astype(np.int64) if rows else np.zeros((0, 4), np.int64)
    to = np.concatenate(dest).astype(np.int64) if dest else np.zeros(0, np.int64)
    n_calls = -(-len(cols) // ORDERED_COLUMNS)
    pad = n_calls * ORDERED_COLUMNS - len(cols)
    if pad:
        cols = np.concatenate([cols, np.repeat(cols[-1:], pad, axis=0)])
        to = np.concatenate([to, np.full(pad, -1, np.int64)])
    return cols.reshape(n_calls, ORDERED_COLUMNS, 4), to.reshape(n_calls, ORDERED_COLUMNS)


def compute(engine: Engine, pl: Plan, progress=None, threads: int | None = None) -> OrderedTargets:
    """Every planned (state, need) probability, last layer first; progress(columns) as calls finish."""
    index, states = _arrays(engine, pl)
    n_threads = threads or thread_count()
    work = [ordered_work(engine.ordered) for _ in range(n_threads)]
    for layer in reversed(pl.layers):
        cols, dest = _layer_calls(pl, layer, index, states)

        def run(a, b, w, cols=cols, dest=dest):
            target_calls(engine, cols[a:b], dest[a:b], states, w)
            if progress is not None:
                progress(int((dest[a:b] >= 0).sum()))

        on_threads(cols.shape[0], run, work)
    return OrderedTargets(engine, pl, index, states)
