#!/usr/bin/env bash
# Runs one golden CLI case: tests/cli/<case>/{args,stdout,stderr,code}.
# args: one argument per line; the token @DATA@ expands to the source data dir, @CASE@ to the case dir.
# Set RIGHTSIZE_UPDATE_GOLDEN=1 to rewrite the expected files from the actual output.
set -u
bin=$1
case_dir=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
mapfile -t args < <(sed -e "s#@DATA@#$root/data#g" -e "s#@CASE@#$case_dir#g" -e "s#@ROOT@#$root#g" "$case_dir/args")
out=$(mktemp); err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
(cd "$case_dir" && env -i PATH="$PATH" HOME="${HOME:-/tmp}" NO_COLOR=1 COLUMNS=120 LC_ALL=C \
   RIGHTSIZE_DATA_DIR="$root/data" RIGHTSIZE_TODAY=2026-11-22 "$bin" "${args[@]}" </dev/null >"$out" 2>"$err")
code=$?
# Paths in messages are made relative to the repository so goldens do not depend on the checkout.
sed -i "s#$root/##g" "$out" "$err"
if [ "${RIGHTSIZE_UPDATE_GOLDEN:-0}" = 1 ]; then
  cp "$out" "$case_dir/stdout"; cp "$err" "$case_dir/stderr"; echo "$code" > "$case_dir/code"
  exit 0
fi
status=0
expected_code=$(cat "$case_dir/code" 2>/dev/null || echo 0)
if [ "$code" != "$expected_code" ]; then echo "exit code $code, expected $expected_code"; status=1; fi
if [ -f "$case_dir/stdout" ] && ! diff -u "$case_dir/stdout" "$out"; then status=1; fi
if [ -f "$case_dir/stderr" ] && ! diff -u "$case_dir/stderr" "$err"; then status=1; fi
exit $status
