#!/usr/bin/env bash
# Every overlay `rightsize calibrate` writes is one `--calibration` accepts (issue 38): each golden
# calibrate case that exits 0 is run again, and the overlay it wrote is loaded by
# `rightsize estimate` on the overlay's first GPU. Usage: calibrate_roundtrip.sh RIGHTSIZE_BINARY
set -u
bin=$1
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
count=0
for case_dir in "$root"/tests/cli/calibrate_*/; do
  case_dir=${case_dir%/}
  [ "$(cat "$case_dir/code" 2>/dev/null)" = 0 ] || continue
  mapfile -t args < <(sed -e "s#@DATA@#$root/data#g" -e "s#@CASE@#$case_dir#g" -e "s#@ROOT@#$root#g" \
                          -e "s#@TMP@#$tmp#g" "$case_dir/args")
  out=""
  for ((i = 0; i < ${#args[@]}; ++i)); do
    [ "${args[$i]}" = --out ] && out=${args[$((i + 1))]}
  done
  rm -f "$out"
  if ! (cd "$case_dir" && env RIGHTSIZE_DATA_DIR="$root/data" RIGHTSIZE_TODAY=2026-11-22 \
        "$bin" "${args[@]}" >/dev/null 2>&1); then
    echo "FAIL: $(basename "$case_dir"): calibrate did not exit 0"; exit 1
  fi
  gpu=$(sed -n 's/^ *"gpu": "\(.*\)",*$/\1/p' "$out" | head -n1)
  if ! env RIGHTSIZE_DATA_DIR="$root/data" RIGHTSIZE_TODAY=2026-11-22 "$bin" estimate "$root/data/examples/chat-8b.json" \
        --gpu "$gpu" --calibration "$out" >/dev/null 2>"$tmp/err"; then
    echo "FAIL: $(basename "$case_dir"): --calibration refused the overlay it wrote: $(cat "$tmp/err")"; exit 1
  fi
  count=$((count + 1))
done
[ "$count" -gt 0 ] || { echo "FAIL: no calibrate case wrote an overlay"; exit 1; }
echo "calibrate round trip: $count overlays written and accepted by --calibration"
