#!/usr/bin/env bash
# The application layer (src/app, docs/ARCHITECTURE.md) decides and formats nothing: it may not
# include CLI11, spdlog, terminal or rendering headers, nor any header of src/cli. The core and the
# public headers may not include the application layer. Fails naming the offending line.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
status=0
cli_headers=$(cd "$root/src/cli" && find . -name '*.hpp' | sed 's|^\./||' | sed 's/[.]/[.]/g' | paste -sd'|' -)
app_headers=$(cd "$root/src/app" && find . -name '*.hpp' | sed 's|^\./||' | sed 's/[.]/[.]/g' | paste -sd'|' -)
if grep -rnE "#include *[<\"](CLI/|spdlog/|unistd\.h|sys/ioctl\.h|iostream|($cli_headers)[\">])" "$root/src/app"; then
  echo "layer purity: src/app may not include CLI11, spdlog, terminal or src/cli headers"
  status=1
fi
if grep -rnE "#include *[<\"]($app_headers)[\">]" "$root/src/core" "$root/include/rightsize"; then
  echo "layer purity: src/core and include/rightsize may not include src/app headers"
  status=1
fi
[ $status = 0 ] && echo "layer purity: ok"
exit $status
