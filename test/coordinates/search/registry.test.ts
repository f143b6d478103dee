import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { familyOf, KINDS, type Kind } from '../../../src/coordinates/search/kinds.js';
import { operationInfo, projInfo, queryRegistry } from '../../../src/coordinates/proj/proj.js';
import { loadRegistry, type RegistryEntry } from '../../../src/coordinates/search/registry.js';
import { requirePeers } from '../../peers.js';
import { ACCURACY_DROPPED_BY_PROJ } from '../peer-differences.js';
import { sameRegistry } from '../peer-registry.js';

// How fast it loads is a benchmark figure (`npm run bench:coordinates`, indexLoadMs), not a test:
// a bound in milliseconds fails on a busy machine and proves nothing on a fast one.
const registry = loadRegistry();

const find = (code: number, family: string): RegistryEntry => {
  const entry = (registry.byCode.get(code) ?? []).map((id) => registry.entries[id]!).find((found) => familyOf(found.kind) === family);
  assert.ok(entry, `EPSG:${code} (${family}) is in the index`);
  return entry;
};

test('the index knows the EPSG dataset version', () => {
  assert.equal(registry.epsgVersion, projInfo().epsgVersion);
  assert.match(registry.epsgVersion ?? '', /^v\d+\.\d+$/);
});

test('every kind this proj.db has is in the index', () => {
  const tables = new Set(queryRegistry(`SELECT name FROM sqlite_master WHERE type = 'table'`).map(([name]) => String(name)));
  const affine = queryRegistry(`SELECT count(*) FROM coordinate_system WHERE type = 'affine'`)[0]![0];
  // Kinds that only newer registries (or none in EPSG at all, for derived CRSs) have objects of.
  const absent = new Set<Kind>(['CRS-DRVDCRS']);
  if (!tables.has('engineering_crs')) absent.add('CRS-ENGCRS');
  if (!tables.has('engineering_datum')) absent.add('DATUM-ENGDAT');
  if (affine === 0) absent.add('CS-AFFINE');
  for (const kind of KINDS) {
    if (absent.has(kind)) assert.equal(registry.counts[kind], 0, kind);
    else assert.ok(registry.counts[kind] > 0, `${kind} has entries`);
  }
  const crsCount = queryRegistry(`SELECT count(*) FROM crs_view WHERE auth_name = 'EPSG'`)[0]![0];
  assert.equal(KINDS.filter((kind) => familyOf(kind) === 'CRS').reduce((sum, kind) => sum + registry.counts[kind], 0), crsCount);
  assert.equal(registry.entries.length, Object.values(registry.counts).reduce((sum, count) => sum + count, 0));
});

test('entries are ordered by code, then kind, and each object is there once', () => {
  const order = new Map(KINDS.map((kind, i) => [kind, i]));
  for (let i = 1; i < registry.entries.length; i++) {
    const [a, b] = [registry.entries[i - 1]!, registry.entries[i]!];
    assert.ok(a.code < b.code || (a.code === b.code && order.get(a.kind)! < order.get(b.kind)!), `${a.code} ${a.kind} before ${b.code} ${b.kind}`);
  }
  for (const [code, ids] of registry.byCode) for (const id of ids) assert.equal(registry.entries[id]!.code, code);
});

test('the text index is sorted both ways', () => {
  const { words, postingStart, postingEntry, entryStart, entryWord } = registry.text;
  for (let w = 1; w < words.length; w++) assert.ok(words[w - 1]! < words[w]!, words[w]);
  for (let w = 0; w < words.length; w++) {
    for (let p = postingStart[w]! + 1; p < postingStart[w + 1]!; p++) assert.ok(postingEntry[p - 1]! < postingEntry[p]!);
  }
  for (let e = 0; e < registry.entries.length; e++) {
    for (let i = entryStart[e]! + 1; i < entryStart[e + 1]!; i++) assert.ok(entryWord[i - 1]! < entryWord[i]!);
  }
  assert.equal(postingEntry.length, entryWord.length);
});

test('entries carry aliases, related objects and the transformations to WGS 84', () => {
  const mercator = find(3857, 'CRS');
  assert.ok(mercator.aliases.includes('Web Mercator'));
  assert.equal(mercator.baseCrs, 4326);
  const lv95 = find(2056, 'CRS');
  assert.deepEqual([lv95.baseCrs, lv95.datum, lv95.ellipsoid, lv95.method, lv95.unit], [4150, 6150, 7004, 9815, 'metre']);
  assert.deepEqual(lv95.areaCodes, [1286]);
  assert.ok(registry.toWgs84.get(4150)?.includes(1676));
  const users = (registry.byTransformation.get(1676) ?? []).map((id) => registry.entries[id]!.code);
  assert.ok(users.includes(2056) && users.includes(4150));
  const compound = find(5698, 'CRS');
  assert.deepEqual([compound.kind, compound.baseCrs, compound.unit], ['CRS-COMPOUNDCRS', 4171, 'metre']);
  assert.deepEqual([find(1676, 'COORDOP').targetCrs, find(1676, 'COORDOP').unit], [4326, 'degree']);
  assert.equal(find(16032, 'COORDOP').kind, 'COORDOP-COPCON');
  assert.equal(find(7957, 'COORDOP').kind, 'COORDOP-POIMOTO');
  assert.equal(find(6326, 'DATUM').kind, 'DATUM-ENSEMDAT');
  assert.equal(find(1155, 'DATUM').kind, 'DATUM-DYNGEODDA');
  assert.equal(find(6150, 'DATUM').kind, 'DATUM-GEODDAT');
  assert.equal(find(5101, 'DATUM').kind, 'DATUM-VERTDAT');
  assert.deepEqual([find(9001, 'UNIT').kind, find(9001, 'UNIT').unit], ['UNIT-LENUNIT', 'length']);
  assert.equal(find(9122, 'UNIT').kind, 'UNIT-ANGUNIT');
  assert.equal(find(9807, 'METHOD').name, 'Transverse Mercator');
  assert.equal(find(1286, 'AREA').area, 'Liechtenstein; Switzerland.');
  // proj.db has no names for coordinate systems: they follow EPSG's pattern.
  assert.equal(find(4400, 'CS').name, 'Cartesian 2D CS. Axes: easting, northing (E,N). Orientations: east, north. UoM: m.');
  assert.equal(find(4400, 'CS').kind, 'CS-CARTESCS');
  assert.equal(find(6422, 'CS').kind, 'CS-ELLIPCS');
  assert.deepEqual([find(1, 'AXIS').name, find(1, 'AXIS').unit], ['Easting', 'metre']);
  assert.equal(find(8901, 'PRIMEM').name, 'Greenwich');
});

interface ProjJson {
  name: string;
  area?: string;
  bbox?: { west_longitude: number; south_latitude: number; east_longitude: number; north_latitude: number };
  usages?: { area: string; bbox: ProjJson['bbox'] }[];
  coordinate_system?: { axis: { unit: string | { name: string } }[] };
  components?: ProjJson[];
  target_crs?: ProjJson;
  semi_major_axis?: number | { unit: { name: string } };
}

function projinfo(kind: string | null, code: number): { json: ProjJson; deprecated: boolean } {
  requirePeers('proj');
  const args = [...(kind ? ['-k', kind] : []), `EPSG:${code}`, '-o', 'PROJJSON', '--single-line'];
  const output = execFileSync('projinfo', args, { encoding: 'utf8', env: sameRegistry });
  const json = output.split('\n').find((line) => line.startsWith('{'));
  assert.ok(json, `projinfo ${args.join(' ')} printed PROJJSON`);
  return { json: JSON.parse(json) as ProjJson, deprecated: output.includes('object is deprecated') };
}

const unitOf = (crs: ProjJson | undefined): string | null => {
  const axis = (crs?.components?.[0] ?? crs)?.coordinate_system?.axis[0];
  if (!axis) return null;
  return typeof axis.unit === 'string' ? axis.unit : axis.unit.name;
};

test('names, areas, bboxes, deprecation and units agree with projinfo', () => {
  const samples: [number, string][] = [
    [4326, 'CRS'], [4979, 'CRS'], [4978, 'CRS'], [2056, 'CRS'], [27700, 'CRS'], [3857, 'CRS'], [3338, 'CRS'],
    [3785, 'CRS'], [4230, 'CRS'], [2263, 'CRS'], [5703, 'CRS'], [5698, 'CRS'], [7405, 'CRS'], [4267, 'CRS'],
    [1676, 'COORDOP'], [1149, 'COORDOP'], [5339, 'COORDOP'], [1312, 'COORDOP'], [8190, 'COORDOP'], [1086, 'COORDOP'],
    [16032, 'COORDOP'], [7957, 'COORDOP'],
    [6326, 'DATUM'], [6258, 'DATUM'], [1155, 'DATUM'], [5101, 'DATUM'], [6150, 'DATUM'],
    [7004, 'ELLIPSOID'], [7030, 'ELLIPSOID'], [7007, 'ELLIPSOID'],
  ];
  for (const [code, family] of samples) {
    const entry = find(code, family);
    const kind =
      family === 'CRS' ? null : family === 'COORDOP' ? 'operation' : entry.kind === 'DATUM-ENSEMDAT' ? 'ensemble' : family === 'DATUM' ? 'datum' : 'ellipsoid';
    const { json, deprecated } = projinfo(kind, code);
    const label = `EPSG:${code} ${entry.kind}`;
    assert.equal(entry.name, json.name, label);
    assert.equal(entry.deprecated, deprecated, label);
    if (family === 'ELLIPSOID') {
      assert.equal(entry.unit, typeof json.semi_major_axis === 'object' ? json.semi_major_axis.unit.name : 'metre', label);
      continue;
    }
    // PROJ exports conversions and datum ensembles without their usages; the index has them from proj.db.
    if (json.area === undefined && json.usages === undefined) {
      assert.ok(entry.kind === 'COORDOP-COPCON' || entry.kind === 'DATUM-ENSEMDAT', label);
      continue;
    }
    const bbox = json.bbox ?? json.usages?.[0]?.bbox;
    assert.equal(entry.area, json.area ?? json.usages?.[0]?.area ?? null, label);
    assert.deepEqual(entry.bbox, bbox ? [bbox.west_longitude, bbox.south_latitude, bbox.east_longitude, bbox.north_latitude] : null, label);
    if (family === 'CRS') assert.equal(entry.unit, unitOf(json), label);
    if (entry.kind === 'COORDOP-COPTRAN' || entry.kind === 'COORDOP-COPCONO') assert.equal(entry.unit, unitOf(json.target_crs), label);
  }
});

test('accuracies of operations agree with PROJ, summed over the steps when EPSG gives none', () => {
  const operations = registry.entries.filter((entry) => entry.kind === 'COORDOP-COPCONO' || [1676, 1149, 5339, 1086].includes(entry.code));
  let summed = 0;
  for (const entry of operations) {
    if (familyOf(entry.kind) !== 'COORDOP') continue;
    let info;
    try {
      info = operationInfo(entry.code);
    } catch {
      continue; // a few concatenations PROJ cannot build
    }
    const dropped = ACCURACY_DROPPED_BY_PROJ.get(entry.code);
    if (dropped !== undefined) {
      assert.deepEqual([entry.accuracy, info.accuracy], [dropped, null], `EPSG:${entry.code}`);
      continue;
    }
    assert.equal(entry.accuracy, info.accuracy, `EPSG:${entry.code}`);
    if (queryRegistry(`SELECT accuracy FROM concatenated_operation WHERE code = ${entry.code} AND auth_name = 'EPSG'`)[0]?.[0] === null && entry.accuracy !== null) summed++;
  }
  assert.ok(summed > 0);
  assert.equal(find(16032, 'COORDOP').accuracy, 0);
});
