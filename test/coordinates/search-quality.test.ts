/**
 * Search quality as a user judges it: queries people type, and the system they mean. Each case
 * names the expected first result, or one of the first three where the place's other systems may
 * lead (and, where the order matters, what follows or must come after it); a table of queries in
 * other languages follows the English ones. Every code's name is checked with PROJ's own projinfo
 * reading the same registry, so a code EPSG reassigns or renames fails here instead of the list
 * going stale unnoticed.
 *
 * The ranking rules these exercise are general (coordinates guide, "Ranking"): place-name and
 * nickname tables, noise words, typo tolerance, popularity (of CRSs, borrowed by their datums),
 * areas that are about a place, deprecated and depth variants last, countries' names in other
 * languages, UTM hemispheres in words, neighbouring words as one. No case is answered by a rule
 * written for it.
 */

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { loadRegistry } from '../../src/coordinates/search/registry.js';
import { search } from '../../src/coordinates/search/search.js';
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
  /** The expected code is among the first `top` results rather than first, where the place's other systems may lead. */
  top?: 3;
  /** A pattern the names of the first three results all match (a family first). */
  leading?: RegExp;
  /** The expected first result's area of use (checked with projinfo), where the case rests on it. */
  area?: RegExp;
}

const CASES: Case[] = [
  // The issue's list.
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
  // Gauss-Krüger as it is spelled: DHDN's zones (former West Germany), a legacy grid still in wide
  // use, before the other countries' Gauss-Kruger systems; zone 3 covers most of it. A zone number
  // picks that zone, not the others whose names say "3-degree".
  { query: 'gauss kruger', first: 31467, name: /^DHDN \/ 3-degree Gauss-Kruger zone 3$/, top: 3 },
  { query: 'gauss kruger zone 3', first: 31467, name: /^DHDN \/ 3-degree Gauss-Kruger zone 3$/ },
  { query: 'gauss krueger zone 4', first: 31468, name: /^DHDN \/ 3-degree Gauss-Kruger zone 4$/ },
  { query: 'gk', first: 31467, name: /^DHDN \/ 3-degree Gauss-Kruger zone 3$/, top: 3 },
  // A UTM hemisphere in words: WGS 84's zone first, as for `utm 32n`.
  { query: 'utm zone 32 north', first: 32632, name: /^WGS 84 \/ UTM zone 32N$/, second: 25832, after: [26632] },
  { query: 'utm 33 south', first: 32733, name: /^WGS 84 \/ UTM zone 33S$/ },
  { query: 'utm 33 s', first: 32733, name: /^WGS 84 \/ UTM zone 33S$/ },
  { query: 'czech republic', first: 5514, name: /^S-JTSK \/ Krovak East North$/ },
];

/**
 * Countries' names in other languages (and a few other words), and what a GIS user of that country
 * means by them: the national grid or the system most used there, as for the English name above.
 * Spain and Norway use ETRS89's UTM zones, more than one (zones 29 to 31 for Spain, 32 to 35 for
 * Norway), so the zone covering most of the country (30N; 33N, Norway's national mapping zone) is
 * expected among the first three. Accents may be left out.
 */
const LOCALIZED_NAMES: Record<number, RegExp> = {
  2056: /^CH1903\+ \/ LV95$/,
  25832: /^ETRS89 \/ UTM zone 32N$/,
  25830: /^ETRS89 \/ UTM zone 30N$/,
  25833: /^ETRS89 \/ UTM zone 33N$/,
  31287: /^MGI \/ Austria Lambert$/,
  2180: /^ETRS89 \/ PL-1992$/,
  28992: /^RD$/,
  2154: /RGF93 v1.* \/ Lambert-93$/,
  6875: /^ETRS89-ITA \[RDN2008\] \/ Italy zone \(N-E\)$/,
  5514: /^S-JTSK \/ Krovak East North$/,
  8353: /^S-JTSK \[JTSK03\] \/ Krovak East North$/,
  31370: /^BD72 \/ Belgian Lambert 72$/,
  3006: /SWEREF 99 TM\]?$/,
  3067: /TM35FIN\(E,N\)$/,
  27700: /^OSGB36 \/ British National Grid$/,
  2157: /Irish Transverse Mercator$/,
  2193: /^NZGD2000 \/ New Zealand Transverse Mercator 2000$/,
  6668: /^JGD20(11|24)$/,
  4674: /^SIRGAS 2000$/,
  4490: /^China Geodetic Coordinate System 2000$/,
  5179: /^KGD2002 \/ Unified CS$/,
  2100: /^GGRS87 \/ TM87$/,
  23700: /^HD72 \/ EOV$/,
  3763: /Portugal TM06$/,
  31467: /^DHDN \/ 3-degree Gauss-Kruger zone 3$/,
  31468: /^DHDN \/ 3-degree Gauss-Kruger zone 4$/,
  32632: /^WGS 84 \/ UTM zone 32N$/,
  32630: /^WGS 84 \/ UTM zone 30N$/,
  32719: /^WGS 84 \/ UTM zone 19S$/,
};

/** [language, query, expected code, within the first (1 or 3)]. */
const LOCALIZED: [string, string, number, 1 | 3][] = [
  ['de', 'Schweiz', 2056, 1],
  ['de', 'Deutschland', 25832, 1],
  ['de', 'Österreich', 31287, 1],
  ['de', 'Osterreich', 31287, 1],
  ['de', 'Niederlande', 28992, 1],
  ['de', 'Frankreich', 2154, 1],
  ['de', 'Italien', 6875, 1],
  ['de', 'Polen', 2180, 1],
  ['de', 'Tschechien', 5514, 1],
  ['de', 'Belgien', 31370, 1],
  ['de', 'Dänemark', 25832, 1],
  ['de', 'Schweden', 3006, 1],
  ['de', 'Finnland', 3067, 1],
  ['de', 'Vereinigtes Königreich', 27700, 1],
  ['de', 'Spanien', 25830, 3],
  ['de', 'Gauß-Krüger', 31467, 3],
  ['de', 'Gauss-Krüger Zone 3', 31467, 1],
  ['de', 'GK Zone 4', 31468, 1],
  ['de', 'UTM Zone 32 Nord', 32632, 1],
  ['fr', 'Suisse', 2056, 1],
  ['fr', 'Allemagne', 25832, 1],
  ['fr', 'Autriche', 31287, 1],
  ['fr', 'Pays-Bas', 28992, 1],
  ['fr', 'Belgique', 31370, 1],
  ['fr', 'Espagne', 25830, 3],
  ['fr', 'Royaume-Uni', 27700, 1],
  ['fr', 'Italie', 6875, 1],
  ['fr', 'Pologne', 2180, 1],
  ['fr', 'Irlande', 2157, 1],
  ['fr', 'Nouvelle-Zélande', 2193, 1],
  ['fr', 'Suède', 3006, 1],
  ['it', 'Svizzera', 2056, 1],
  ['it', 'Germania', 25832, 1],
  ['it', 'Italia', 6875, 1],
  ['it', 'Spagna', 25830, 3],
  ['it', 'Paesi Bassi', 28992, 1],
  ['it', 'Regno Unito', 27700, 1],
  ['es', 'España', 25830, 3],
  ['es', 'Espana', 25830, 3],
  ['es', 'Alemania', 25832, 1],
  ['es', 'Suiza', 2056, 1],
  ['es', 'Francia', 2154, 1],
  ['es', 'Países Bajos', 28992, 1],
  ['es', 'Nueva Zelanda', 2193, 1],
  ['es', 'Japón', 6668, 1],
  ['es', 'UTM 30 norte', 32630, 1],
  // WGS 84's southern zones are not among the popular systems: SAD69 / UTM zone 19S, a shorter name, may come first.
  ['es', 'UTM 19 sur', 32719, 3],
  ['pt', 'Alemanha', 25832, 1],
  ['pt', 'Suíça', 2056, 1],
  ['pt', 'Suica', 2056, 1],
  ['pt', 'Espanha', 25830, 3],
  ['pt', 'Reino Unido', 27700, 1],
  ['pt', 'Brasil', 4674, 1],
  ['pt', 'Países Baixos', 28992, 1],
  ['pl', 'Polska', 2180, 1],
  ['pl', 'Niemcy', 25832, 1],
  ['pl', 'Szwajcaria', 2056, 1],
  ['pl', 'Czechy', 5514, 1],
  ['pl', 'Wielka Brytania', 27700, 1],
  ['nl', 'Nederland', 28992, 1],
  ['nl', 'Duitsland', 25832, 1],
  ['nl', 'België', 31370, 1],
  ['nl', 'Zwitserland', 2056, 1],
  ['nl', 'Verenigd Koninkrijk', 27700, 1],
  ['cs', 'Česko', 5514, 1],
  ['cs', 'Cesko', 5514, 1],
  ['cs', 'Česká republika', 5514, 1],
  ['cs', 'Německo', 25832, 1],
  ['cs', 'Rakousko', 31287, 1],
  // Slovakia's national grid on its own realization (JTSK03); S-JTSK / Krovak East North, common to Czechia and Slovakia, may lead.
  ['sk', 'Slovensko', 8353, 3],
  ['sv', 'Sverige', 3006, 1],
  ['sv', 'Tyskland', 25832, 1],
  ['sv', 'Storbritannien', 27700, 1],
  ['no', 'Norge', 25833, 3],
  ['da', 'Danmark', 25832, 1],
  ['fi', 'Suomi', 3067, 1],
  ['fi', 'Ruotsi', 3006, 1],
  ['hu', 'Magyarország', 23700, 1],
  ['el', 'Ελλάδα', 2100, 1],
  ['ru', 'Германия', 25832, 1],
  ['ru', 'Швейцария', 2056, 1],
  ['ja', '日本', 6668, 1],
  ['ja', 'スイス', 2056, 1],
  ['ja', 'ドイツ', 25832, 1],
  ['ja', 'イギリス', 27700, 1],
  ['ja', 'フランス', 2154, 1],
  ['zh', '中国', 4490, 1],
  ['zh', '瑞士', 2056, 1],
  ['zh', '德国', 25832, 1],
  ['ko', '대한민국', 5179, 1],
];

CASES.push(...LOCALIZED.map(([, query, code, top]): Case => ({ query, first: code, name: LOCALIZED_NAMES[code]!, ...(top === 3 ? { top } : {}) })));

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

test(`the list has at least 40 queries, each with a different text, and 40 in languages other than English`, () => {
  assert.ok(CASES.length >= 40, `${CASES.length} queries`);
  assert.ok(LOCALIZED.length >= 40, `${LOCALIZED.length} queries in other languages`);
  assert.ok(new Set(LOCALIZED.map(([language]) => language)).size >= 10, 'ten languages or more');
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
    if (!found.slice(0, entry.top ?? 1).includes(entry.first)) miss(`${entry.first} ${entry.top ? `in the first ${entry.top}` : 'first'}`);
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
