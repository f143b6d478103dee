/**
 * The programs and files the tests compare Meridian with: its peers. `bash scripts/setup.sh`
 * installs every one of them (`--dev` adds Chromium), so a missing peer is a failure that names
 * the Debian package to install, never a skip: a machine without ecCodes must not come out green
 * with no GRIB2 coverage. Call `requirePeers` in a `before` hook (or at the top of a test) of
 * every test that runs a peer.
 */

import { accessSync, constants } from 'node:fs';
import path from 'node:path';

export const GRIB_EXAMPLES = '/usr/share/doc/python-grib-doc/examples';
export const CHROMIUM = '/usr/bin/chromium';
export const OSM_SAMPLES = '/usr/share/doc/python-osmnx-doc/examples/tests/input_data';
export const OAKLAND = path.join(OSM_SAMPLES, 'West-Oakland.osm.bz2');
export const KIRCHBERG = path.join(OSM_SAMPLES, 'planet_10.068,48.135_10.071,48.137.osm');

interface Peer {
  /** Programs: names looked up on PATH, or absolute paths. */
  programs?: string[];
  /** Files it must be able to read. */
  files?: string[];
  what: string;
  /** The Debian package that provides it. */
  package: string;
  setup: string;
}

const peers = {
  ecCodes: {
    programs: ['grib_get', 'grib_get_data', 'grib_filter', 'grib_copy', 'grib_set', 'grib_dump'],
    what: "ecCodes' command-line tools, the reference GRIB decoder",
    package: 'libeccodes-tools',
    setup: 'bash scripts/setup.sh',
  },
  proj: {
    programs: ['cs2cs', 'projinfo', 'proj', 'cct'],
    what: "PROJ's command-line tools, the reference for coordinates",
    package: 'proj-bin',
    setup: 'bash scripts/setup.sh',
  },
  gribExamples: {
    files: ['gfs.t12z.pgrbf120.2p5deg.grib2', 'safrica.grib2', 'regular_latlon_surface.grib2'].map((name) => path.join(GRIB_EXAMPLES, name)),
    what: 'the example GRIB files of python-grib-doc',
    package: 'python-grib-doc',
    setup: 'bash scripts/setup.sh',
  },
  osmSamples: {
    files: [OAKLAND, KIRCHBERG],
    what: 'the OpenStreetMap extracts of python-osmnx-doc',
    package: 'python-osmnx-doc',
    setup: 'bash scripts/setup.sh',
  },
  gshhgFull: {
    programs: ['gmt'],
    files: ['/usr/share/gmt-gshhg/binned_GSHHS_f.nc'],
    what: 'GSHHG shorelines at full resolution and GMT, which reads them',
    package: 'gmt-gshhg-full',
    setup: 'bash scripts/setup.sh',
  },
  udunits: {
    programs: ['udunits2'],
    what: "UDUNITS' udunits2, which checks that the catalog's units parse and convert as they should",
    package: 'udunits-bin',
    setup: 'bash scripts/setup.sh',
  },
  xmllint: {
    programs: ['xmllint'],
    what: "libxml2's xmllint, the XML Schema validator of the WMTS capabilities",
    package: 'libxml2-utils',
    setup: 'bash scripts/setup.sh',
  },
  chromium: {
    programs: [CHROMIUM],
    what: 'Chromium, in which MapLibre GL JS runs',
    package: 'chromium',
    setup: 'bash scripts/setup.sh --dev',
  },
} satisfies Record<string, Peer>;

export type PeerName = keyof typeof peers;

function accessible(file: string, mode: number): boolean {
  try {
    accessSync(file, mode);
    return true;
  } catch {
    return false;
  }
}

function runnable(program: string): boolean {
  if (path.isAbsolute(program)) return accessible(program, constants.X_OK);
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  return dirs.some((dir) => accessible(path.join(dir, program), constants.X_OK));
}

/** One line per missing peer: what is missing and the package that provides it. */
export function missingPeers(...names: PeerName[]): string[] {
  return names.flatMap((name) => {
    const peer: Peer = peers[name];
    const absent = [
      ...(peer.programs ?? []).filter((program) => !runnable(program)),
      ...(peer.files ?? []).filter((file) => !accessible(file, constants.R_OK)),
    ];
    if (absent.length === 0) return [];
    return [`${peer.what} (${absent.join(', ')}) missing: install Debian's ${peer.package} (${peer.setup} does)`];
  });
}

/** Throws, naming each missing peer and its package, unless all of them are installed. */
export function requirePeers(...names: PeerName[]): void {
  const missing = missingPeers(...names);
  if (missing.length > 0) throw new Error(`missing test peer: ${missing.join('; ')}`);
}
