"""Kniffel 7's answers to a target (dice told apart): `chances`, and a turn's options ranked for the target.

Exact, computed on demand from the card (target_ordered.py) when the estimate is a few minutes at most.
Beyond that, what is available: the probability under max-expected play (estimated by simulating games from
the card), and the target-optimal figure is left to the Kniffel 7 target table (a cluster job).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..advice.advisor import Advisor
from ..advice.cards import Card
from ..advice.ordered import OrderedAdvisor
from ..dp import make_engine
from ..dp.compile import thread_count
from ..dp.engine import Engine
from ..dp.ordered_target import target_keep_values
from ..i18n.texts import t as _t
from ..rules.variant import Variant
from .distribution import expected_play_at_least, max_score, pmf_work
from .simulation import batches
from .target_ordered import OrderedTargets, Plan, compute, plan
from .targets import Chances, TargetAdvice, TargetError, TargetOption, _rank

LIMIT_SECONDS = 180.0  # computed on demand up to this estimate (two cores): "a few minutes at most"
PLAN_MOST_FREE = 7  # cards with more free boxes are not even planned (the listing alone would take minutes)
SIMULATED_GAMES = 1000  # games simulated from a card under max-expected play (half a minute from the start)
EXACT_PASS_SECONDS = 30.0  # the exact distribution (its forward pass) up to this estimate, else simulated games

OnPlan = Callable[[Plan, float], Callable[[int], None] | None]  # (plan, estimate in s) -> progress(columns)

_ENGINES: dict[Variant, Engine] = {}
_DONE: dict[tuple, OrderedTargets] = {}  # the last computations of this process, by (variant, state, needs)
_ANSWERS: dict[tuple, dict] = {}  # the web's last chances: the page asks them twice (chances, advise's fallback)


def _engine(variant: Variant) -> Engine:
    if variant not in _ENGINES:
        _ENGINES[variant] = make_engine(variant, allow_slow=True)
    return _ENGINES[variant]


def check_card(variant: Variant, card: Card, target: int) -> None:
    """What no target answer covers: a full card, a target below 1 or above every final score."""
    if card.full:
        raise TargetError(_t("target_card_full"))
    if target < 1:
        raise TargetError(_t("target_at_least_one", target=target))
    if target > max_score(variant):  # else a simulated 0 % for what no game reaches
        raise TargetError(_t("target_above_any_score", target=target, variant=variant.name, most=max_score(variant)))


def targets_from(
    variant: Variant, card: Card, needs, on_plan: OnPlan | None = None, limit: float | None = None
) -> OrderedTargets | None:
    """The target probabilities from `card` for the needs `needs` (points still to score) at its start, exactly;
    None when that would take more than `limit` seconds (estimated; None: LIMIT_SECONDS). on_plan(plan,
    seconds) is told before the work and may return a progress function (columns done)."""
    needs = np.unique(np.asarray(needs, dtype=np.int64))
    key = (variant, card.state, needs.tobytes())
    if key in _DONE:
        return _DONE[key]
    if len(variant.boxes) - len(card.filled) > PLAN_MOST_FREE:
        return None
    engine = _engine(variant)
    pl = plan(engine, card.state, needs)
    seconds = pl.seconds(thread_count())
    if seconds > (LIMIT_SECONDS if limit is None else limit):  # read at the call: tests and the page change it
        return None
    progress = on_plan(pl, seconds) if on_plan is not None else None
    done = compute(engine, pl, progress)
    if len(_DONE) >= 4:
        _DONE.clear()
    _DONE[key] = done
    return done


def expected_play(
    variant: Variant, values: np.ndarray, card: Card, target: int, on_games=None, directory=None, simulate=True
) -> tuple[float | None, int | None, float | None]:
    """(P(final >= target), games, standard error) under max-expected play: exact from the distribution's forward
    pass (games and error None) when it takes at most EXACT_PASS_SECONDS (estimated), else estimated from
    SIMULATED_GAMES games from `card` (on_games(count), when given, returns a progress function), or with
    simulate=False (None, None, None)."""
    if pmf_work(variant, values, card, directory)[1] <= EXACT_PASS_SECONDS:
        return expected_play_at_least(variant, values, card, [target], directory)[0], None, None
    if not simulate:
        return None, None, None
    progress = on_games(SIMULATED_GAMES) if on_games is not None else None
    scores = np.concatenate([g.scores for g in batches(variant, values, SIMULATED_GAMES, 0, progress, card=card)])
    p = float((scores >= target).mean())
    return p, SIMULATED_GAMES, float(np.sqrt(p * (1 - p) / len(scores)))


def ordered_chances(
    variant: Variant,
    values: np.ndarray,
    card: Card,
    target: int,
    on_plan: OnPlan | None = None,
    on_games=None,
    directory=None,
    limit: float | None = None,
    found=None,
) -> Chances:
    """`chances` for dice told apart: exact where it fits one machine, with the exact chance under max-expected
    play beside it when its forward pass is quick; else that chance alone (estimated when the pass is not).
    found: the probabilities from the card when already at hand (ordered_job.JobTargets: a job's layers)."""
    check_card(variant, card, target)
    need = target - card.points
    found = targets_from(variant, card, [need], on_plan, limit) if found is None else found
    if found is not None:
        p_mean = expected_play(variant, values, card, target, directory=directory, simulate=False)[0]
        return Chances(variant.name, card.format(), target, found.probability(card.state, need), p_mean)
    p, games, stderr = expected_play(variant, values, card, target, on_games, directory)
    return Chances(variant.name, card.format(), target, None, p, games, stderr)


def ordered_target_options(
    advisor: Advisor, found: OrderedTargets, card: Card, dice, roll: int, target: int, box_now: bool = False
) -> tuple[str, list[TargetOption]]:
    """('keep' or 'box', every option ranked by the probability of finishing with at least `target`), as
    targets.target_options for identical dice; `found`: the probabilities from this card."""
    assert isinstance(advisor, OrderedAdvisor)
    action, options = advisor.advise(card, dice, roll, box_now)
    need = target - card.points
    if action == "box":
        ranked = []
        for o in options:
            after = card.with_entry(o.box, o.points, o.extra)
            ranked.append(TargetOption(o, found.probability(after.state, target - after.points)))
        return action, _rank(ranked)
    if need <= 0:
        return action, _rank([TargetOption(o, 1.0) for o in options])
    final, after_second, after_first = target_keep_values(found.engine, (*card.state, need), found.states)
    by_keep = after_first if roll == 1 else after_second
    ranked = []
    for o in options:
        if len(o.keep_dice) == advisor.variant.n_dice:
            p = final[advisor._roll_row(dice)]
        else:
            p = by_keep[advisor.partial_assignment(dice, o.keep_dice)]
        ranked.append(TargetOption(o, float(p)))
    return action, _rank(ranked)


def ordered_target_advice(
    advisor: Advisor,
    card: Card,
    dice,
    roll: int,
    target: int,
    box_now: bool = False,
    on_plan: OnPlan | None = None,
    limit: float | None = None,
    found=None,
) -> TargetAdvice | None:
    """`advise --target` for dice told apart (None: beyond `limit` seconds, see targets_from; found: as in
    ordered_chances)."""
    variant = advisor.variant
    assert isinstance(advisor, OrderedAdvisor)
    check_card(variant, card, target)
    found = targets_from(variant, card, [target - card.points], on_plan, limit) if found is None else found
    if found is None:
        return None
    action, options = ordered_target_options(advisor, found, card, dice, roll, target, box_now)
    then = None
    if action == "keep" and len(options[0].option.keep) == variant.n_dice:  # stopping: the box comes next
        then = ordered_target_options(advisor, found, card, dice, roll, target, box_now=True)[1][0]
    probability = found.probability(card.state, target - card.points)
    rolled = tuple(int(d) for d in dice)
    expected = advisor.expected_final(card)
    return TargetAdvice(variant, card, rolled, roll, target, action, probability, expected, options, then)


def target_answer(
    table, card: Card, dice, roll: int, target: int, box_now: bool, all_options: bool, limit: float, found=None
) -> dict:
    """The web API's `advise` with a target for dice told apart (table: the api.Table): the target advice's JSON;
    beyond `limit` seconds of work, the advice for the mean with the chances of the target under "target".
    found: as in ordered_chances (a job's layers: `serve --job-dir`)."""
    advice = ordered_target_advice(table.advisor, card, dice, roll, target, box_now, limit=limit, found=found)
    if advice is not None:
        return advice.as_dict(all_options=all_options)
    mean = table.advise(card.format(), dice, roll, box_now=box_now).as_dict(all_options=all_options)
    return {**mean, "target": chances_answer(table, card, target, limit)}


def chances_answer(table, card: Card, target: int, limit: float, found=None) -> dict:
    """The web API's `chances` for dice told apart (table: the api.Table), as `chances --json`; where the exact
    figure is beyond `limit` seconds of work, "note": the one line that says what it needs, for the page.
    found: as in ordered_chances."""
    key = (table.variant, card.state, target, limit, found is not None)
    if key not in _ANSWERS:  # simulated games are seeded: the same answer again, not a second estimate
        if len(_ANSWERS) >= 16:
            _ANSWERS.clear()
        answer = ordered_chances(table.variant, table.values, card, target, limit=limit, found=found)
        _ANSWERS[key] = answer.as_dict()
    chances = dict(_ANSWERS[key])
    if chances["probability"] is None:
        chances["note"] = _t("web_k7_beyond", variant=table.variant.name, most=PLAN_MOST_FREE)
    return chances
