#!/usr/bin/env bash
# The README's pasted outputs are what the binary prints (docs/ARCHITECTURE.md "Checks"): the
# `recommend data/examples/chat-8b.json` table, the vLLM launch script of `--emit vllm` and the
# power-capped winner's energy line, each run as the goldens run (tests/cli/run_case.sh: the
# same pinned date and environment, no width limit). A change that moves them fails here until
# README.md is pasted again.
# Usage: readme_example.sh RIGHTSIZE_BINARY
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
readme="$root/README.md"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() {
  (cd "$tmp" && env -i PATH="$PATH" HOME="${HOME:-/tmp}" NO_COLOR=1 LC_ALL=C \
    RIGHTSIZE_DATA_DIR="$root/data" RIGHTSIZE_TODAY=2026-11-22 "$bin" "$@")
}
status=0
# The fenced block that starts with `first_line` (without the fence), up to the next fence.
block_after() {
  awk -v first="$1" '
    /^```/ { if (inside) exit; fence = 1; next }
    fence && !inside && index($0, first) == 1 { inside = 1 }
    { fence = 0 }
    inside { print }' "$readme"
}
compare() {
  local name=$1 expected=$2 actual=$3
  if ! diff -u "$expected" "$actual" > "$tmp/diff"; then
    echo "readme example: the README's $name differs from what the binary prints (paste it again):"
    head -40 "$tmp/diff"
    status=1
  fi
}

block_after "chat-8b: llama-3.1-8b" > "$tmp/table.expected"
run recommend "$root/data/examples/chat-8b.json" > "$tmp/table.actual"
[ -s "$tmp/table.expected" ] || { echo "readme example: no chat-8b table found in README.md"; status=1; }
compare "chat-8b table" "$tmp/table.expected" "$tmp/table.actual"

emit_cmd='$ rightsize recommend data/examples/chat-8b.json --gpu H100-SXM --emit vllm --model-path meta-llama/Llama-3.1-8B-Instruct'
block_after "$emit_cmd" | sed -e '1d' -e '/^$/,$d' > "$tmp/emit.expected"
run recommend "$root/data/examples/chat-8b.json" --gpu H100-SXM --emit vllm \
  --model-path meta-llama/Llama-3.1-8B-Instruct > "$tmp/emit.actual"
[ -s "$tmp/emit.expected" ] || { echo "readme example: no --emit vllm block found in README.md"; status=1; }
compare "--emit vllm script" "$tmp/emit.expected" "$tmp/emit.actual"

grep '^energy: ' "$readme" > "$tmp/energy.expected"
grep '^energy: ' "$root/tests/cli/recommend_power_cap/stdout" > "$tmp/energy.actual"
compare "power-capped energy line (tests/cli/recommend_power_cap)" "$tmp/energy.expected" "$tmp/energy.actual"

[ $status = 0 ] && echo "readme example: ok"
exit $status
