#!/usr/bin/env bash
# Builds the libFuzzer targets with clang in build-fuzz and runs each for a bounded time on its seed
# corpus (tests/fuzz/corpus/<target>). Fails if any target finds a crash, UB, a leak, a timeout or
# an unexpected exception; the inputs that did are left in build-fuzz/fuzz-crashes.
#   bash scripts/fuzz.sh [SECONDS]            (default 30 seconds per target)
# Environment: RIGHTSIZE_FUZZ_TARGETS (space-separated subset), RIGHTSIZE_FUZZ_BUILD_DIR (build-fuzz),
# RIGHTSIZE_FUZZ_JOBS (build parallelism and targets run at once, default 2). A build folder already
# configured with RIGHTSIZE_FUZZ=ON is reused with its settings.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
build=${RIGHTSIZE_FUZZ_BUILD_DIR:-build-fuzz}
cxx=$(command -v clang++ || command -v clang++-14 || true)
if [ -z "$cxx" ]; then
  echo "rightsize: fuzz: clang++ not found (bash scripts/setup.sh installs it)" >&2
  exit 1
fi
# A build folder already configured for fuzzing (the CI's sanitizer build) is reused as it is.
if ! grep -q '^RIGHTSIZE_FUZZ:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
  cmake -S . -B "$build" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRIGHTSIZE_FUZZ=ON \
    -DRIGHTSIZE_TESTS=OFF >/dev/null
fi
cmake --build "$build" -j "${RIGHTSIZE_FUZZ_JOBS:-2}" --target fuzz_all

all_targets=$(sed -n 's/^set(RIGHTSIZE_FUZZ_TARGETS \(.*\))$/\1/p' tests/fuzz/CMakeLists.txt)
targets=${RIGHTSIZE_FUZZ_TARGETS:-$all_targets}
crashes="$build/fuzz-crashes"
mkdir -p "$crashes"
jobs=${RIGHTSIZE_FUZZ_JOBS:-2}
# One target's bounded run; its exit status goes to <log>.rc (the targets run `jobs` at a time).
run_target() {
  local target=$1 work="$build/fuzz-corpus/$1" log="$build/fuzz-$1.log" rc=0
  # New inputs go to a scratch corpus in the build folder; the committed seeds are read only.
  mkdir -p "$work"
  "$build/tests/fuzz/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$crashes/$target-" -print_final_stats=1 "$work" "tests/fuzz/corpus/$target" >"$log" 2>&1 ||
    rc=$?
  echo "$rc" >"$log.rc"
}
running=0
for target in $targets; do
  echo "== $target: ${seconds}s" >&2
  rm -f "$build/fuzz-$target.log.rc"
  run_target "$target" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
done
wait
failed=()
for target in $targets; do
  log="$build/fuzz-$target.log"
  if [ "$(cat "$log.rc" 2>/dev/null || echo 1)" != 0 ]; then
    failed+=("$target")
    tail -n 40 "$log" >&2
  fi
  echo "$target: $(grep -E '^stat::number_of_executed_units|^stat::new_units_added' "$log" | tr '\n' ' ')" >&2 || true
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "rightsize: fuzz: findings in ${failed[*]}; inputs in $crashes" >&2
  exit 1
fi
echo "rightsize: fuzz: no findings ($seconds s per target)" >&2
