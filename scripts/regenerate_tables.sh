#!/usr/bin/env bash
# Rebuild every table this solver can build into tables/ (or $KNIFFEL_TABLES) and print one JSON line
# per variant: start value, states, seconds. Run from the repository root after `pip install -e .`.
set -euo pipefail
cd "$(dirname "$0")/.."
exec "${KNIFFEL:-.venv/bin/kniffel}" solve --all --json "$@"
