#!/usr/bin/env bash
# Installs and builds everything Meridian needs on a Debian machine with Node.js 20 or newer.
# Safe to run again: each step is skipped when its result is already up to date.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 20 || (a === 20 && b >= 15) ? 0 : 1)' 2>/dev/null; then
  echo "Meridian needs Node.js 20.15 or newer (found: $(node --version 2>/dev/null || echo none))" >&2
  exit 1
fi

# Debian packages: PROJ's grids (proj-data; PROJ itself and its EPSG registry come from npm
# proj-wasm) and cs2cs/projinfo as test peers (proj-bin), a compiler for npm packages that build
# from source when no prebuilt binary fits, real GRIB2 forecasts (python-grib-doc) and ecCodes, the
# reference GRIB decoder the weather tests compare with, and the lakes and rivers of the default
# map: GSHHG at crude to high resolution (gmt-gshhg-low, gmt-gshhg-high), which only GMT reads;
# the fonts the map renderer draws text with: Noto Sans (Latin, Greek, Cyrillic, Arabic and more),
# Noto Sans CJK and Open Sans; for street maps (`meridian maps import`) tilemaker and osmium-tool,
# GSHHG at full resolution (the sea around an extract) and the OpenStreetMap samples of
# python-osmnx-doc that the quick start imports; libxml2-utils, whose xmllint validates the WMTS
# capabilities against the OGC schemas in the tests; udunits-bin, whose udunits2 checks the weather
# catalog's units; bzip2, which decompresses forecasts published as .grib2.bz2 (DWD); libdeflate0,
# which compresses the PNG images up to 512x512 (src/maps/static/deflate.ts). With --dev also Chromium, in which MapLibre GL JS renders the reference images
# of the render tests and the static-map benchmark's peer, nginx, which test/deploy/nginx.test.ts
# runs with the deployment recipe's site (as a child process of its own, on a free port), and
# OpenJPEG's opj_compress and opj_decompress (libopenjp2-tools), which write and read the JPEG 2000
# images of test/weather/grib/jpeg2000.test.ts.
packages=(g++ make python3 proj-data proj-bin python-grib-doc libeccodes-tools
  gmt gmt-gshhg-low gmt-gshhg-high fonts-noto-core fonts-noto-cjk fonts-open-sans
  tilemaker osmium-tool gmt-gshhg-full python-osmnx-doc libxml2-utils udunits-bin bzip2 libdeflate0)
[ "${1:-}" = "--dev" ] && packages+=(chromium nginx libopenjp2-tools)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
done
if [ "${#missing[@]}" -gt 0 ]; then
  sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  echo "Installing Debian packages: ${missing[*]}"
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
  # Debian starts nginx as a service on port 80 when it installs it; the tests need the program only.
  if [[ " ${missing[*]} " == *" nginx "* ]] && command -v systemctl > /dev/null && [ -d /run/systemd/system ]; then
    "${sudo[@]}" systemctl disable --now nginx > /dev/null 2>&1 || true
  fi
fi

# npm packages, reinstalled only when package-lock.json changed.
stamp=node_modules/.meridian-lock-sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  npm ci --no-audit --no-fund
  echo "$want" > "$stamp"
fi

npm run build --silent
