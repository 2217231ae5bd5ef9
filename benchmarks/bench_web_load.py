"""Web server throughput: many concurrent clients asking for advice from a real `kniffel serve`.

    python benchmarks/bench_web_load.py [--tables DIR] [--runs 3] [--clients 50] [--requests 20000] [--seconds 10]

Starts `kniffel serve` on a free loopback port (a subprocess, as a user runs it), waits for its first
advice, then measures one client (`ab -k -c 1 -n 2000`, the same URL as below) and runs two loads, each
`--runs` times, and prints every run and the medians:
* one situation: `ab -k -c CLIENTS -n REQUESTS 'http://127.0.0.1:PORT/api/advise?variant=kniffel&dice=33516&roll=1'`
  (apache2-utils);
* a mix of MIX situations (different cards, dice and rolls, each asked in turn by every connection):
  `wrk -t2 -c CLIENTS -d SECONDS --latency -s mix.lua` (wrk; skipped when it is not installed).
Before the loads, every situation is asked once and its answer kept; after them, again: they must be the
same. ab counts an answer whose length differs from the first as failed; any failure or non-2xx stops it.
Target (issue 25): >= 1,000 advice requests/s and p99 <= 100 ms with 50 concurrent clients.

Then, for each N of `--abandon` (default 26,130): N clients ask for new cards' distributions (a forward
pass of about a second on every core each) and hang up at once; printed: how long a new card's advice and
then a new card's distribution take right after.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlencode

ONE = "/api/advise?variant=kniffel&dice=33516&roll=1"
MIX = [
    "/api/advise?" + urlencode({"variant": "kniffel", "card": card, "dice": dice, "roll": roll})
    for card, dice, roll in [
        ("", "33516", 1),
        ("chance=22", "12345", 2),
        ("einser=3,zweier=6", "66666", 3),
        ("dreier=9,vierer=12,fuenfer=15", "11134", 1),
        ("chance=22,kniffel=50", "22256", 2),
        ("sechser=24,fullhouse=25", "44455", 3),
        ("einser=2,zweier=4,dreier=9,vierer=12", "13456", 1),
        ("kniffel=0,chance=19", "55523", 2),
    ]
]
LUA = """paths = {%s}
counter = 0
request = function()
  counter = counter + 1
  return wrk.format("GET", paths[(counter %% #paths) + 1])
end
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fetch(base: str, path: str) -> dict:
    with urllib.request.urlopen(base + path, timeout=600) as res:
        return json.loads(res.read())


def wait_ready(base: str, server: subprocess.Popen) -> None:
    deadline = time.monotonic() + 600  # a cold Numba cache compiles for about a minute
    while time.monotonic() < deadline:
        if server.poll() is not None:
            sys.exit(f"the server ended with exit status {server.returncode}")
        try:
            fetch(base, ONE)
            return
        except OSError:
            time.sleep(0.5)
    sys.exit("the server did not answer within 600 s")


def run_ab(base: str, clients: int, requests: int) -> tuple[float, float, float]:
    out = subprocess.run(
        ["ab", "-q", "-k", "-c", str(clients), "-n", str(requests), base + ONE], capture_output=True, text=True
    ).stdout
    rate = float(re.search(r"Requests per second:\s+([\d.]+)", out).group(1))
    if re.search(r"Non-2xx responses", out) or int(re.search(r"Failed requests:\s+(\d+)", out).group(1)):
        sys.exit("ab saw failed or non-2xx responses:\n" + out)
    p50, p99 = (float(re.search(rf"^\s*{q}%\s+(\d+)", out, re.M).group(1)) for q in (50, 99))
    return rate, p50, p99


def wrk_ms(text: str) -> float:
    value, unit = re.fullmatch(r"([\d.]+)(us|ms|s)", text).groups()
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def run_wrk(base: str, clients: int, seconds: int, script: Path) -> tuple[float, float, float]:
    cmd = ["wrk", "-t2", "-c", str(clients), "-d", f"{seconds}s", "--latency", "-s", str(script), base]
    out = subprocess.run(cmd, capture_output=True, text=True).stdout
    if "Non-2xx" in out or "Socket errors" in out:
        sys.exit("wrk saw errors or non-2xx responses:\n" + out)
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    p50, p99 = (wrk_ms(re.search(rf"^\s*{q}%\s+(\S+)", out, re.M).group(1)) for q in (50, 99))
    return rate, p50, p99


def chart(card: str) -> str:
    return "/api/distribution?" + urlencode({"variant": "kniffel", "card": card})


def after_abandoned(base: str, cards: list[str], fresh: str) -> None:
    """Each card's distribution asked by a client that hangs up at once; then time a new card's advice and
    distribution (`fresh`: a card used nowhere else)."""
    host, port = base.removeprefix("http://").split(":")
    for card in cards:
        with socket.create_connection((host, int(port))) as s:
            s.sendall(f"GET {chart(card)} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
    t0 = time.perf_counter()
    fetch(base, "/api/advise?" + urlencode({"variant": "kniffel", "card": fresh, "dice": "12346", "roll": 1}))
    t1 = time.perf_counter()
    fetch(base, chart(fresh))
    t2 = time.perf_counter()
    print(f"after {len(cards)} abandoned distributions: a new card's", end=" ")
    print(f"advice {t1 - t0:.2f} s, its distribution {t2 - t1:.2f} s")


def report(label: str, runs: list[tuple[float, float, float]]) -> None:
    for rate, p50, p99 in runs:
        print(f"  {label:<34} {rate:8.0f} req/s   p50 {p50:7.1f} ms   p99 {p99:7.1f} ms")
    rate, p50, p99 = (statistics.median(x) for x in zip(*runs))
    print(f"{label + ', median of ' + str(len(runs)):<36} {rate:8.0f} req/s   p50 {p50:7.1f} ms   p99 {p99:7.1f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=Path, default=None, help="tables folder (default: a temp folder, solved now)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--requests", type=int, default=20000, help="requests of each ab run")
    ap.add_argument("--seconds", type=int, default=10, help="length of each wrk run")
    ap.add_argument("--abandon", default="26,130", help="counts of abandoned distribution requests ('' for none)")
    args = ap.parse_args()
    if shutil.which("ab") is None:
        sys.exit("ab is not installed (apt-get install apache2-utils)")
    tdir = args.tables or Path(tempfile.mkdtemp())
    if args.tables is None:
        subprocess.run([sys.executable, "-m", "solver.cli", "--tables", str(tdir), "solve", "kniffel"], check=True)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    cmd = [sys.executable, "-m", "solver.cli", "--tables", str(tdir), "serve", "--port", str(port)]
    server = subprocess.Popen(cmd, stderr=subprocess.DEVNULL)
    try:
        wait_ready(base, server)
        one_client = {path: fetch(base, path) for path in MIX}
        report("one client (ab -k -c 1)", [run_ab(base, 1, 2000)])
        report("one situation (ab -k)", [run_ab(base, args.clients, args.requests) for _ in range(args.runs)])
        if shutil.which("wrk") is None:
            print("wrk is not installed: the mix is skipped (apt-get install wrk)")
        else:
            with tempfile.TemporaryDirectory() as tmp:
                script = Path(tmp) / "mix.lua"
                script.write_text(LUA % ", ".join(json.dumps(p) for p in MIX))
                runs = [run_wrk(base, args.clients, args.seconds, script) for _ in range(args.runs)]
            report(f"a mix of {len(MIX)} situations (wrk)", runs)
        assert {path: fetch(base, path) for path in MIX} == one_client, "answers changed under load"
        print("answers after the load equal one client's")
        cards = [f"einser={ones},chance={chance}" for ones in range(6) for chance in range(5, 31)]  # 156 new cards
        for i, n in enumerate(int(n) for n in args.abandon.split(",") if n):
            after_abandoned(base, cards[:n], f"zweier={2 * i + 2},dreier=9,chance=21")
            cards = cards[n:]
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
