#!/usr/bin/env bash
# Whole-output checks over a set of real runs (every shipped example and preset, each command):
#   output_checks.sh BIN determinism   same input twice -> byte-identical stdout, stderr and exit code
#   output_checks.sh BIN finite        no NaN, inf or negative-zero text anywhere in any output
# Runs use the golden cases' fixed environment. Exit 1 with the offending run on failure.
set -u
bin=$1
mode=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
data="$root/data"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run() {  # run NAME ARGS...: output to $tmp/NAME.{out,err,code}
  local name=$1; shift
  env -i PATH="$PATH" HOME="${HOME:-/tmp}" NO_COLOR=1 COLUMNS=120 LC_ALL=C RIGHTSIZE_DATA_DIR="$data" \
    RIGHTSIZE_TODAY=2026-11-22 "$bin" "$@" </dev/null >"$tmp/$name.out" 2>"$tmp/$name.err"
  echo $? >"$tmp/$name.code"
}

# The command lines: each subcommand that exists in this build, on every example and some presets.
commands=()
for spec in "$data"/examples/*.json; do
  for sub in validate estimate recommend check; do
    for format in table json; do commands+=("$sub --format $format $spec"); done
  done
done
# GPUs with gaps in the catalog (no PCIe figure, no NIC, no bf16) at several sizes.
for spec in "$data"/examples/chat-8b.json "$data"/examples/lora-8b.json; do
  for gpu in T4 MI325X L4 V100-SXM2-32GB H100-SXM; do
    for gpus in 1 2 16; do commands+=("estimate --format json --gpu $gpu --gpus $gpus $spec"); done
  done
done
for preset in "$data"/models/*.json; do
  id=$(basename "$preset" .json)
  printf '{"model": {"preset": "%s"}, "workload": {"input_tokens": 4096, "output_tokens": 512}}\n' "$id" \
    >"$tmp/preset-$id.json"
  commands+=("validate --format json $tmp/preset-$id.json" "recommend --format json $tmp/preset-$id.json")
done
commands+=("models" "models --format json" "catalog" "catalog --format json")

status=0
i=0
for line in "${commands[@]}"; do
  i=$((i + 1))
  # shellcheck disable=SC2086
  run "a$i" $line
  # A subcommand this build does not have yet is a usage error (2) with no output: skip it.
  if [ "$(cat "$tmp/a$i.code")" = 2 ] && [ ! -s "$tmp/a$i.out" ]; then continue; fi
  case "$mode" in
    determinism)
      # shellcheck disable=SC2086
      run "b$i" $line
      for part in out err code; do
        if ! cmp -s "$tmp/a$i.$part" "$tmp/b$i.$part"; then
          echo "not deterministic ($part): rightsize $line"; diff "$tmp/a$i.$part" "$tmp/b$i.$part" | head -n 10
          status=1
        fi
      done
      ;;
    finite)
      if grep -HniP -- '(?<![\w.])-?(nan|inf|infinity)(?!\w)|(?<![\w.])-0(\.0+)?(?![\d.])' \
          "$tmp/a$i.out" "$tmp/a$i.err" | head -n 5 | grep .; then
        echo "non-finite or negative-zero number in: rightsize $line"
        status=1
      fi
      ;;
    *) echo "unknown mode $mode"; exit 2 ;;
  esac
done
echo "$mode: ${#commands[@]} command lines checked"
exit $status
