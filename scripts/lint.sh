#!/usr/bin/env bash
# Lint: clang-format and clang-tidy over the C++ in src, include, bench and tests. Zero findings pass.
#   bash scripts/lint.sh [--format-only | --tidy-only]
# Format: `clang-format --dry-run --Werror` with the repo's .clang-format over every tracked
#   .cpp/.hpp under src, include, bench and tests (tests/fuzz included).
# Tidy: clang-tidy with the repo's .clang-tidy files over every translation unit under src, bench
#   and tests in the build's compile_commands.json (RIGHTSIZE_BUILD_DIR, default build), headers
#   under include/rightsize and src included. In a unity build (the default) the units are its
#   batches: each source file is checked once, inside its batch, with the settings it gets on its
#   own (about 6x faster than file by file). RIGHTSIZE_LINT_PER_FILE=1 checks file by file instead,
#   from a database configured in <build>-lint (nothing is compiled). The fuzz targets are left
#   out: they compile only in a clang -DRIGHTSIZE_FUZZ build.
# Findings go to stderr as file:line:col lines; the exit status is 1 when there is any, 2 on misuse.
# Environment: RIGHTSIZE_BUILD_DIR, RIGHTSIZE_LINT_JOBS (default 2), RIGHTSIZE_LINT_PER_FILE,
#   CLANG_FORMAT, CLANG_TIDY.
set -euo pipefail
cd "$(dirname "$0")/.."

run_format=1
run_tidy=1
case "${1:-}" in
  "") ;;
  --format-only) run_tidy=0 ;;
  --tidy-only) run_format=0 ;;
  -h | --help)
    sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
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
  root=$(pwd)
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  # The database: the build's own, or (RIGHTSIZE_LINT_PER_FILE=1) one configured file by file beside
  # it in <build>-lint, which compiles nothing. A unity build's database names its batches.
  if [ "${RIGHTSIZE_LINT_PER_FILE:-0}" = 1 ] && ! grep -q '^RIGHTSIZE_UNITY:BOOL=OFF' "$build/CMakeCache.txt" 2>/dev/null; then
    db=$build-lint
    cmake -S . -B "$db" -DCMAKE_BUILD_TYPE=Release -DRIGHTSIZE_UNITY=OFF -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
      >/dev/null
  else
    db=$build
  fi
  if [ ! -f "$db/compile_commands.json" ]; then
    echo "rightsize: lint: $db/compile_commands.json not found (configure the build first: cmake -S . -B $db)" >&2
    exit 2
  fi
  # Translation units: this tree's files under src, bench and tests, and the unity batches that
  # include them (generated under the database's directory).
  mapfile -t units < <(grep -oE '"file": *"[^"]+"' "$db/compile_commands.json" | sed -E 's/"file": *"(.*)"/\1/' |
    grep -E "^$root/(src|bench|tests)/|/Unity/unity_[0-9]+_cxx\.cxx$" | sort -u)
  if [ ${#units[@]} -eq 0 ]; then
    echo "rightsize: lint: $db/compile_commands.json lists no sources under src, bench or tests" >&2
    exit 2
  fi
  # Each unit is checked with the configuration its sources would get file by file (the nearest
  # .clang-tidy, e.g. src/core's size limit), dumped once per source directory; a batch whose
  # sources would get different ones is refused. Diagnostics in a batch's sources are reported
  # through the header filter, widened to this tree's src, include, bench and tests. The check
  # bugprone-suspicious-include would flag the batch's own includes of .cpp files, so for batches
  # it is replaced by the grep below, which holds the same rule over the tracked sources.
  config_of() { # $1: a source file; prints the path of its dumped configuration
    local key
    key=$(dirname "$1" | md5sum | cut -c1-16)
    [ -f "$tmp/$key.yaml" ] || "$clang_tidy" --dump-config "$1" -- >"$tmp/$key.yaml" 2>/dev/null
    echo "$tmp/$key.yaml"
  }
  batched=0
  for unit in "${units[@]}"; do
    if [[ $unit == */Unity/unity_*_cxx.cxx ]]; then
      batched=1
      mapfile -t sources < <(sed -nE 's/^#include "(.*)"$/\1/p' "$unit")
    else
      sources=("$unit")
    fi
    config=""
    for src in "${sources[@]}"; do
      c=$(config_of "$src")
      if [ -n "$config" ] && ! cmp -s "$c" "$config"; then
        echo "rightsize: lint: $unit batches sources with different .clang-tidy settings; run with RIGHTSIZE_LINT_PER_FILE=1" >&2
        exit 2
      fi
      config=$c
    done
    printf '%s\0' "$unit" >>"$config.units"
  done
  if [ $batched = 1 ]; then
    included=$(git grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*["<][^">]*\.(c|cc|cpp|cxx)[">]' -- src include bench tests || true)
    if [ -n "$included" ]; then
      sed -E 's/^([^:]+:[0-9]+):.*/\1:1: error: suspicious #include of a source file [bugprone-suspicious-include]/' <<<"$included" >&2
      status=1
    fi
    skip=',-bugprone-suspicious-include'
  else
    skip=''
  fi
  rc=0
  out=$(failed=0
  for list in "$tmp"/*.units; do
    xargs -0 -n 1 -P "$jobs" "$clang_tidy" -p "$db" --quiet --config-file="${list%.units}" \
      --header-filter="^$root/(include/rightsize|src|bench|tests)/" --checks="-clang-analyzer-*$skip" <"$list" || failed=1
  done 2>&1
  exit $failed) || rc=$?
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
