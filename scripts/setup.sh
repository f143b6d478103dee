#!/usr/bin/env bash
# Installs and builds everything Meridian needs on a Debian machine with Node.js 20 or newer.
# Safe to run again: each step is skipped when its result is already up to date.
set -euo pipefail
cd "$(dirname "$0")/.."

major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$major" -lt 20 ]; then
  echo "Meridian needs Node.js 20 or newer (found: $(node --version 2>/dev/null || echo none))" >&2
  exit 1
fi

# npm packages, reinstalled only when package-lock.json changed.
stamp=node_modules/.meridian-lock-sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  npm ci --no-audit --no-fund
  echo "$want" > "$stamp"
fi

npm run build --silent
