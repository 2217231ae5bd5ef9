#!/bin/bash
# The README's two lines as a new user runs them (issue 27): a fresh clone of COMMIT in DIR, an empty Numba cache,
# pip, then line 1's commands timed, then a wait until the background compile (solver/cli/prewarm.py) has ended,
# then line 2 timed. Usage: bash benchmarks/readme_lines.sh COMMIT DIR (run from the repository).
set -u
rev=$1
dir=$2
repo=$(git rev-parse --show-toplevel)
rm -rf "$dir" && git clone -q "$repo" "$dir" && cd "$dir" && git checkout -q "$rev" || exit 2
export NUMBA_CACHE_DIR=$(mktemp -d)
echo "cache $NUMBA_CACHE_DIR"
line1=$(sed -n 4p README.md)
bash -c "${line1%% && .venv/bin/kniffel solve*}" > pip.log 2>&1 || { echo "pip failed: $dir/pip.log"; exit 1; }
/usr/bin/time -f "line 1 after pip: %e s wall, %U user %S sys, %M KB" bash -c ".venv/bin/kniffel solve${line1#* && .venv/bin/kniffel solve}" > line1.log 2>&1
tail -1 line1.log
t0=$(date +%s)
while pgrep -f "solver.cli.prewarm" > /dev/null; do sleep 2; done
echo "background compile ended $(($(date +%s) - t0)) s after line 1; $(find "$NUMBA_CACHE_DIR" -name '*.nbi' | wc -l) cache index files"
/usr/bin/time -f "line 2: %e s wall, %U user %S sys" bash -c "$(sed -n 5p README.md)" > line2.log 2>&1
tail -3 line2.log
