#!/usr/bin/env bash
# The core is a pure estimator (docs/ARCHITECTURE.md): no I/O, JSON, CLI, logging, clocks or
# environment. Fails when src/core or the public headers include or call any of them.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
pattern='#include *[<"](iostream|fstream|cstdio|stdio\.h|filesystem|chrono|ctime|nlohmann/|CLI/|spdlog/|fmt/|thread|random)'
calls='\b(std::getenv|getenv|std::cout|std::cerr|printf|fopen|std::ifstream|std::ofstream|system_clock|steady_clock|time\()'
status=0
if grep -rnE "$pattern" "$root/src/core" "$root/include/rightsize"; then
  echo "core purity: src/core and include/rightsize may not include I/O, JSON, CLI, logging or clock headers"
  status=1
fi
if grep -rnE "$calls" "$root/src/core" "$root/include/rightsize" | grep -v '^\s*//'; then
  echo "core purity: src/core and include/rightsize may not read the environment, files, clocks or print"
  status=1
fi
[ $status = 0 ] && echo "core purity: ok"
exit $status
