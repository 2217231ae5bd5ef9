"""The longest silences a command leaves on a terminal (issue 27: never more than two seconds): the command runs
on a pseudo-terminal of 100 columns, as a user's would (progress bars drawn), and every chunk of output is
timed. Prints the longest gaps, each with the output that ended it.

    NUMBA_CACHE_DIR=$(mktemp -d) KNIFFEL_TABLES=$(mktemp -d) \\
        .venv/bin/python benchmarks/silences.py .venv/bin/kniffel solve kniffel
    .venv/bin/python benchmarks/silences.py --all .venv/bin/kniffel simulate kniffel -n 1000   # every chunk
"""

from __future__ import annotations

import fcntl
import os
import pty
import select
import struct
import subprocess
import sys
import termios
import time


def timed_output(command: list[str]) -> tuple[list[tuple[float, float, bytes]], float, int]:
    """(silence before it, when it came, first bytes) for each chunk of output; the total time; the exit code."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # tqdm draws nothing at width 0
    start = time.monotonic()
    proc = subprocess.Popen(command, stdout=slave, stderr=slave, stdin=subprocess.DEVNULL)
    os.close(slave)
    chunks, last = [], start
    while True:
        ready, _, _ = select.select([master], [], [], 0.1)
        if ready:
            try:
                data = os.read(master, 65536)
            except OSError:  # the pty closes with the command
                break
            if not data:
                break
            now = time.monotonic()
            chunks.append((now - last, last - start, data[:70]))
            last = now
        elif proc.poll() is not None:
            break
    end = time.monotonic()
    chunks.append((end - last, last - start, b"<end>"))
    return chunks, end - start, proc.wait()


def main(args: list[str]) -> None:
    every = args[:1] == ["--all"]
    chunks, total, code = timed_output(args[1:] if every else args)
    print(f"{' '.join(args)}: {total:.1f} s, exit code {code}")
    for gap, at, data in chunks if every else sorted(chunks, reverse=True)[:4]:
        print(f"  {gap:5.1f} s silent from {at:5.1f} s, then {data!r}")


if __name__ == "__main__":
    main(sys.argv[1:])
