"""Two ways to run the same kernels, checked against each other:

* the one-column final-roll values (_final_roll_values_one, advice's path) equal the many-column loop
  (the solve's path) bit for bit, on random value tables of every preset;
* KNIFFEL_JIT=0 (plain Python, no Numba: a quick single answer in a fresh process) gives the same
  advice and second moments as the compiled kernels.

Random value tables suffice: both sides read the same table, and every state is then "reachable"."""

import json
import os
import random
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from solver import dp
from solver.advice.advisor import Advisor
from solver.advice.cards import Card, box_values
from solver.dp.entries import _final_roll_values
from solver.dp.moments import turn_moments
from solver.rules.presets import PRESETS

IDENTICAL = ["kniffel", "kniffel-keep-one", "kniffel-meister", "yahtzee", "yahtzee-free-joker", "yatzy", "yatzy6"]


def random_table(variant, seed):
    return np.random.default_rng(seed).uniform(0.0, 300.0, dp.table_shape(variant))


@pytest.mark.parametrize("name", [*IDENTICAL, "kniffel7"])
def test_one_column_equals_many_columns(name):
    v = PRESETS[name]
    engine = dp.make_engine(v, allow_slow=True)
    values = random_table(v, 1)
    rng = random.Random(2)
    n_rolls = engine.rules.score.shape[0]
    n_masks, n_upper, n_flag = values.shape
    for _ in range(60):
        mask, upper, joker_scored = rng.randrange(n_masks - 1), rng.randrange(n_upper), rng.randrange(n_flag)
        one, two = np.empty((n_rolls, 1)), np.empty((n_rolls, 2))
        _final_roll_values(mask, joker_scored, np.array([upper]), engine.rules, values, one, 0)
        _final_roll_values(mask, joker_scored, np.array([upper, upper]), engine.rules, values, two, 0)
        same = np.array_equal(one[:, 0], two[:, 0]) and np.array_equal(one[:, 0], two[:, 1])
        assert same, (mask, upper, joker_scored)


def situations(variant, seed, n):
    """Random cards (joker boxes often holding points) with dice (some all equal) and rolls 1-3."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        card = Card(variant)
        for b in rng.sample(range(len(variant.boxes)), rng.randrange(0, len(variant.boxes) - 1)):
            card.filled[b] = rng.choice(box_values(variant, b))
        if variant.joker_box and rng.random() < 0.6:
            card.filled[variant.joker_index] = max(box_values(variant, variant.joker_index))
        face = rng.choice(variant.faces)
        dice = [face] * variant.n_dice if rng.random() < 0.3 else [rng.choice(variant.faces) for _ in variant.dice]
        out.append((card.filled, dice, rng.randint(1, 3)))
    return out


ANSWER = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    from solver import dp
    from solver.advice.advisor import Advisor
    from solver.advice.cards import Card
    from solver.dp.moments import turn_moments
    from solver.rules.presets import PRESETS

    name, values_path, m2_path, situations = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
    v, values, m2 = PRESETS[name], np.load(values_path), np.load(m2_path)
    adv = Advisor(v, values)
    out = []
    for filled, dice, roll in situations:
        card = Card(v, {int(b): p for b, p in filled.items()})
        action, options = adv.advise(card, tuple(dice), roll)
        second, first = turn_moments(adv.engine, values, m2, *card.state)
        best = vars(adv.best_action(card, tuple(dice), roll))  # best_one: the pool of turns, views of the buffers
        out.append([action, [[o.text, o.expected_final_score] for o in options], second.tolist(), first.tolist(), best])
    print(json.dumps({"numba_loaded": "numba" in sys.modules, "answers": out}))
    """
)


@pytest.mark.parametrize("name", ["kniffel", "yahtzee"])
def test_interpreted_kernels_answer_like_compiled(name, tmp_path):
    v = PRESETS[name]
    values, m2 = random_table(v, 3), random_table(v, 4) ** 2
    np.save(tmp_path / "values.npy", values)
    np.save(tmp_path / "m2.npy", m2)
    sits = situations(v, 5, 6)
    env = {**os.environ, "KNIFFEL_JIT": "0"}
    args = [name, str(tmp_path / "values.npy"), str(tmp_path / "m2.npy"), json.dumps(sits)]
    run = subprocess.run([sys.executable, "-c", ANSWER, *args], env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    got = json.loads(run.stdout)
    assert not got["numba_loaded"]
    adv = Advisor(v, values)
    for (filled, dice, roll), (action, options, second, first, best) in zip(sits, got["answers"]):
        card = Card(v, dict(filled))
        want_action, want = adv.advise(card, tuple(dice), roll)
        assert action == want_action
        assert options == [[o.text, o.expected_final_score] for o in want]
        want_second, want_first = turn_moments(adv.engine, values, m2, *card.state)
        assert second == want_second.tolist() and first == want_first.tolist()
        assert best == json.loads(json.dumps(vars(adv.best_action(card, tuple(dice), roll))))  # tuples as lists


def test_interpreted_kernels_refuse_heavy_work():
    code = "import solver.dp as dp; from solver.rules.presets import PRESETS; dp.solve(PRESETS['yatzy'])"
    env = {**os.environ, "KNIFFEL_JIT": "0"}
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode != 0 and "KNIFFEL_JIT=0" in run.stderr


@pytest.mark.parametrize("command", [["solve", "kniffel"], ["value", "kniffel"]])
def test_interpreted_kernels_refuse_a_solve_before_announcing_it(command, tmp_path):
    """KNIFFEL_JIT=0 and no table: one line refusing, no wait estimate or "it will be computed" first."""
    env = {**os.environ, "KNIFFEL_JIT": "0", "KNIFFEL_TABLES": str(tmp_path)}
    args = [sys.executable, "-m", "solver.cli", "--lang", "en", "--tables", str(tmp_path), *command]
    run = subprocess.run(args, env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and run.stderr.count("\n") == 1 and "KNIFFEL_JIT=0" in run.stderr, run.stderr


@pytest.mark.parametrize(
    "command", [["chances", "kniffel", "--target", "200"], ["simulate", "kniffel", "--target", "200"]]
)
def test_interpreted_kernels_refuse_a_target_build_before_announcing_it(command, tables_of):
    """KNIFFEL_JIT=0, a value table but no target table: one line refusing, not hours of interpreted build."""
    folder = tables_of("kniffel")
    env = {**os.environ, "KNIFFEL_JIT": "0"}
    args = [sys.executable, "-m", "solver.cli", "--lang", "en", "--tables", str(folder), *command]
    run = subprocess.run(args, env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and run.stderr.count("\n") == 1 and "target table" in run.stderr, run.stderr
    assert "KNIFFEL_JIT=0" in run.stderr and not (folder / "kniffel.target.npy").exists()


def test_interpret_switches_before_the_kernels_load():
    code = (
        "import sys; from solver import numba_setup; assert numba_setup.interpret(); import solver.dp; "
        "assert 'numba' not in sys.modules; assert numba_setup.interpret()"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    code = "from solver import numba_setup; import solver.dp; assert not numba_setup.interpret()"
    env = {k: v for k, v in os.environ.items() if k != "KNIFFEL_JIT"}
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr


THREADS = textwrap.dedent(
    """
    import json, sys, threading
    import numpy as np
    from solver.advice.advisor import Advisor
    from solver.advice.cards import Card
    from solver.rules.presets import PRESETS

    name, values_path, situations = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    v, values = PRESETS[name], np.load(values_path)
    cards = [(Card(v, {int(b): p for b, p in filled.items()}), tuple(dice), roll) for filled, dice, roll in situations]
    want = [vars(Advisor(v, values).best_action(*c)) for c in cards]  # one at a time
    shared = Advisor(v, values)
    sys.setswitchinterval(1e-6)  # threads switch often: a race shows within a few calls
    wrong = []

    def ask(seed):
        for i in np.random.default_rng(seed).integers(0, len(cards), 20):
            if vars(shared.best_action(*cards[i])) != want[i]:
                wrong.append(situations[i])

    threads = [threading.Thread(target=ask, args=(seed,)) for seed in range(6)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    print(json.dumps({"numba_loaded": "numba" in sys.modules, "wrong": wrong}))
    """
)


def test_interpreted_best_action_is_right_from_many_threads(tmp_path):
    """best_one's pool of remembered turns is claimed and filled within one kernel call: compiled, that call holds the
    GIL; interpreted, another thread can claim the same slot meanwhile (wrong answers, before calls were serialized)."""
    v = PRESETS["kniffel"]
    np.save(tmp_path / "values.npy", random_table(v, 6))
    sits = [s for s in situations(v, 7, 24) if s[2] in (1, 2)]
    env = {**os.environ, "KNIFFEL_JIT": "0"}
    args = ["kniffel", str(tmp_path / "values.npy"), json.dumps(sits)]
    run = subprocess.run([sys.executable, "-c", THREADS, *args], env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    got = json.loads(run.stdout)
    assert not got["numba_loaded"] and got["wrong"] == []
