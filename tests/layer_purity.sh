#!/usr/bin/env bash
# The layers (docs/ARCHITECTURE.md "Folders and targets") and what each may include, by the include's
# layer prefix: src/core and include/rightsize nothing above core; src/io core only; src/app io and
# core, no CLI11, spdlog or terminal header, no environment variable or clock; src/render no src/cli
# header. Fails naming the line.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
status=0
fail() {
  echo "layer purity: $1"
  status=1
}
if grep -rnE '#include *"(io|app|render|cli)/' "$root/src/core" "$root/include/rightsize"; then
  fail "src/core and include/rightsize may include only rightsize/ and src/core headers"
fi
if grep -rnE '#include *"(app|render|cli)/' "$root/src/io"; then
  fail "src/io may include only core and io headers"
fi
if grep -rnE '#include *[<"](CLI/|spdlog/|unistd\.h|sys/ioctl\.h|iostream|render/|cli/)' "$root/src/app"; then
  fail "src/app may not include CLI11, spdlog, terminal, src/render or src/cli headers"
fi
if grep -rnE 'getenv|_clock::|#include *<(chrono|ctime)>' "$root/src/app"; then
  fail "src/app reads no environment variable and no clock: the CLI puts them in the request"
fi
if grep -rnE '#include *"cli/' "$root/src/render"; then
  fail "src/render may not include src/cli headers"
fi
if grep -rnE '#include *"[^"]*"' "$root/src" | grep -vE '#include *"(rightsize|core|io|app|render|cli)/' |
  grep -vE ':[0-9]+:\s*//'; then
  fail "an include under src names its layer (core/, io/, app/, render/, cli/ or rightsize/)"
fi
[ $status = 0 ] && echo "layer purity: ok"
exit $status
