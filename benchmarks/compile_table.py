"""Where compile time goes, dispatcher by dispatcher: the five first uses of bench_compile's scenario (fresh
processes in order, one new Numba cache and tables folder for all, as a new user runs them) and the quick
suite's two warm-up groups (tests/warm_kernels.py, each on an empty cache of its own, one after the other).

    .venv/bin/python benchmarks/compile_table.py                 # every run, the 12 costliest kernels of each
    .venv/bin/python benchmarks/compile_table.py --top 40 --only play
    .venv/bin/python benchmarks/compile_table.py --child warm:identical --report r.json   # one run, in here

A row: self CPU s (the kernel's own compile: its typing, lowering, and LLVM optimising and generating machine
code for it and, once more, for every kernel it calls, whose code Numba links into it), CPU s with the nested
compiles of its callees (those not yet compiled or cached), compiles (one per signature), and "xN sig" where
a kernel compiled for N signatures in that run (a specialisation by type, literal or layout: see --sigs).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "tests")]

from bench_compile import SCENARIO, _arguments, record_compiles  # noqa: E402

RUNS = [(label, "cli:" + json.dumps(argv)) for label, argv in SCENARIO] + [
    ("warm-up identical", "warm:identical"),
    ("warm-up play", "warm:play"),
]


def child(what: str, report: Path) -> None:
    figures = record_compiles()
    kind, _, arg = what.partition(":")
    if kind == "cli":
        from solver.cli import main

        try:
            main(["--no-progress", *json.loads(arg)])
        except SystemExit:
            pass
    else:
        import warm_kernels

        warm_kernels.main([arg])
    report.write_text(json.dumps(figures))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=12, help="kernels listed a run (by self CPU)")
    parser.add_argument("--only", help="only the runs whose label contains this")
    parser.add_argument("--sigs", action="store_true", help="print the differing arguments of repeated kernels")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--report", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.report)
        return
    work = Path(tempfile.mkdtemp(prefix="compile-table-"))
    summary = []
    for label, what in RUNS:
        if args.only and args.only not in label:
            continue
        cache = work / ("numba" if what.startswith("cli:") else f"numba-{label.split()[-1]}")
        env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), KNIFFEL_TABLES=str(work / "tables"))
        report = work / "report.json"
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        cmd = [sys.executable, __file__, "--child", what, "--report", str(report)]
        done = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"{label}: exit {done.returncode}\n{done.stderr[-2000:]}")
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        data = json.loads(report.read_text())
        kernels, sigs = data["kernels"], data["signatures"]
        n = sum(int(row[0]) for row in kernels.values())
        summary.append((label, cpu, data["compile"], n))
        print(f"\n{label}: process {cpu:.1f} s CPU, compiling {data['compile']:.1f} s, {n} compiles")
        print(f"  {'self s':>7} {'w/ callees':>10} {'n':>3}  kernel")
        for name, (count, inclusive, own) in sorted(kernels.items(), key=lambda kv: -kv[1][2])[: args.top]:
            extra = f"  x{len(set(sigs[name]))} sig" if len(set(sigs[name])) > 1 else ""
            print(f"  {own:7.2f} {inclusive:10.2f} {int(count):3d}  {name}{extra}")
        if args.sigs:
            for name, sig_list in sigs.items():
                if len(set(sig_list)) > 1:
                    split = [_arguments(s) for s in sig_list]
                    differ = [i for i in range(len(split[0])) if len({tuple(a[i : i + 1]) for a in split}) > 1]
                    for a in split:
                        print(f"    {name}: " + "; ".join(f"#{i} {a[i] if i < len(a) else '-'}" for i in differ))
    print(f"\n{'run':<40} {'CPU s':>7} {'compile CPU s':>14} {'compiles':>9}")
    for label, cpu, comp, n in summary:
        print(f"{label:<40} {cpu:7.1f} {comp:14.1f} {n:9d}")
    first = [row for row in summary if not row[0].startswith("warm")]
    print(f"{'five first uses':<40} {'':>7} {sum(r[2] for r in first):14.1f}")
    print(f"(caches and tables in {work})")


if __name__ == "__main__":
    main()
