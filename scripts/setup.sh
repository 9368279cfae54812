#!/usr/bin/env bash
# Installs rightsize's build dependencies. Idempotent and non-interactive.
# On Debian/Ubuntu it installs the packages with apt-get; elsewhere it prints what to install.
set -euo pipefail

packages=(build-essential cmake git libcli11-dev nlohmann-json3-dev libfmt-dev libspdlog-dev libyaml-cpp-dev catch2
  clang-format clang-tidy) # the last two: scripts/lint.sh, which .ci/run calls
# clang + compiler-rt give the libFuzzer targets; ccache serves RIGHTSIZE_CCACHE=1 builds (several
# worktrees share one cache). Optional: skipped if unavailable.
optional=(clang libclang-rt-dev ccache)

if ! command -v apt-get >/dev/null 2>&1; then
  echo "rightsize: setup: not a Debian/Ubuntu system; install these with your package manager:" >&2
  echo "  C++20 compiler (g++ >= 12 or clang >= 14), CMake >= 3.20, CLI11, nlohmann_json, fmt, spdlog, Catch2 v2" >&2
  echo "  and, for scripts/lint.sh, clang-format and clang-tidy (version 14 or newer)" >&2
  exit 0
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
missing_opt=()
for p in "${optional[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing_opt+=("$p")
done

if [ ${#missing[@]} -eq 0 ] && [ ${#missing_opt[@]} -eq 0 ]; then
  echo "rightsize: setup: all dependencies present" >&2
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
echo "rightsize: setup: installing ${missing[*]} ${missing_opt[*]}" >&2
$sudo apt-get update -qq
if [ ${#missing[@]} -gt 0 ]; then
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if [ ${#missing_opt[@]} -gt 0 ]; then
  $sudo apt-get install -y -qq --no-install-recommends "${missing_opt[@]}" >/dev/null ||
    echo "rightsize: setup: warning: optional ${missing_opt[*]} not installed (fuzzers or ccache disabled)" >&2
fi
