"""What the gettext catalogues cost a command: the first message in Spanish with an empty cache (Babel reads the
.po and compiles the .mo into the cache) and with a warm one (the .mo read back), against English (no catalogue),
each in a fresh process (import of solver.i18n.texts and the first t() call), CPU and wall seconds, medians.

    .venv/bin/python benchmarks/bench_catalogues.py [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

PROBE = """
import json, time
w, c = time.perf_counter(), time.process_time()
from solver.i18n.texts import set_language, t
set_language({lang!r})
t("turn_header", turn=1, turns=13, points=0, expected=245.11)
print(json.dumps([time.perf_counter() - w, time.process_time() - c]))
"""


def once(lang: str, cache: str) -> tuple[float, float]:
    env = {**os.environ, "XDG_CACHE_HOME": cache}
    out = subprocess.run([sys.executable, "-c", PROBE.format(lang=lang)], env=env, capture_output=True, text=True)
    wall, cpu = json.loads(out.stdout)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    cases: dict[str, list[tuple[float, float]]] = {"en": [], "es, empty cache": [], "es, warm cache": []}
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as cache:
            cases["en"].append(once("en", cache))
            cases["es, empty cache"].append(once("es", cache))
            cases["es, warm cache"].append(once("es", cache))
    for name, got in cases.items():
        wall = statistics.median(w for w, _ in got)
        cpu = statistics.median(c for _, c in got)
        print(f"{name:<16} wall {wall * 1000:7.1f} ms   cpu {cpu * 1000:7.1f} ms")


if __name__ == "__main__":
    main()
