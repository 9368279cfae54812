#!/usr/bin/env bash
# One command: install dependencies, build (Release, warnings as errors) and run the whole test suite.
#   bash scripts/test.sh [--no-setup]
# Environment: RIGHTSIZE_BUILD_DIR (default build), RIGHTSIZE_CMAKE_ARGS (extra cmake arguments),
# RIGHTSIZE_CTEST_LABELS (a ctest -L regex: run only the tests with those labels; default all),
# RIGHTSIZE_BUILD_TARGETS (space-separated targets to build; default all).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" != "--no-setup" ]; then bash scripts/setup.sh; fi
build=${RIGHTSIZE_BUILD_DIR:-build}
jobs=$(nproc 2>/dev/null || echo 2)
# shellcheck disable=SC2086
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DRIGHTSIZE_WERROR=ON ${RIGHTSIZE_CMAKE_ARGS:-} >/dev/null
if [ -n "${RIGHTSIZE_BUILD_TARGETS:-}" ]; then
  # shellcheck disable=SC2086
  cmake --build "$build" -j "$jobs" --target ${RIGHTSIZE_BUILD_TARGETS}
else
  cmake --build "$build" -j "$jobs"
fi
cd "$build"
if [ -n "${RIGHTSIZE_CTEST_LABELS:-}" ]; then
  ctest --output-on-failure -j "$jobs" -L "$RIGHTSIZE_CTEST_LABELS"
else
  ctest --output-on-failure -j "$jobs"
fi
