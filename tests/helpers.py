"""Helpers shared by the tests (no test module imports another): brute-force advice from a table."""

import itertools
import signal
from functools import cache, lru_cache
from math import factorial

import numpy as np
import pytest
from naive import NaiveSolver

from solver.advice.advisor import TIE
from solver.advice.cards import Card, box_values
from solver.dp.states import layer_items
from solver.rules.presets import PRESETS

# the first words of every error line, in each language (cli/streams.py error_line, from the catalogues)
ERROR_PREFIX = {
    "de": "kniffel: Fehler: ",
    "en": "kniffel: error: ",
    "es": "kniffel: error: ",
    "fr": "kniffel: erreur : ",
}
NAIVE_NAME = {"kniffel-keep-one": "kniffel"}  # the naive solver takes the house rule as keep_one=


def quick_only(cases, quick):
    """Parameters: a case (a preset's name, or a tuple that starts with one) of a preset in `quick` runs in the
    quick suite, the others (whole tables of larger presets solved for them) only in the slow one (-m slow)."""
    params = []
    for case in cases:
        args = case if isinstance(case, tuple) else (case,)
        params.append(case if args[0] in quick else pytest.param(*args, marks=pytest.mark.slow))
    return params


def random_card(variant, rng, n_filled):
    card = Card(variant)
    for b in rng.sample(range(len(variant.boxes)), n_filled):
        card.filled[b] = rng.choice(box_values(variant, b))
    if variant.joker_box and variant.joker_index in card.filled and rng.random() < 0.5:
        card.filled[variant.joker_index] = max(box_values(variant, variant.joker_index))
    return card


class BruteForce:
    """Expected final scores by plain enumeration: the naive rules for entries, the table for the rest."""

    def __init__(self, name, values, card):
        self.v = PRESETS[name]
        self.values = values
        self.card = card
        self.naive = NaiveSolver(NAIVE_NAME.get(name, name))
        self.filled = {self.v.boxes[b].key: p for b, p in card.filled.items()}
        self.final_value = lru_cache(maxsize=None)(self._final_value)
        self.after_second = lru_cache(maxsize=None)(self._after_second)

    def entries(self, dice):
        """Entries of a final roll. The advisor leaves out a 0 in a box the roll fits (free
        scratching allows it, but scoring the box is never worse), so the naive list is thinned alike."""
        out = {}
        options = self.naive.final_options(self.filled, dice)
        scored = {key for key, pts, _ in options if pts > 0}
        for key, pts, extra in options:
            if pts == 0 and key in scored:
                continue
            after = self.card.with_entry(self.v.box_index(key), pts, extra)
            out[(key, pts)] = after.points + float(self.values[after.state])
        return out

    def _final_value(self, dice):
        return max(self.entries(dice).values())

    def outcomes(self, kept):
        """Rolls after rerolling the other dice, with their chances (multinomial counting)."""
        n = self.v.n_dice - len(kept)
        faces = self.v.faces
        for rest in itertools.combinations_with_replacement(faces, n):
            ways = factorial(n)
            for f in set(rest):
                ways //= factorial(rest.count(f))
            yield tuple(sorted(kept + rest)), ways / len(faces) ** n

    def keep_value_after_second(self, kept):
        return self._after_second_keep(tuple(sorted(kept)))

    @cache  # noqa: B019 (one short-lived object per test)
    def _after_second_keep(self, kept):
        return sum(p * self.final_value(d) for d, p in self.outcomes(kept))

    def _after_second(self, dice):
        """Value of a roll shown after roll 2: best keep (at least min_keep dice) or stop."""
        best = self.final_value(dice)
        for kept in sub_multisets(dice):
            if len(kept) >= self.v.min_keep_last_reroll and len(kept) < len(dice):
                best = max(best, self.keep_value_after_second(kept))
        return best

    def keep_value_after_first(self, kept):
        return sum(p * self.after_second(d) for d, p in self.outcomes(tuple(sorted(kept))))


def ctrl_c_as_at_a_terminal() -> None:
    """In the child before it starts (preexec_fn): SIGINT as a terminal delivers it. A test run started in the
    background (or by pytest-xdist) ignores SIGINT, and children inherit that, so Ctrl-C would do nothing."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def tie_rule_keep(options):
    """The advisor's keep options (dice told apart) under the tie rule of tests/naive.py: within TIE of the best,
    most dice kept, then the smallest tuple of kept die indices."""
    best = max(o.expected_final_score for o in options)
    tied = [o.keep_dice for o in options if o.expected_final_score >= best - TIE]
    return min(tied, key=lambda dice: (-len(dice), dice))


def tie_rule_box(options):
    """The advisor's box options under the tie rule: within TIE of the best, the first box."""
    best = max(o.expected_final_score for o in options)
    return min(o.box for o in options if o.expected_final_score >= best - TIE)


def sub_multisets(dice):
    seen = set()
    for r in range(len(dice) + 1):
        for combo in itertools.combinations(sorted(dice), r):
            if combo not in seen:
                seen.add(combo)
                yield combo


def child_env(**env):
    """A bare environment for a child process (a player's terminal), on this run's Numba cache folder: without
    it the child would compile every kernel again into the user's own cache folder."""
    import os

    import solver  # noqa: F401  (numba_setup puts the chosen cache folder into the environment)

    return {**env, "NUMBA_CACHE_DIR": os.environ["NUMBA_CACHE_DIR"]}


# -- layer-parallel builds (tests/test_jobs*.py): a variant small enough for many chunks in seconds ------------
JOB_VARIANT = PRESETS["kniffel"].reduced(boxes=["ones", "sixes", "kniffel", "chance", "full_house"], n_dice=3)
JOB_N = 40  # target tables: needs up to 40 (the most is 70)


def in_process_tables(variant, n_max):
    """The in-process builds: (values, second moments), (flat target table, layout)."""
    from solver import dp
    from solver.dp.target import solve_target
    from solver.dp.target_layout import item_lengths, target_layout

    values, m2, _ = dp.solve_with_moments(variant)
    engine = dp.make_engine(variant)
    layout = target_layout(engine, n_max, item_lengths(engine, n_max))
    return (values, m2), (solve_target(engine, layout), layout)


def same_bits(a, b) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def items_cut(job, engine) -> bool:
    """Whether a chunk of a target-table job starts inside a work item (at one of its later upper totals)."""
    for layer in job.plan:
        masks, jokers_scored = layer_items(engine.variant, layer["filled"])
        starts = set(np.cumsum(np.diff(engine.upper.totals_ptr)[engine.upper.row[masks, jokers_scored]]).tolist())
        if any(first > 0 and first not in starts for first, _, _ in layer["chunks"]):
            return True
    return False


def kniffel_process(*args, env=None, input=None, timeout=300):
    """The installed `kniffel` command as a process of its own (bytes in, bytes out: args may be bytes that are
    not UTF-8), on this run's Numba cache folder."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    exe = Path(sys.executable).with_name("kniffel")
    environ = {**os.environ, **child_env(**(env or {}))}
    return subprocess.run([exe, *args], env=environ, input=input, capture_output=True, timeout=timeout)


def spawn(kdir, tmp_path, *args, env=None):
    """`kniffel play ARGS` in a pseudo-terminal (pexpect), as a player's terminal, saving to tmp_path/g.json."""
    import sys
    from pathlib import Path

    import pexpect

    base = child_env(LANG="C.UTF-8", LC_ALL="", LC_MESSAGES="", PATH="/usr/bin:/bin", TERM="xterm")
    return pexpect.spawn(
        str(Path(sys.executable).parent / "kniffel"),
        ["--tables", str(kdir), "--no-progress", "play", *args, "--save", str(tmp_path / "g.json"), "--force"],
        env={**base, **(env or {})},
        encoding="utf-8",
        timeout=120,
        dimensions=(40, 110),
    )
