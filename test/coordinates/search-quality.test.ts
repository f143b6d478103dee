/**
 * Search quality as a user judges it: queries people type, and the system they mean. Each case
 * names the expected first result (and, where the order matters, what follows or must come after
 * it); every code's name is checked with PROJ's own projinfo reading the same registry, so a code
 * EPSG reassigns or renames fails here instead of the list going stale unnoticed.
 *
 * The ranking rules these exercise are general (coordinates guide, "Ranking"): place-name and
 * nickname tables, noise words, typo tolerance, popularity (of CRSs, borrowed by their datums),
 * areas that are about a place, deprecated and depth variants last. No case is answered by a rule
 * written for it.
 */

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { loadRegistry } from '../../src/coordinates/registry.js';
import { search } from '../../src/coordinates/search.js';
import { requirePeers } from '../peers.js';
import { sameRegistry } from './peer-registry.js';

interface Case {
  query: string;
  first: number;
  /** The expected first result's name (checked with projinfo). */
  name: RegExp;
  /** The second result, when the order after the first matters. */
  second?: number;
  /** Codes that must be on the first page (10 results). */
  onPage?: number[];
  /** Codes that must come after the first result (or not be on the page at all). */
  after?: number[];
  /** A pattern the names of the first three results all match (a family first). */
  leading?: RegExp;
  /** The expected first result's area of use (checked with projinfo), where the case rests on it. */
  area?: RegExp;
}

const CASES: Case[] = [
  // The list.
  // Switzerland's systems next, not Switzerland County's (Indiana): NAD83(2011) / InGCS Dearborn-Ohio-Switzerland.
  { query: 'swiss', first: 2056, name: /^CH1903\+ \/ LV95$/, second: 21781, leading: /^CH1903\b/ },
  { query: 'swiss grid', first: 2056, name: /^CH1903\+ \/ LV95$/ },
  { query: 'germany', first: 25832, name: /^ETRS89 \/ UTM zone 32N$/, second: 25833, after: [31466, 31467, 31468, 31469] },
  { query: 'google', first: 3857, name: /^WGS 84 \/ Pseudo-Mercator$/ },
  { query: 'web mercator', first: 3857, name: /^WGS 84 \/ Pseudo-Mercator$/ },
  { query: 'pseudo mercator', first: 3857, name: /^WGS 84 \/ Pseudo-Mercator$/ },
  { query: 'british national grid', first: 27700, name: /^OSGB36 \/ British National Grid$/ },
  { query: 'lambert 93', first: 2154, name: /RGF93 v1.* \/ Lambert-93$/ },
  { query: 'gda2020', first: 7844, name: /^GDA2020$/, leading: /^GDA2020\b/ },
  { query: 'utm 33n', first: 32633, name: /^WGS 84 \/ UTM zone 33N$/, second: 25833 },
  { query: 'mercatr', first: 3857, name: /^WGS 84 \/ Pseudo-Mercator$/ },
  { query: 'lamber', first: 2154, name: /Lambert-93$/ },
  { query: 'switzerlnd', first: 2056, name: /^CH1903\+ \/ LV95$/ },
  { query: 'québec lambert', first: 32198, name: /^NAD83 \/ Quebec Lambert$/, after: [32098] },
  { query: 'Réunion', first: 4626, name: /^Reunion 1947$/, onPage: [4627] },
  { query: 'kind:DATUM wgs', first: 6326, name: /^World Geodetic System 1984( ensemble)?$/ },
  { query: 'epsg 3857', first: 3857, name: /^WGS 84 \/ Pseudo-Mercator$/ },
  { query: 'EPSG:3857', first: 3857, name: /^WGS 84 \/ Pseudo-Mercator$/ },
  { query: 'state plane new york', first: 2263, name: /^NAD83 \/ New York Long Island \(ftUS\)$/, leading: /^NAD83 \/ New York / },
  { query: 'navd88', first: 5703, name: /^NAVD88 height$/, after: [6357, 6358] },
  { query: 'polar stereographic', first: 3413, name: /Polar Stereographic North$/, onPage: [3031, 3995, 3976, 32661, 32761] },
  // Weak queries of issue 18: a country's name finds its systems.
  { query: 'brazil', first: 4674, name: /^SIRGAS 2000$/, onPage: [29101, 5880] },
  { query: 'irish grid', first: 2157, name: /Irish Transverse Mercator$/, onPage: [29902, 29903] },
  // National grids and frames by their common names.
  { query: 'rd new', first: 28992, name: /^RD$/ },
  { query: 'amersfoort', first: 28992, name: /^RD$/ },
  { query: 'mga 55', first: 28355, name: /^GDA94 \/ MGA zone 55$/, second: 7855 },
  { query: 'gda94 mga', first: 28355, name: /^GDA94 \/ MGA zone 55$/ },
  { query: 'nzgd2000', first: 2193, name: /^NZGD2000 \/ New Zealand Transverse Mercator 2000$/ },
  { query: 'nztm', first: 2193, name: /^NZGD2000 \/ New Zealand Transverse Mercator 2000$/ },
  { query: 'etrs89 laea', first: 3035, name: /^ETRS89-extended \/ LAEA Europe$/ },
  { query: 'wgs 84', first: 4326, name: /^WGS 84$/ },
  { query: 'gps', first: 4326, name: /^WGS 84$/ },
  { query: 'lv95', first: 2056, name: /^CH1903\+ \/ LV95$/ },
  { query: 'lv03', first: 21781, name: /^CH1903 \/ LV03$/ },
  { query: 'ch1903', first: 2056, name: /^CH1903\+ \/ LV95$/ },
  { query: 'osgb', first: 27700, name: /^OSGB36 \/ British National Grid$/ },
  { query: 'itrf2014', first: 7789, name: /^ITRF2014$/, leading: /^ITRF2014$/ },
  { query: 'sirgas 2000', first: 4674, name: /^SIRGAS 2000$/ },
  { query: 'jgd2011', first: 6668, name: /^JGD20(11|24)$/ },
  { query: 'cgcs2000', first: 4490, name: /^China Geodetic Coordinate System 2000$/ },
  { query: 'nad83 csrs', first: 4617, name: /^NAD83\(CSRS\)$/ },
  { query: 'nad83', first: 4269, name: /^NAD83$/ },
  { query: 'nad27', first: 4267, name: /^NAD27$/ },
  { query: 'ed50', first: 4230, name: /^ED50$/ },
  { query: 'sweref', first: 3006, name: /SWEREF 99 TM\]?$/ },
  { query: 'itm', first: 2157, name: /Irish Transverse Mercator$/ },
  { query: 'etrs89 utm 32', first: 25832, name: /^ETRS89 \/ UTM zone 32N$/ },
  { query: 'wgs 84 utm 33n', first: 32633, name: /^WGS 84 \/ UTM zone 33N$/ },
  { query: 'utm 32n', first: 32632, name: /^WGS 84 \/ UTM zone 32N$/, second: 25832 },
  { query: 'spherical mercator', first: 3857, name: /^WGS 84 \/ Pseudo-Mercator$/ },
  // Countries, and the words for them.
  { query: 'switzerland', first: 2056, name: /^CH1903\+ \/ LV95$/ },
  { query: 'united kingdom', first: 27700, name: /^OSGB36 \/ British National Grid$/ },
  { query: 'british', first: 27700, name: /^OSGB36 \/ British National Grid$/ },
  { query: 'france', first: 2154, name: /Lambert-93$/ },
  { query: 'french lambert', first: 2154, name: /Lambert-93$/ },
  { query: 'netherlands', first: 28992, name: /^RD$/ },
  { query: 'dutch', first: 28992, name: /^RD$/ },
  { query: 'finland', first: 3067, name: /TM35FIN\(E,N\)$/ },
  { query: 'poland', first: 2180, name: /^ETRS89 \/ PL-1992$/ },
  { query: 'belgium', first: 31370, name: /^BD72 \/ Belgian Lambert 72$/ },
  { query: 'portugal', first: 3763, name: /Portugal TM06$/ },
  { query: 'ireland', first: 2157, name: /Irish Transverse Mercator$/ },
  { query: 'denmark', first: 25832, name: /^ETRS89 \/ UTM zone 32N$/ },
  { query: 'korea', first: 5179, name: /^KGD2002 \/ Unified CS$/ },
  { query: 'new zealand', first: 2193, name: /^NZGD2000 \/ New Zealand Transverse Mercator 2000$/ },
  { query: 'japan', first: 6668, name: /^JGD20(11|24)$/ },
  { query: 'canada', first: 3978, name: /^NAD83 \/ Canada Atlas Lambert$/ },
  // A country with a grid of its own: a projected CRS whose area of use is that country as a whole
  // (projinfo: "Austria.", "Italy - onshore and offshore.") comes before ETRS89 / UTM zone 32N and
  // 33N, popular systems about it only as one country of their area's list (a zone of a continent:
  // "Europe between 6°E and 12°E: Austria; Denmark; Germany; Italy; ..."), and before the grids of
  // a part of it (MGI / Austria M28 "Austria west of 11°50'E", Monte Mario / Italy zone 1 "Italy -
  // west of 12°E"). Germany and Denmark have no such grid (ETRS89 / LCC Germany covers
  // "Germany - onshore"): there UTM zone 32N stays first, as their surveying agencies use it.
  // Austria: MGI / Austria Lambert, the grid Austria's federal data is published in; its ETRS89
  // counterpart (ETRS89-AUT [2002] / Austria Lambert, same area) follows.
  { query: 'austria', first: 31287, name: /^MGI \/ Austria Lambert$/, area: /^Austria\.$/, onPage: [3416], after: [25832, 25833, 31284, 31257] },
  // Italy: the national grid of RDN2008 (ETRS89-ITA), Italy's official frame since 2011.
  { query: 'italy', first: 6875, name: /^ETRS89-ITA \[RDN2008\] \/ Italy zone \(N-E\)$/, area: /^Italy - onshore and offshore\.$/, after: [25832, 25833, 3003, 3004] },
  // Mexico: among its two whole-country grids, the one on the newer realization (projinfo's remark
  // on Mexico ITRF2008: "Replaces Mexico ITRF92 (CRS code 4483) from December 2010"), then the older
  // one, both before the geographic and geocentric CRSs of those frames.
  { query: 'mexico', first: 6372, name: /^Mexico ITRF2008 \/ LCC$/, area: /^Mexico - onshore and offshore\.$/, second: 6362, after: [4481, 4482, 4483] },
];

const registry = loadRegistry();
const codes = (query: string) => search(registry, { query, limit: 10, offset: 0, transformations: false, exports: false }).results.map((item) => item.id.code);
const names = (query: string) => search(registry, { query, limit: 3, offset: 0, transformations: false, exports: false }).results.map((item) => item.name);

/** projinfo's name and area of use of an EPSG object (CRS or datum), reading the registry Meridian uses. */
function projinfoOf(code: number, datum: boolean): { name: string; area: string | undefined } {
  const run = spawnSync('projinfo', [datum ? `urn:ogc:def:datum:EPSG::${code}` : `EPSG:${code}`, '-o', 'PROJJSON', '--single-line', '-q'], {
    encoding: 'utf8',
    env: sameRegistry,
  });
  assert.equal(run.status, 0, `projinfo EPSG:${code}: ${run.stderr}`);
  const found = JSON.parse(run.stdout) as { name: string; area?: string; usages?: { area?: string }[] };
  return { name: found.name, area: found.area ?? found.usages?.[0]?.area };
}

test(`the list has at least 40 queries, each with a different text`, () => {
  assert.ok(CASES.length >= 40, `${CASES.length} queries`);
  assert.equal(new Set(CASES.map((entry) => entry.query)).size, CASES.length);
});

test('the expected codes are named as the list says, by projinfo', () => {
  requirePeers('proj');
  for (const entry of CASES) {
    const { name, area } = projinfoOf(entry.first, entry.query.includes('kind:DATUM'));
    assert.match(name, entry.name, `${entry.query}: EPSG:${entry.first} is "${name}"`);
    if (entry.area) assert.match(area ?? '', entry.area, `${entry.query}: EPSG:${entry.first}'s area is "${area}"`);
  }
});

test('each query puts the system a user means first', () => {
  const misses: string[] = [];
  for (const entry of CASES) {
    const found = codes(entry.query);
    const miss = (why: string) => misses.push(`${entry.query}: ${why} (got ${found.join(', ')})`);
    if (found[0] !== entry.first) miss(`${entry.first} first`);
    if (entry.second !== undefined && found[1] !== entry.second) miss(`${entry.second} second`);
    for (const code of entry.onPage ?? []) if (!found.includes(code)) miss(`${code} on the first page`);
    for (const code of entry.after ?? []) if (found.indexOf(code) === 0) miss(`${code} after ${entry.first}`);
    if (entry.leading) {
      const leading = names(entry.query);
      if (!leading.every((name) => entry.leading!.test(name))) miss(`the first three named ${entry.leading}: ${leading.join('; ')}`);
    }
  }
  assert.deepEqual(misses, []);
});
