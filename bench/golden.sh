#!/usr/bin/env bash
# One digest per output family, to check that a refactor changes nothing
# measurable (issue 24): whole-trace results of the presets, the translation
# schemes and the OS model on a real trace, every row and the printed text of
# `vmlab reproduce s1 --grid test`, every table of `vmlab reproduce s2`, `s3`, `s4` and `s5`, the page-table sizes.
#
#   bash bench/golden.sh            print the digests
#   bash bench/golden.sh --check    compare with bench/golden.txt (exit 1 if any differs)
#   bash bench/golden.sh --bless    write bench/golden.txt (only for a change meant to move numbers)
#
# VMLAB_PYTHON is the Python that has this tree's vmlab (default
# .venv/bin/python, built by `make develop`). Traces are captured on first
# use (valgrind, about two minutes) into traces/; see bench/golden.py.
set -euo pipefail
cd "$(dirname "$0")/.."
exec "${VMLAB_PYTHON:-.venv/bin/python}" bench/golden.py "$@"
