#!/usr/bin/env bash
# Installs what the Node, Bun and workerd test runs need into
# _tools/runtimes/node_modules, from npm, without install scripts: Bun's
# postinstall would download or relink its binary; here its platform
# package (which ships the binary) is used as it comes.
set -euo pipefail
cd "$(dirname "$0")"
npm ci --ignore-scripts --no-fund --no-audit --loglevel=error >/dev/null
# Bun's x64 build needs AVX2; CPUs without it take the baseline build.
if [ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ] && ! grep -qw avx2 /proc/cpuinfo; then
  version=$(node -p 'require("./package.json").dependencies.bun')
  npm install --no-save --ignore-scripts --no-fund --no-audit --loglevel=error \
    "@oven/bun-linux-x64-baseline@$version" >/dev/null
fi
