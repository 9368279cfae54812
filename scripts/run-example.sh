#!/usr/bin/env bash
# One command: install dependencies, build, and run the main job on a shipped example:
#   bash scripts/run-example.sh [SPEC]   (default data/examples/chat-8b.json)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc 2>/dev/null || echo 2)" --target rightsize >/dev/null
spec=${1:-data/examples/chat-8b.json}
exec ./build/rightsize recommend "$spec"
