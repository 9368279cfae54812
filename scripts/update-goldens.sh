#!/usr/bin/env bash
# Regenerates every golden CLI case (tests/cli/<case>/{stdout,stderr,code}) from the current build in
# one run. Read the diff before committing it: `git diff --stat tests/cli`, then the cases it names.
#   bash scripts/update-goldens.sh [--check]
# --check: regenerate, then fail (exit 1) when the tree differs from what the binary produces.
# Environment: RIGHTSIZE_BUILD_DIR (default build).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${RIGHTSIZE_BUILD_DIR:-build}
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DRIGHTSIZE_WERROR=ON >/dev/null
fi
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" --target rightsize >/dev/null
(cd "$build" && RIGHTSIZE_UPDATE_GOLDEN=1 ctest -R '^cli\.' -j "$(nproc 2>/dev/null || echo 2)" >/dev/null)
if [ "${1:-}" = "--check" ]; then
  if ! git diff --quiet -- tests/cli || [ -n "$(git ls-files --others --exclude-standard tests/cli)" ]; then
    echo "goldens differ from what the binary produces (run scripts/update-goldens.sh and read the diff):"
    git status --short -- tests/cli | head -40
    exit 1
  fi
  echo "goldens: the tree matches what the binary produces"
fi
