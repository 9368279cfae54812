#!/usr/bin/env bash
# Runs one golden CLI case: tests/cli/<case>/{args,stdout,stderr,code}.
# args: one argument per line; the token @DATA@ expands to the source data dir, @CASE@ to the case
# dir, @ROOT@ to the repository and @TMP@ to a fresh scratch folder. An optional `setup` script runs
# first as `bash setup TMP` (it builds inputs that cannot be committed: FIFOs, unreadable or huge
# files); exit 77 from it skips the case (CTest SKIP_RETURN_CODE).
# Optional `stdout_to` / `stderr_to` (one line: a path such as /dev/full or @TMP@/out, or `closed`) send that stream
# there instead of the captured file, to test failing writes; the stream's golden is then not compared
# (leave its file out).
# Optional `env`: KEY=VALUE lines (@TMP@, @DATA@ expanded) added to the clean environment last, so
# they override the defaults (RIGHTSIZE_DATA_DIR, ...).
# Set RIGHTSIZE_UPDATE_GOLDEN=1 to rewrite the expected files from the actual output.
# Under the sanitizer build a sanitizer report always fails the case (and is never written as golden).
set -u
bin=$1
case_dir=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
out=$(mktemp); err=$(mktemp)
trap 'chmod -R u+rwx "$tmp" 2>/dev/null; rm -rf "$tmp" "$out" "$err"' EXIT
if [ -f "$case_dir/setup" ]; then
  bash "$case_dir/setup" "$tmp"
  setup_status=$?
  if [ "$setup_status" = 77 ]; then echo "skipped: setup says this environment cannot run the case"; exit 77; fi
  if [ "$setup_status" != 0 ]; then echo "setup failed with $setup_status"; exit 1; fi
fi
mapfile -t args < <(sed -e "s#@DATA@#$root/data#g" -e "s#@CASE@#$case_dir#g" -e "s#@ROOT@#$root#g" \
                        -e "s#@TMP@#$tmp#g" "$case_dir/args")
# Sanitizer options (only the ASan+UBSan build reads them): stop at the first report and exit 86,
# a code rightsize never uses, so a report cannot pass for an expected exit code.
extra_env=()
if [ -f "$case_dir/env" ]; then
  mapfile -t extra_env < <(sed -e "s#@DATA@#$root/data#g" -e "s#@TMP@#$tmp#g" "$case_dir/env")
fi
stdout_to=$out; stderr_to=$err
[ -f "$case_dir/stdout_to" ] && stdout_to=$(head -n1 "$case_dir/stdout_to" | sed -e "s#@TMP@#$tmp#g")
[ -f "$case_dir/stderr_to" ] && stderr_to=$(head -n1 "$case_dir/stderr_to" | sed -e "s#@TMP@#$tmp#g")
for target in "$stdout_to" "$stderr_to"; do
  if [ "$target" != closed ] && [ ! -e "$target" ] && [ "${target#/dev/}" != "$target" ]; then
    echo "skipped: $target does not exist here"; exit 77
  fi
done
redirect() { # redirect FD TARGET: open or close descriptor FD for the run
  if [ "$2" = closed ]; then eval "exec $1>&-"; else eval "exec $1>\"\$2\""; fi
}
(cd "$case_dir" && redirect 1 "$stdout_to" && redirect 2 "$stderr_to" && env -i PATH="$PATH" HOME="${HOME:-/tmp}" NO_COLOR=1 COLUMNS=120 LC_ALL=C \
   RIGHTSIZE_DATA_DIR="$root/data" RIGHTSIZE_TODAY=2026-11-22 \
   ASAN_OPTIONS="${ASAN_OPTIONS:-halt_on_error=1:detect_leaks=1:exitcode=86}" \
   UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1:exitcode=86}" \
   "${extra_env[@]}" "$bin" "${args[@]}" </dev/null)
code=$?
if [ "$code" = 86 ] || grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:|SUMMARY: [A-Za-z]+Sanitizer' "$err"; then
  echo "sanitizer report (exit code $code):"; cat "$err"
  exit 1
fi
# Paths in messages are made relative to the repository so goldens do not depend on the checkout.
sed -i -e "s#$tmp#@TMP@#g" -e "s#$root/##g" "$out" "$err"
if [ "${RIGHTSIZE_UPDATE_GOLDEN:-0}" = 1 ]; then
  [ -f "$case_dir/stdout_to" ] || cp "$out" "$case_dir/stdout"
  [ -f "$case_dir/stderr_to" ] || cp "$err" "$case_dir/stderr"
  echo "$code" > "$case_dir/code"
  exit 0
fi
status=0
expected_code=$(cat "$case_dir/code" 2>/dev/null || echo 0)
if [ "$code" != "$expected_code" ]; then echo "exit code $code, expected $expected_code"; status=1; fi
if [ -f "$case_dir/stdout" ] && ! diff -u "$case_dir/stdout" "$out"; then status=1; fi
if [ -f "$case_dir/stderr" ] && ! diff -u "$case_dir/stderr" "$err"; then status=1; fi
exit $status
