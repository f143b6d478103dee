import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import fc from 'fast-check';
import { familyOf } from '../../../src/coordinates/search/kinds.js';
import { operationInfo } from '../../../src/coordinates/proj/proj.js';
import { QueryError } from '../../../src/coordinates/search/query.js';
import { loadRegistry } from '../../../src/coordinates/search/registry.js';
import { POPULAR_CRS, search, type SearchItem, type SearchOptions, type TransformationItem } from '../../../src/coordinates/search/search.js';
import { requirePeers } from '../../peers.js';
import { sameRegistry } from '../peer-registry.js';

const registry = loadRegistry();

const find = (query: string, options: Partial<SearchOptions> = {}) =>
  search(registry, { query, limit: 10, offset: 0, transformations: false, exports: false, ...options });
const codes = (items: SearchItem[]) => items.map((item) => item.id.code);

/** Every result of a query, page after page. */
function all(query: string, limit = 50): SearchItem[] {
  const items: SearchItem[] = [];
  for (let offset = 0; ; offset += limit) {
    const page = find(query, { limit, offset });
    items.push(...page.results);
    if (page.results.length < limit) return items;
  }
}

const ITEM_FIELDS = ['accuracy', 'area', 'bbox', 'default_transformation', 'deprecated', 'id', 'kind', 'name', 'transformations', 'unit'];
const TRANSFORMATION_FIELDS = ['accuracy', 'area', 'bbox', 'deprecated', 'exports', 'grids', 'id', 'name', 'reversible', 'target_crs', 'unit', 'usable'];

test('the documented example queries find what they describe', () => {
  const finland = find('finland deprecated:* kind:*', { limit: 50 });
  assert.ok(finland.total > 50);
  assert.ok(new Set(finland.results.map((item) => familyOf(item.kind))).size > 2, 'several families');
  assert.equal(finland.results[0]!.id.code, 3067);

  const uk = find('United Kingdom');
  assert.equal(uk.results[0]!.id.code, 27700);
  assert.match(uk.results[0]!.area ?? '', /^United Kingdom/);

  const mercator = find('mercator deprecated:1', { limit: 50 });
  assert.ok(mercator.total > 0);
  assert.ok(mercator.results.every((item) => item.deprecated));

  for (const query of ['code:4326', '4326', 'EPSG:4326']) {
    const result = find(query);
    assert.deepEqual(result.results[0]!.id, { authority: 'EPSG', code: 4326 }, query);
    assert.equal(result.results[0]!.kind, 'CRS-GEOGCRS');
  }
  assert.equal(find('code:4326').total, 1);

  const swiss = find('swit');
  assert.equal(swiss.results[0]!.id.code, 2056);
  assert.ok(swiss.results.slice(0, 2).every((item) => /Switzerland/.test(item.area ?? '')));
});

test('an exact code comes first, whatever its kind', () => {
  const result = find('kind:* 1024', { limit: 50 });
  const exact = registry.byCode.get(1024)!.filter((id) => !registry.entries[id]!.deprecated).length;
  assert.ok(exact > 3);
  assert.deepEqual(codes(result.results.slice(0, exact)), Array(exact).fill(1024));
  assert.notEqual(result.results[exact]?.id.code, 1024);
  assert.equal(find('wgs 84 4326').results[0]!.id.code, 4326);
});

test('two neighbouring words count more where a name has them side by side', () => {
  // Every PD/83 zone is named "3-degree": `zone 3` is what tells zone 3 (3396, and its E-N variant
  // 5666) from zone 4 (3397, a shorter name than 5666's).
  const found = codes(find('pd/83 zone 3').results);
  for (const code of [3396, 5666]) assert.ok(found.includes(code) && found.indexOf(code) < found.indexOf(3397), `${code} before 3397: ${found.join(', ')}`);
});

test('a country named in another language finds its systems as its English name does, and its name as typed keeps its meaning', () => {
  // The English name also matches names ("InGCS Dearborn-Ohio-Switzerland"); the country's name in another language its areas only.
  for (const [typed, english] of [['Schweiz', 'switzerland'], ['Deutschland', 'germany'], ['Reino Unido', 'united kingdom'], ['Česká republika', 'czechia']]) {
    const [localized, reference] = [all(typed), all(english)];
    assert.ok(localized.length > 0, typed);
    assert.equal(localized[0]!.id.code, reference[0]!.id.code, typed);
    const known = new Set(codes(reference));
    assert.deepEqual(codes(localized).filter((code) => !known.has(code)), [], typed);
  }
  // Algérie in French is also a word of EPSG's own names: Voirol 1879 / Nord Algerie (ancienne).
  assert.ok(codes(find('algerie', { limit: 50 }).results).includes(30493));
  // `us` stays the word of "US survey foot", not a country.
  assert.ok(find('us survey foot kind:UNIT').results.some((item) => item.name === 'US survey foot'));
});

test('popular systems rank above obscure ones', () => {
  assert.equal(find('WGS 84').results[0]!.id.code, 4326);
  assert.ok(codes(find('mercator').results.slice(0, 3)).includes(3857));
  assert.ok(codes(find('web mercator').results).includes(3857));
  assert.deepEqual(codes(find('').results.slice(0, 3)), POPULAR_CRS.slice(0, 3));
  for (const code of POPULAR_CRS) {
    const entry = registry.crs.get(code);
    assert.ok(entry && !entry.deprecated, `EPSG:${code} is a current CRS`);
  }
  assert.equal(new Set(POPULAR_CRS).size, POPULAR_CRS.length);
  assert.ok(POPULAR_CRS.length <= 127);
});

test('kind: selects kinds and families', () => {
  const datums = find('kind:DATUM', { limit: 50 });
  assert.ok(datums.results.every((item) => item.kind.startsWith('DATUM-')));
  assert.equal(datums.total, ['DATUM-GEODDAT', 'DATUM-DYNGEODDA', 'DATUM-ENSEMDAT', 'DATUM-VERTDAT', 'DATUM-ENGDAT']
    .map((kind) => registry.entries.filter((entry) => entry.kind === kind && !entry.deprecated).length)
    .reduce((a, b) => a + b, 0));
  assert.ok(find('kind:CRS-PROJCRS utm', { limit: 50 }).results.every((item) => item.kind === 'CRS-PROJCRS'));
  assert.ok(find('kind:ELLIPSOID bessel').results.every((item) => item.kind === 'ELLIPSOID'));
  assert.ok(find('etrs89', { limit: 50 }).results.every((item) => item.kind.startsWith('CRS-')));
  assert.ok(find('kind:COORDOP-POIMOTO deprecated:*').total > 0);
});

test('deprecated objects are left out unless asked for', () => {
  assert.ok(all('mercator').every((item) => !item.deprecated));
  const only = all('mercator deprecated:1');
  assert.ok(only.length > 0 && only.every((item) => item.deprecated));
  assert.equal(find('mercator deprecated:*').total, find('mercator').total + only.length);
  assert.ok(codes(only).includes(3785));
});

test('text matches regardless of case and accents, and by word prefix', () => {
  const reference = find('reunion', { limit: 50 });
  assert.ok(reference.total > 0);
  for (const query of ['Réunion', 'RÉUNION', 'réunion', 'REUNION']) assert.deepEqual(find(query, { limit: 50 }), reference, query);
  const whole = new Set(codes(all('switzerland')));
  const prefix = codes(all('swit'));
  assert.ok(whole.size > 0 && [...whole].every((code) => prefix.includes(code)));
  assert.deepEqual(codes(find('lv95').results).slice(0, 1), [2056]);
  assert.ok(codes(find('wgs84').results).includes(4326), 'adjacent words run together');
});

test('pages concatenate to the whole ordered list, with an exact total', () => {
  for (const query of ['swit', 'kind:AREA,ELLIPSOID,DATUM a deprecated:*']) {
    const whole = all(query, 50);
    const first = find(query, { limit: 1 });
    assert.equal(first.total, whole.length, query);
    assert.equal(new Set(whole.map((item) => `${item.kind}:${item.id.code}`)).size, whole.length);
    assert.deepEqual(all(query, 7), whole, query);
    const beyond = find(query, { offset: whole.length + 5 });
    assert.deepEqual(beyond, { results: [], total: whole.length });
  }
});

test('bad paging is a QueryError', () => {
  for (const [limit, offset] of [[0, 0], [51, 0], [1.5, 0], [Number.NaN, 0], [10, -1], [10, 0.5], [10, Number.POSITIVE_INFINITY]]) {
    assert.throws(() => find('wgs', { limit, offset }), QueryError, `${limit} ${offset}`);
  }
  assert.throws(() => find('kind:NOPE'), QueryError);
});

test('bboxes are [min_lon, min_lat, max_lon, max_lat], west first across the antimeridian', () => {
  // EPSG v13.102's extent of CH1903+ / LV95 ("Europe - Liechtenstein and Switzerland"; v10.076 had 5.96, 45.82, 10.49, 47.81).
  assert.deepEqual(find('code:2056').results[0]!.bbox, [5.95, 45.81, 10.5, 47.81]);
  const alaska = find('code:3338').results[0]!.bbox!;
  assert.deepEqual(alaska, [172.42, 51.3, -129.99, 71.4]);
  for (const query of ['kind:* deprecated:* alaska', 'kind:AREA,COORDOP pacific', 'kind:AREA europe', 'fiji']) {
    for (const item of all(query)) {
      if (!item.bbox) continue;
      const [west, south, east, north] = item.bbox;
      assert.ok(west >= -180 && west <= 180 && east >= -180 && east <= 180, `${item.id.code}`);
      assert.ok(south >= -90 && north <= 90 && south <= north, `${item.id.code}`);
    }
  }
  assert.ok(all('kind:* deprecated:* fiji').some((item) => item.bbox && item.bbox[0] > item.bbox[2]), 'an area across the antimeridian');
});

test('CRS items carry the default transformation, its accuracy and the transformations to WGS 84', () => {
  const lv95 = find('code:2056').results[0]!;
  assert.deepEqual(Object.keys(lv95).sort(), ITEM_FIELDS);
  assert.deepEqual(lv95.default_transformation, { authority: 'EPSG', code: 1676, name: 'CH1903+ to WGS 84 (1)', steps: [{ authority: 'EPSG', code: 1676 }] });
  assert.equal(lv95.accuracy, 1);
  assert.equal(lv95.unit, 'metre');
  assert.ok(lv95.transformations.includes(1676));
  assert.ok(lv95.transformations.every((code) => Number.isInteger(code)));

  const wgs84 = find('code:4326').results[0]!;
  assert.deepEqual([wgs84.default_transformation, wgs84.accuracy, wgs84.transformations, wgs84.unit], [null, 0, [], 'degree']);
  assert.equal(find('code:3857').results[0]!.accuracy, 0);

  // PROJ's best from S-JTSK (Ferro) is a chain of two EPSG transformations, which EPSG names as a concatenated operation.
  const ferro = find('code:2065').results[0]!;
  assert.equal(ferro.default_transformation?.code, 5242);
  assert.deepEqual(ferro.default_transformation?.steps.map((step) => step.code), [1884, 5239]);

  const operation = find('code:1676 kind:COORDOP').results[0]!;
  assert.deepEqual(
    [operation.kind, operation.accuracy, operation.default_transformation, operation.transformations, operation.unit],
    ['COORDOP-COPTRAN', 1, null, [], 'degree'],
  );
});

test('transformations=true details each transformation', () => {
  const bng = find('code:27700', { transformations: true }).results[0]!;
  const items = bng.transformations as TransformationItem[];
  assert.ok(items.length > 3);
  for (const item of items) {
    assert.deepEqual(Object.keys(item).sort(), TRANSFORMATION_FIELDS);
    assert.deepEqual(item.target_crs, { authority: 'EPSG', code: 4326 });
    assert.equal(item.unit, 'degree');
    const info = operationInfo(item.id.code);
    assert.equal(item.name, info.name);
    assert.equal(item.reversible, info.reversible);
    // Usable with this CRS: it runs here, and its area meets Great Britain's (usable.test.ts checks the transforms).
    if (item.usable) assert.ok(info.instantiable && info.grids.every((grid) => grid.available));
    assert.deepEqual(item.grids.map((grid) => grid.path), info.grids.map((grid) => grid.name));
    assert.match(item.exports?.proj4 ?? '', /\+type=crs/);
    assert.match(item.exports?.proj4 ?? '', /\+towgs84=|\+nadgrids=/);
  }
  const helmert = items.find((item) => item.id.code === 1314)!;
  assert.equal(helmert.usable, true);
  assert.deepEqual(helmert.grids, []);
  assert.ok(items.some((item) => item.grids.length > 0), 'a grid-based transformation');
});

test('exports=true adds proj4 and WKT1 bound to WGS 84', () => {
  const lv95 = find('code:2056', { exports: true }).results[0]!;
  assert.deepEqual(Object.keys(lv95).sort(), [...ITEM_FIELDS, 'exports'].sort());
  assert.match(lv95.exports?.proj4 ?? '', /^\+proj=somerc .*\+towgs84=674\.374,15\.056,405\.346.*\+type=crs$/);
  assert.match(lv95.exports?.wkt ?? '', /^PROJCS\["CH1903\+ \/ LV95",.*TOWGS84\[674\.374,15\.056,405\.346/);
  assert.match(find('code:4326', { exports: true }).results[0]!.exports?.proj4 ?? '', /^\+proj=longlat \+datum=WGS84 .*\+type=crs$/);
  assert.equal(find('code:7030 kind:ELLIPSOID', { exports: true }).results[0]!.exports, null);
  assert.equal('exports' in find('code:2056').results[0]!, false);
});

test('trans: finds the CRSs that list a transformation; extra keys filter by related objects', () => {
  const users = all('trans:1676');
  assert.ok(codes(users).includes(2056) && codes(users).includes(4150));
  assert.ok(users.every((item) => item.kind.startsWith('CRS-') && item.transformations.includes(1676)));
  assert.equal(find('trans:999999').total, 0);

  const utm = all('method:9807 datum:6258 kind:CRS-PROJCRS');
  assert.ok(codes(utm).includes(25832) && codes(utm).includes(25833));
  assert.ok(utm.every((item) => registry.crs.get(item.id.code)!.datum === 6258));
  assert.ok(codes(all('area_code:1286')).includes(2056));
  assert.ok(codes(all('ellipsoid:7004 kind:DATUM')).includes(6150));
  assert.deepEqual(codes(find('swit area_code:1286').results).slice(0, 1), [2056]);
});

test('hostile queries either answer or fail with a QueryError', () => {
  const pieces = fc.constantFrom('kind:', 'code:', 'trans:', 'deprecated:', 'datum:', ':', '*', '1', '4326', 'CRS', 'a', 'é', ' ', '\u0000', '\uDC00', ',');
  const hostile = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 200 }),
    fc.array(fc.oneof(pieces, fc.string({ maxLength: 6 })), { maxLength: 25 }).map((parts) => parts.join('')),
  );
  fc.assert(
    fc.property(hostile, fc.oneof(fc.integer({ min: -2, max: 12 }), fc.constantFrom(50, 51)), fc.integer({ min: -2, max: 20_000 }), (query, limit, offset) => {
      try {
        const result = search(registry, { query, limit, offset, transformations: false, exports: false });
        assert.ok(result.results.length <= limit && result.total >= result.results.length);
      } catch (error) {
        assert.ok(error instanceof QueryError, String(error));
      }
    }),
    // Each run may compute PROJ fields for its page in-line: 150 runs keep the file under a minute.
    { numRuns: 150 },
  );
});

/** What PROJ's own projinfo says of a CRS: name, area, unit of the first axis, deprecation. */
function projinfo(code: number) {
  requirePeers('proj');
  const run = spawnSync('projinfo', [`EPSG:${code}`, '-o', 'PROJJSON', '--single-line'], { encoding: 'utf8', env: sameRegistry });
  const json = JSON.parse(run.stdout.slice(run.stdout.indexOf('{')));
  const cs = json.coordinate_system ?? json.components?.[0]?.coordinate_system;
  const unit = cs?.axis?.[0]?.unit;
  return {
    name: json.name as string,
    // A CRS with several usages has its areas under `usages`; the index names the first.
    area: (json.area ?? json.usages?.[0]?.area ?? null) as string | null,
    unit: (typeof unit === 'string' ? unit : (unit?.name ?? null)) as string | null,
    deprecated: /object is deprecated/.test(run.stdout + run.stderr),
  };
}

test('results of a fixed list of queries agree with projinfo on name, area, unit and deprecation', () => {
  const queries = ['swit', 'United Kingdom', 'mercator deprecated:1', 'code:4326', 'utm 33', 'netherlands', 'japan plane', 'nad83 texas', 'gda2020', 'etrs89 laea'];
  let compared = 0;
  for (const query of queries) {
    for (const item of find(query, { limit: 5 }).results) {
      const peer = projinfo(item.id.code);
      const where = `${query}: EPSG:${item.id.code}`;
      assert.equal(item.name, peer.name, where);
      assert.equal(item.area, peer.area, where);
      assert.equal(item.unit, peer.unit, where);
      assert.equal(item.deprecated, peer.deprecated, where);
      compared++;
    }
  }
  assert.ok(compared >= 40, `compared ${compared}`);
});
