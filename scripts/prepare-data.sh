#!/usr/bin/env bash
# Data a fresh installation starts with: the real GRIB2 forecasts that Debian's python-grib-doc
# ships (a global GFS run and a 3-hourly southern Africa run), ingested once into the data
# directory so that /weather/latest.json is not empty. Honours MERIDIAN_DATA_DIR and DATABASE_URL.
set -euo pipefail
cd "$(dirname "$0")/.."

samples=/usr/share/doc/python-grib-doc/examples
data=${MERIDIAN_DATA_DIR:-./data}
stamp="$data/.samples-ingested"
[ -f "$stamp" ] && exit 0

node bin/meridian.js weather ingest "$samples/gfs.t12z.pgrbf120.2p5deg.grib2" --model gfs --attribution GFS > /dev/null
node bin/meridian.js weather ingest "$samples/safrica.grib2" --model safrica --attribution "NCEP" > /dev/null
mkdir -p "$data"
date -u +%FT%TZ > "$stamp"
echo "Ingested the sample forecasts of $samples"
