#!/usr/bin/env bash
# Lists the catalog's on-demand price quotes that carry no instance shape (docs/catalog.md "Instance
# shapes"): one "GPU provider" line each, then the count. These are the GPU x provider pairs that
# `recommend` bills per GPU as an assumption ("N of M providers' shapes unknown").
#   bash scripts/unshaped-quotes.sh [extra rightsize catalog options, e.g. --catalog FILE]
# Environment: RIGHTSIZE_BUILD_DIR (default build).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${RIGHTSIZE_BUILD_DIR:-build}/rightsize
ids=$("$bin" catalog list --format csv "$@" | tail -n +2 | cut -d, -f1)
count=0
for id in $ids; do
  while read -r provider; do
    echo "$id $provider"
    count=$((count + 1))
  done < <("$bin" catalog show "$id" "$@" | awk '$2 == "on-demand" && /per GPU \(assumed\)/ { print $1 }')
done
echo "$count on-demand quotes without an instance shape"
