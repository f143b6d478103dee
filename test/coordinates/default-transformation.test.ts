/**
 * A CRS's default transformation and exports against PROJ's own tools (issue 18): the default
 * transformation is projinfo's first candidate from the CRS to WGS 84 over the CRS's area whose
 * grids are installed (PROJ 9.1.1 reading the same registry), and the exports are projinfo's
 * `--boundcrs-to-wgs84`. Checked on named cases and on CRSs drawn from the registry with a fixed
 * seed; where PROJ 9.9 ranks otherwise than 9.1.1, the CRS is listed with the reason in
 * peer-differences.ts.
 */

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { before, test } from 'node:test';
import { promisify } from 'node:util';
import { loadRegistry } from '../../src/coordinates/search/registry.js';
import { search, type SearchItem } from '../../src/coordinates/search/search.js';
import { requirePeers } from '../peers.js';
import { RANKED_OTHERWISE_SINCE_PROJ_9_1 } from './peer-differences.js';
import { sameRegistry } from './peer-registry.js';

const run = promisify(execFile);
const registry = loadRegistry();

before(() => requirePeers('proj'));

const itemOf = (code: number): SearchItem =>
  search(registry, { query: `code:${code} deprecated:*`, limit: 1, offset: 0, transformations: false, exports: true }).results[0]!;

/** projinfo's first candidate from the CRS to WGS 84 whose grids are all installed: its name, or null when there is none or it is a ballpark. */
async function projinfoFirst(code: number): Promise<string | null> {
  const { stdout } = await run('projinfo', ['-s', `EPSG:${code}`, '-t', 'EPSG:4326', '--spatial-test', 'intersects', '--summary'], { env: sameRegistry, maxBuffer: 1 << 24 }).catch(
    (error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }),
  );
  const first = stdout.split('\n').find((line) => line.includes(', ') && !line.startsWith('Candidate') && !line.includes('at least one grid missing'));
  if (!first || first.includes('has ballpark transformation')) return null;
  // "EPSG:1676, CH1903+ to WGS 84 (1), 1 m, area" or "unknown id, Inverse of <conversion> + <steps>, 2 m, area".
  return first.slice(first.indexOf(', ') + 2);
}

/**
 * Whether projinfo's candidate line (name, accuracy, area) is our default: the same transformation
 * steps, after the CRSs' own conversions ("Inverse of UTM zone 19N + ..."). A candidate of
 * conversions only (accuracy 0 m: a CRS on WGS 84 itself) has no transformation to name.
 */
function sameOperation(line: string | null, item: SearchItem): boolean {
  const ours = item.default_transformation;
  if (ours === null) return line === null || / 0 m, /.test(line);
  return line !== null && (line.startsWith(`${ours.name}, `) || line.includes(` + ${ours.name}, `));
}

async function projinfoBound(code: number): Promise<string | null> {
  const { stdout } = await run('projinfo', [`EPSG:${code}`, '-o', 'PROJ', '--boundcrs-to-wgs84', '-q', '--single-line'], { env: sameRegistry }).catch(() => ({ stdout: '' }));
  return stdout.trim() || null;
}

test('default transformations that were wrong: grids installed, EPSG chains, concatenated operations (projinfo first)', async () => {
  // DHDN Gauss-Krüger: DHDN to WGS 84 (4), the BETA2007 grid; NZGD49: NZGD49 to WGS 84 (3), its grid.
  for (const code of [31466, 31467, 31468, 31469]) assert.equal(itemOf(code).default_transformation?.code, 15949, `EPSG:${code}`);
  assert.equal(itemOf(27200).default_transformation?.code, 1670);
  // NTF (Paris) Lambert zone II: the EPSG concatenated operation NTF (Paris) to WGS 84 (1) of its two steps.
  assert.deepEqual(itemOf(27572).default_transformation, {
    authority: 'EPSG',
    code: 8094,
    name: 'NTF (Paris) to NTF (1) + NTF to WGS 84 (1)',
    steps: [{ authority: 'EPSG', code: 1763 }, { authority: 'EPSG', code: 1193 }],
  });
  // ETRF2000 (3D): a chain through ETRS89 whose first step PROJ makes (ensemble member): no code
  // names it all; the spec's integer code is its EPSG step's, ETRS89 to WGS 84 (1).
  const etrf = itemOf(7930).default_transformation;
  assert.equal(etrf?.code, 1149);
  assert.deepEqual(etrf?.steps, [{ authority: 'EPSG', code: 1149 }]);
  assert.match(etrf?.name ?? '', /^Inverse of ETRS89 to ETRF2000 \+ ETRS89 to WGS 84 \(1\)$/);
  for (const code of [31466, 31467, 27200, 27572, 7930, 2065, 31251, 4229]) {
    assert.ok(sameOperation(await projinfoFirst(code), itemOf(code)), `EPSG:${code}: projinfo ${await projinfoFirst(code)}, ours ${JSON.stringify(itemOf(code).default_transformation)}`);
  }
});

test('exports are projinfo --boundcrs-to-wgs84: TOWGS84 of concatenated operations, geoid grids, no null', async () => {
  assert.match(itemOf(27572).exports!.proj4!, /\+pm=paris \+towgs84=-168,-60,320,0,0,0,0 /);
  assert.notEqual(itemOf(4229).exports!.proj4, null);
  assert.notEqual(itemOf(4229).exports!.wkt, null);
  for (const code of [27572, 4229, 31467, 2065, 27200, 5972, 5773, 7930, 2056, 3857, 5514]) {
    assert.equal(itemOf(code).exports!.proj4, await projinfoBound(code), `EPSG:${code}`);
  }
});

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const SAMPLE = 30;

test(`default transformation and exports of ${SAMPLE} CRSs drawn from the registry equal projinfo's (differences listed with reasons)`, { timeout: 120_000 }, async () => {
  const codes = [...registry.crs.values()].filter((entry) => !entry.deprecated).map((entry) => entry.code);
  const next = random(18_0002);
  const drawn = new Set<number>();
  while (drawn.size < SAMPLE) drawn.add(codes[Math.floor(next() * codes.length)]!);
  const differences: string[] = [];
  const ranked = new Set<number>();
  for (const code of drawn) {
    const item = itemOf(code);
    const [first, bound] = await Promise.all([projinfoFirst(code), projinfoBound(code)]);
    if (!sameOperation(first, item)) {
      if (RANKED_OTHERWISE_SINCE_PROJ_9_1.has(code)) ranked.add(code);
      else differences.push(`EPSG:${code} default: projinfo ${first}, ours ${JSON.stringify(item.default_transformation)}`);
    }
    if (item.exports!.proj4 !== bound && !RANKED_OTHERWISE_SINCE_PROJ_9_1.has(code)) differences.push(`EPSG:${code} proj4: projinfo ${bound}, ours ${item.exports!.proj4}`);
  }
  assert.deepEqual(differences, []);
  const listed = [...RANKED_OTHERWISE_SINCE_PROJ_9_1.keys()].filter((code) => drawn.has(code));
  assert.deepEqual([...ranked].sort(), listed.sort(), 'every listed difference still holds');
});
