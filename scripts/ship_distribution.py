"""Compute the final-score distribution of Kniffel 7 from the empty card once and write it as package data
beside its value table (solver/data/kniffel7.pmf.npy and its stamp kniffel7.pmf.json), so that
`kniffel distribution kniffel7` and `odds kniffel7` from empty cards answer at once.

The forward pass visits about a million turn states (hours on two cores). After every layer it saves
the layer to CHECKPOINT (atomically); run again, it resumes from there. Progress goes to stdout.

    nice -n 10 .venv/bin/python scripts/ship_distribution.py [--checkpoint PATH] [--threads N]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numba
import numpy as np

from solver.dp import make_engine
from solver.dp.forward import Layer, layer_pmf, start_layer
from solver.dp.forward_ordered_layers import ordered_layers
from solver.rules.presets import KNIFFEL7
from solver.store import tables
from solver.store.expected_play_cache import values_digest
from solver.store.files import atomic_write_files
from solver.store.locations import SHIPPED
from solver.store.shipped_pmf import write_shipped_pmf


def save_layer(path: Path, layer: Layer, digest: str, seconds: float) -> None:
    def write(fh) -> None:
        np.savez(fh, digest=np.array(digest), seconds=np.array(seconds), **layer._asdict())

    atomic_write_files([(path, write)])


def load_layer(path: Path, digest: str) -> tuple[Layer, float] | None:
    if not path.is_file():
        return None
    with np.load(path) as data:
        if str(data["digest"]) != digest:
            return None
        return Layer(*(data[f] for f in Layer._fields)), float(data["seconds"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkpoint", type=Path, default=Path("kniffel7-forward.checkpoint.npz"))
    parser.add_argument("--threads", type=int, default=numba.get_num_threads())
    args = parser.parse_args()
    values, meta = tables.load(KNIFFEL7, SHIPPED)
    digest = values_digest(values)
    engine = make_engine(KNIFFEL7, allow_slow=True)
    resumed = load_layer(args.checkpoint, digest)
    layer, spent = resumed if resumed is not None else (start_layer(0, 0, 0, 0), 0.0)
    filled = bin(int(layer.mask[0])).count("1")
    print(f"from {filled} filled boxes, {layer.mask.shape[0]} states, {spent:.0f} s spent before", flush=True)
    t0 = time.perf_counter() - spent
    done = [0]

    def progress(k: int) -> None:
        done[0] += k
        if done[0] % 1000 < k:
            print(f"  {done[0]} states, {time.perf_counter() - t0:.0f} s", flush=True)

    for layer in ordered_layers(engine, values, layer, args.threads, progress):  # noqa: B020 (each next layer)
        filled += 1
        seconds = time.perf_counter() - t0
        print(f"layer {filled} filled: {layer.mask.shape[0]} states, {seconds:.0f} s", flush=True)
        save_layer(args.checkpoint, layer, digest, seconds)
    pmf = layer_pmf(layer)
    stamp = write_shipped_pmf(KNIFFEL7, pmf, digest, meta["sha256"], time.perf_counter() - t0)
    print(f"written: mean {stamp['mean']:.9f} (table {float(values[0, 0, 0]):.9f})", flush=True)
    args.checkpoint.unlink(missing_ok=True)


if __name__ == "__main__":
    main()
