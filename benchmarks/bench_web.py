"""Web API latency (`kniffel serve`): an advice request answered with the table loaded.

    python benchmarks/bench_web.py [--requests 300] [--tables DIR]

Two measurements, each the median (and 95th percentile) of many requests, table loaded and JIT warm:
* in process, through Starlette's TestClient (the app's own work: parsing, advice, JSON);
* a real uvicorn server on a loopback port, timed by a client over HTTP (adds the network stack).
Each is run for the same situation asked again (the advisor's per-card cache hits) and for a new card
on every request (each one computes its turn's keep values: the worst case), and for new cards while
another thread asks for new cards' final-score distributions (the page's chart: seconds of forward pass
on every core each); only requests that began and ended while a distribution was computed count.
Target: < 50 ms.
"""

from __future__ import annotations

import argparse
import random
import socket
import statistics
import tempfile
import threading
import time
import urllib.request
import warnings
from pathlib import Path
from urllib.parse import urlencode

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

import uvicorn

from solver.advice.cards import Card, box_values, parse_card
from solver.errors import KniffelError
from solver.rules.presets import PRESETS
from solver.store import solving
from solver.web.app import create_app


def random_cards(n: int, seed: int = 1) -> list[str]:
    v = PRESETS["kniffel"]
    rng = random.Random(seed)
    cards = []
    while len(cards) < n:
        card = Card(v)
        for b in rng.sample(range(len(v.boxes) - 1), rng.randrange(0, 12)):  # Chance stays free
            card.filled[b] = rng.choice(box_values(v, b))
        try:
            cards.append(parse_card(v, card.format()).format())  # only cards the rules allow
        except KniffelError:
            continue
    return cards


def queries(n: int, fresh: bool, seed: int = 1) -> list[str]:
    """n advice queries: one card, or random cards (of `seed`: each phase its own, so that the advisor's
    per-card cache does not answer them)."""
    rng = random.Random(2)
    cards = random_cards(n, seed) if fresh else ["einser=3,chance=22"] * n
    return [
        urlencode(
            {"variant": "kniffel", "card": c, "dice": "".join(str(rng.randint(1, 6)) for _ in range(5)), "roll": 1}
        )
        for c in cards
    ]


def timed(get, qs: list[str]) -> list[float]:
    out = []
    for q in qs:
        t = time.perf_counter()
        status = get("/api/advise?" + q)
        out.append(time.perf_counter() - t)
        assert status == 200, status
    return out


def while_distributing(get, qs: list[str], cards: list[str]) -> list[float]:
    """Advice times of the requests that began and ended while a distribution of `cards` was computed."""
    done = threading.Event()

    def charts() -> None:
        for card in cards:
            assert get("/api/distribution?" + urlencode({"variant": "kniffel", "card": card})) == 200
        done.set()

    thread = threading.Thread(target=charts)
    thread.start()
    time.sleep(0.2)  # the first distribution is under way
    out = []
    for q in qs:
        if done.is_set():
            break
        (t,) = timed(get, [q])
        if not done.is_set():
            out.append(t)
    thread.join()
    return out


def report(label: str, ts: list[float]) -> None:
    ms = sorted(1000 * t for t in ts)
    p95 = ms[int(0.95 * (len(ms) - 1))]
    print(
        f"{label:<48} median {statistics.median(ms):6.2f} ms   p95 {p95:6.2f} ms   max {ms[-1]:6.2f} ms   n={len(ms)}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=300)
    ap.add_argument("--tables", type=Path, default=None, help="tables folder (default: a temp folder, solved now)")
    args = ap.parse_args()
    tdir = args.tables or Path(tempfile.mkdtemp())
    if args.tables is None:
        solving.solve_table(PRESETS["kniffel"], tdir, progress=False)
    app = create_app(tdir, solve_missing=False)

    with TestClient(app) as client:

        def get_in_process(path: str) -> int:
            return client.get(path).status_code

        timed(get_in_process, queries(20, fresh=True, seed=0))  # load the table, warm the JIT
        report("in process (TestClient), same card", timed(get_in_process, queries(args.requests, fresh=False)))
        report(
            "in process (TestClient), new card each time",
            timed(get_in_process, queries(args.requests, fresh=True, seed=1)),
        )
        busy = while_distributing(get_in_process, queries(args.requests, fresh=True, seed=2), ["einser=1", "einser=2"])
        report("in process, new card, while a distribution runs", busy)

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)

    def get_http(path: str) -> int:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}") as res:
                res.read()
                return res.status
        except urllib.error.HTTPError as exc:
            return exc.code

    report("real server (uvicorn, HTTP), same card", timed(get_http, queries(args.requests, fresh=False)))
    report(
        "real server (uvicorn, HTTP), new card each time", timed(get_http, queries(args.requests, fresh=True, seed=3))
    )
    busy = while_distributing(get_http, queries(args.requests, fresh=True, seed=4), ["einser=3", "einser=4"])
    report("real server, new card, while a distribution runs", busy)
    server.should_exit = True
    thread.join(timeout=10)


if __name__ == "__main__":
    main()
