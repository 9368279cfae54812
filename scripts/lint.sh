#!/usr/bin/env bash
# Lint: clang-format and clang-tidy over the C++ in src, include, bench and tests. Zero findings pass.
#   bash scripts/lint.sh [--format-only | --tidy-only]
# Format: `clang-format --dry-run --Werror` with the repo's .clang-format over every tracked
#   .cpp/.hpp under src, include, bench and tests (tests/fuzz included).
# Tidy: clang-tidy with the repo's .clang-tidy over every translation unit under src, bench and tests
#   in the build's compile_commands.json (headers under include/rightsize and src through
#   HeaderFilterRegex). The fuzz targets are left out: they compile only in a clang -DRIGHTSIZE_FUZZ
#   build. The database is the build directory's (RIGHTSIZE_BUILD_DIR, default build) when it is
#   configured file by file (-DRIGHTSIZE_UNITY=OFF); else one configured for it in <build>-lint.
#   Nothing is compiled.
# Findings go to stderr as file:line:col lines; the exit status is 1 when there is any, 2 on misuse.
# Environment: RIGHTSIZE_BUILD_DIR, RIGHTSIZE_LINT_JOBS (default 2), CLANG_FORMAT, CLANG_TIDY.
set -euo pipefail
cd "$(dirname "$0")/.."

run_format=1
run_tidy=1
case "${1:-}" in
  "") ;;
  --format-only) run_tidy=0 ;;
  --tidy-only) run_format=0 ;;
  -h | --help)
    sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
    ;;
  *)
    echo "rightsize: lint: unknown option '$1' (expected --format-only or --tidy-only)" >&2
    exit 2
    ;;
esac

build=${RIGHTSIZE_BUILD_DIR:-build}
jobs=${RIGHTSIZE_LINT_JOBS:-2}
clang_format=${CLANG_FORMAT:-clang-format}
clang_tidy=${CLANG_TIDY:-clang-tidy}
status=0

need() {
  if ! command -v "$1" >/dev/null 2>&1; then
    echo "rightsize: lint: '$1' not found (bash scripts/setup.sh installs clang-format and clang-tidy)" >&2
    exit 2
  fi
}

if [ $run_format = 1 ]; then
  need "$clang_format"
  mapfile -t files < <(git ls-files -- src include bench tests | grep -E '\.(cpp|hpp|h|cc)$')
  rc=0
  out=$(printf '%s\0' "${files[@]}" | xargs -0 -n 16 -P "$jobs" "$clang_format" --dry-run --Werror 2>&1) || rc=$?
  findings=$(grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error):' <<<"$out" | sort -u || true)
  if [ -z "$findings" ] && [ $rc != 0 ]; then
    tail -n 20 <<<"$out" >&2
    echo "rightsize: lint: clang-format failed (exit $rc) without a file:line finding; output above" >&2
    status=1
  elif [ -n "$findings" ]; then
    echo "$findings" >&2
    echo "rightsize: lint: clang-format: $(wc -l <<<"$findings") finding(s) in $(cut -d: -f1 <<<"$findings" | sort -u | wc -l) file(s); fix with: clang-format -i FILE" >&2
    status=1
  else
    echo "rightsize: lint: clang-format: ${#files[@]} files clean" >&2
  fi
fi

if [ $run_tidy = 1 ]; then
  need "$clang_tidy"
  # A unity build's database names its batches, not the files: tidy reads a database of its own,
  # configured file by file (RIGHTSIZE_UNITY=OFF) beside the build; nothing is compiled.
  if grep -q '^RIGHTSIZE_UNITY:BOOL=OFF' "$build/CMakeCache.txt" 2>/dev/null &&
    [ -f "$build/compile_commands.json" ]; then
    db=$build
  else
    db=$build-lint
    cmake -S . -B "$db" -DCMAKE_BUILD_TYPE=Release -DRIGHTSIZE_UNITY=OFF -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
      >/dev/null
  fi
  root=$(pwd)
  # Translation units of this tree under src, bench and tests, from the compilation database.
  mapfile -t units < <(grep -oE '"file": *"[^"]+"' "$db/compile_commands.json" | sed -E 's/"file": *"(.*)"/\1/' |
    grep -E "^$root/(src|bench|tests)/" | sort -u)
  if [ ${#units[@]} -eq 0 ]; then
    echo "rightsize: lint: $db/compile_commands.json lists no sources under src, bench or tests" >&2
    exit 2
  fi
  rc=0
  out=$(printf '%s\0' "${units[@]}" | xargs -0 -n 1 -P "$jobs" "$clang_tidy" -p "$db" --quiet 2>&1) || rc=$?
  findings=$(grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error):' <<<"$out" | sed "s|^$root/||" | sort -u || true)
  if [ -z "$findings" ] && [ $rc != 0 ]; then
    tail -n 20 <<<"$out" >&2
    echo "rightsize: lint: clang-tidy failed (exit $rc) without a file:line finding; output above" >&2
    status=1
  elif [ -n "$findings" ]; then
    echo "$findings" >&2
    echo "rightsize: lint: clang-tidy: $(wc -l <<<"$findings") finding(s) over ${#units[@]} translation units" >&2
    status=1
  else
    echo "rightsize: lint: clang-tidy: ${#units[@]} translation units clean" >&2
  fi
fi
exit $status
