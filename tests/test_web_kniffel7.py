"""Kniffel 7 on the web API: playing for a target (exact from the card, as the CLI computes it; beyond the
page's minute, the plain advice with the chance playing for the mean and one line saying what the best play
needs) and the chart's one line where the distribution takes longer than the page waits."""

import re
import warnings

import pytest

from tests.test_web_api import cli_json, get

pytest.importorskip("starlette", reason="the web extra is not installed: pip install -e '.[web]'")
with warnings.catch_warnings():  # Starlette 1.x suggests httpx2 over httpx; both work
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from solver.web import app as web_app  # noqa: E402
from solver.web.app import create_app  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

UPPER = "ones=3,twos=6,threes=9,fours=12,fives=15,sixes=18,sevens=21"
CARD_10 = UPPER + ",four_of_a_kind=20,five_of_a_kind=25,straight_five=30"  # 10 boxes filled, 4 free
CARD_12 = CARD_10 + ",double_triple=25,chance=28"  # 2 free: straight_six, super_kniffel
DICE = "2371674"


@pytest.fixture(scope="module")
def tdir(tmp_path_factory):
    """An empty tables folder: Kniffel 7's table comes with the package."""
    return tmp_path_factory.mktemp("k7-web")


@pytest.fixture(scope="module")
def client(tdir):
    with TestClient(create_app(tdir, solve_missing=False)) as c:
        yield c


@pytest.mark.slow  # Kniffel 7 compiled (quick: test_kniffel7_interpreted.py)
@pytest.mark.parametrize("card,roll,target", [(CARD_10, 1, 300), (CARD_12, 2, 300)])
def test_advise_target_equals_cli_json(client, tdir, card, roll, target):
    """Exact target play from the card: the CLI's answer, ranked by the chance of reaching the target."""
    res = get(client, "/api/advise", variant="kniffel7", card=card, dice=DICE, roll=roll, target=target)
    assert res.status_code == 200, res.text
    args = ["advise", "kniffel7", "--card", card, "--dice", DICE, "--roll", str(roll), "--target", str(target)]
    assert res.json() == cli_json(tdir, *args, "--json")
    assert res.json()["target"] == target and "keep_dice" in res.json()["best"]  # dice by colour


@pytest.mark.slow  # Kniffel 7 compiled (quick: test_kniffel7_interpreted.py)
def test_chances_equals_cli_json(client, tdir):
    res = get(client, "/api/chances", variant="kniffel7", card=CARD_12, target=300)
    assert res.status_code == 200, res.text
    want = cli_json(tdir, "chances", "kniffel7", "--card", CARD_12, "--target", "300", "--json")
    assert res.json() == want and 0 < want["probability"] < 1
    assert want["probability_expected_play"] <= want["probability"] + 1e-12  # the target play is never worse


@pytest.mark.slow  # Kniffel 7 compiled (quick: test_kniffel7_interpreted.py)
def test_beyond_the_pages_minute_answers_what_is_exact_with_one_line(client, tdir, monkeypatch):
    """Where exact target play takes longer than the page waits: the chance playing for the mean (exact from the
    distribution here) and a one-line note in the reader's language; the advice ranked by expected score."""
    monkeypatch.setattr(web_app, "WEB_PASS_SECONDS", -1.0)  # every card's exact target play is "too long"
    target = 310  # a target of no other test: the process remembers computed target tables
    res = get(client, "/api/chances", variant="kniffel7", card=CARD_12, target=target)
    assert res.status_code == 200, res.text
    body = res.json()
    assert body["probability"] is None and "expected_play_games" not in body  # exact, not simulated
    note = body.pop("note")
    assert "\n" not in note and "kniffel7" in note and "7" in note
    advice = get(client, "/api/advise", variant="kniffel7", card=CARD_12, dice=DICE, target=target).json()
    german = client.get(
        f"/api/chances?variant=kniffel7&card={CARD_12}&target={target}", headers={"Accept-Language": "de"}
    )
    assert german.json()["note"] != note and "Zieltabelle" in german.json()["note"]
    # the CLI last: it computes the exact target play in this process, which the page would then reuse
    mean = cli_json(tdir, "advise", "kniffel7", "--card", CARD_12, "--dice", DICE, "--json")
    assert advice["best"]["text"] == mean["best"]["text"] and advice["target"]["probability"] is None
    want = cli_json(tdir, "chances", "kniffel7", "--card", CARD_12, "--target", str(target), "--json")
    assert body["probability_expected_play"] == pytest.approx(want["probability_expected_play"], abs=1e-12)
    assert want["probability"] >= body["probability_expected_play"] - 1e-12


def test_chart_too_long_says_why_and_what_is_available(client):
    """An early Kniffel 7 card: HTTP 400 with one line, its work in hours, and when the page draws the chart."""
    res = get(client, "/api/distribution", variant="kniffel7", card="ones=3")
    assert res.status_code == 400
    message = res.json()["error"]
    assert "\n" not in message and message.startswith("no chart for this card")
    assert f"{web_app.CHART_FREE_BOXES} boxes or fewer free" in message and " h, " in message
    assert "kniffel distribution kniffel7 --card" in message
    assert re.search(r"up to \d{1,3}(,\d{3})+ turn states", message), message  # digits grouped


def test_chart_too_long_groups_the_states_per_language(client):
    """The German line groups the state count with dots, as the locale formatter does."""
    res = client.get("/api/distribution?variant=kniffel7&card=ones=3", headers={"Accept-Language": "de"})
    assert res.status_code == 400
    message = res.json()["error"]
    assert re.search(r"bis zu \d{1,3}(\.\d{3})+ Rundenzustände", message), message


def test_chart_free_boxes_fit_the_pages_minute(client):
    """The note's "usually with 5 boxes or fewer free": sampled cards that free fit WEB_PASS_SECONDS (estimated)."""
    import random

    import numba

    from solver.advice.cards import parse_card
    from solver.chances.distribution import pmf_work
    from solver.rules.presets import find_variant

    variant = find_variant("kniffel7")
    values = client.app.state.tables.get(variant).values
    keys = [b.key for b in variant.boxes]
    rng = random.Random(1)
    for _ in range(8):
        filled = rng.sample(keys, len(keys) - web_app.CHART_FREE_BOXES)
        card = parse_card(variant, ",".join(f"{key}=0" for key in filled))
        seconds = pmf_work(variant, values, card)[1] * numba.get_num_threads() / 2  # as on two cores
        assert seconds <= web_app.WEB_PASS_SECONDS, (filled, seconds)
