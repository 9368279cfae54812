#!/usr/bin/env bash
# Installs rightsize's build dependencies. Idempotent and non-interactive.
# On Debian/Ubuntu it installs the packages with apt-get; elsewhere it prints what to install.
# Then the schema check's Node.js packages (tests/schema, `ctest -L schema`): `npm ci` from the
# committed package-lock.json, skipped while node_modules holds that lock's install.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

# npm ci for tests/schema unless node_modules was installed from this very package-lock.json.
install_schema_packages() {
  local dir="$root/tests/schema" stamp want
  stamp="$dir/node_modules/.rightsize-lock.sha256"
  want=$({ sha256sum || shasum -a 256; } <"$dir/package-lock.json" 2>/dev/null | cut -d' ' -f1)
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    echo "rightsize: setup: schema check packages present" >&2
    return 0
  fi
  if ! command -v npm >/dev/null 2>&1; then
    echo "rightsize: setup: warning: no npm; the schema check (ctest -L schema) fails until Node.js and npm are installed" >&2
    return 0
  fi
  echo "rightsize: setup: npm ci --prefix tests/schema" >&2
  npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error >/dev/null
  echo "$want" >"$stamp"
}

packages=(build-essential cmake git libcli11-dev nlohmann-json3-dev libfmt-dev libspdlog-dev libyaml-cpp-dev catch2
  clang-format clang-tidy) # the last two: scripts/lint.sh, which .ci/run calls
# clang + compiler-rt give the libFuzzer targets; ccache serves RIGHTSIZE_CCACHE=1 builds (several
# worktrees share one cache). Optional: skipped if unavailable.
optional=(clang libclang-rt-dev ccache)

if ! command -v apt-get >/dev/null 2>&1; then
  echo "rightsize: setup: not a Debian/Ubuntu system; install these with your package manager:" >&2
  echo "  C++20 compiler (g++ >= 12 or clang >= 14), CMake >= 3.20, CLI11, nlohmann_json, fmt, spdlog, Catch2 v2" >&2
  echo "  and, for scripts/lint.sh, clang-format and clang-tidy (version 14 or newer)" >&2
  echo "  and, for the schema check (tests/schema), Node.js 18 or newer with npm" >&2
  install_schema_packages
  exit 0
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# Node.js and npm (tests/schema) by their commands: a NodeSource nodejs package carries npm and
# conflicts with Debian's npm package, so asking dpkg for npm would replace a working install.
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
missing_opt=()
for p in "${optional[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing_opt+=("$p")
done

if [ ${#missing[@]} -eq 0 ] && [ ${#missing_opt[@]} -eq 0 ]; then
  echo "rightsize: setup: all dependencies present" >&2
  install_schema_packages
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
install_schema_packages
