import assert from 'node:assert/strict';
import type { BackgroundLayerSpecification } from '@maplibre/maplibre-gl-style-spec';
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { MapRegistry } from '../../src/maps/registry.js';
import type { VectorTile } from '../../src/render/source/source.js';
import { ConfigError, defaultConfig, loadConfig } from '../../src/config.js';
import type { MapsConfig } from '../../src/maps/config.js';
import { tempDir } from '../scratch.js';
import { collection, MemoryLog, mvtPyramid, point, writePmtiles } from '../render/source/fixtures.js';

const fixture = fileURLToPath(new URL('../../../test/fixtures/maps/basic', import.meta.url));

/** A maps folder holding `basic.json` → `basic/style.json` (the fixture) with its archive. */
async function mapsFolder(): Promise<string> {
  const dir = tempDir();
  cpSync(fixture, path.join(dir, 'basic'), { recursive: true });
  const tiles = mvtPyramid(collection(point(10, 50, { name: 'a' })), 2);
  await writePmtiles(path.join(dir, 'basic', 'places.pmtiles'), tiles, 'mvt', { attribution: '© Places' });
  writeFileSync(path.join(dir, 'basic.json'), JSON.stringify({ style: 'basic/style.json' }));
  return dir;
}

function config(dataDir: string, maps: Partial<MapsConfig> = {}) {
  return { dataDir, maps: { ...structuredClone(defaultConfig.maps), ...maps } };
}

test('maps load from <dataDir>/maps with their style, sources and defaults', async () => {
  const dataDir = tempDir();
  cpSync(await mapsFolder(), path.join(dataDir, 'maps'), { recursive: true });
  const log = new MemoryLog();
  const registry = await MapRegistry.open(config(dataDir), { log });
  try {
    assert.deepEqual(registry.ids(), ['basic']);
    assert.deepEqual(registry.loadErrors(), []);
    assert.deepEqual(log.errors, []);
    const map = registry.get('basic')!;
    assert.deepEqual([map.formats, map.minzoom, map.maxzoom], [['png', 'jpg', 'webp'], 0, 22]);
    assert.equal(map.attribution, '© Places © Labels', 'the sources’ attributions, in style order');
    assert.deepEqual([...map.sources.keys()], ['places', 'labels']);
    assert.equal(map.style.layers.length, 3);
    const tile = (await map.sources.get('places')!.getTile(2, 2, 1)) as VectorTile;
    assert.equal(tile.layers.get('places')!.features[0]!.properties.name, 'a');
    assert.equal(map.sources.get('labels')!.kind, 'geojson');
    const folder = path.join(dataDir, 'maps', 'basic');
    assert.equal(map.style.sprite, `file://${folder}/sprites/basic`);
    assert.equal(map.style.glyphs, `file://${folder}/fonts/{fontstack}/{range}.pbf`);
    assert.equal(registry.get('nope'), undefined);
  } finally {
    await registry.close();
  }
});

test('configured definitions join the folder’s, win over a file of the same id, and resolve paths against the maps folder', async () => {
  const dir = await mapsFolder();
  const log = new MemoryLog();
  const inline = {
    version: 8 as const,
    sources: { labels: { type: 'geojson' as const, data: 'basic/labels.geojson' } },
    layers: [{ id: 'l', type: 'circle' as const, source: 'labels' }],
  };
  const registry = await MapRegistry.open(
    config('/unused', {
      dir,
      definitions: {
        basic: { style: 'basic/style.json', formats: ['png'], attribution: 'Custom', minzoom: 1, maxzoom: 10 },
        inline: { style: inline },
      },
    }),
    { log },
  );
  try {
    assert.deepEqual(registry.ids(), ['basic', 'inline']);
    const basic = registry.get('basic')!;
    assert.deepEqual([basic.formats, basic.attribution, basic.minzoom, basic.maxzoom], [['png'], 'Custom', 1, 10]);
    assert.match(log.warnings.join('\n'), /map "basic" is defined in the configuration and in .*basic\.json; the configuration wins/);
    const labels = registry.get('inline')!.sources.get('labels')!;
    const tile = (await labels.getTile(0, 0, 0)) as VectorTile;
    assert.equal(tile.layers.get('_geojson')!.features.length, 2);
    assert.equal(registry.get('inline')!.attribution, '');
  } finally {
    await registry.close();
  }
});

test('a broken map is skipped with one error line naming it, and the others still load', async () => {
  const dir = await mapsFolder();
  const write = (name: string, content: unknown) => writeFileSync(path.join(dir, name), typeof content === 'string' ? content : JSON.stringify(content));
  write('badformat.json', { style: 'basic/style.json', formats: ['png', 'gif'] });
  write('bad.id.json', { style: 'basic/style.json' });
  write('nostyle.json', { style: 'basic/missing.json' });
  write('notjson.json', '{ style: ');
  write('invalid.json', { style: { version: 8, sources: {}, layers: [{ id: 'x', type: 'fill', source: 'none', paint: { 'fill-color': 'nope' } }] } });
  write('nodata.json', { style: { version: 8, sources: { p: { type: 'vector', url: 'pmtiles://basic/none.pmtiles' } }, layers: [] } });
  write('unsupported.json', { style: { version: 8, sources: { i: { type: 'image', url: 'a.png', coordinates: [[0, 1], [1, 1], [1, 0], [0, 0]] } }, layers: [] } });
  cpSync(path.join(fixture, 'style.json'), path.join(dir, 'astyle.json'));
  mkdirSync(path.join(dir, 'folder.json'));
  const log = new MemoryLog();
  const registry = await MapRegistry.open(config('/unused', { dir }), { log });
  try {
    assert.deepEqual(registry.ids(), ['basic']);
    const errors = Object.fromEntries(registry.loadErrors().map(({ id, message }) => [id, message]));
    assert.deepEqual(Object.keys(errors).sort(), ['astyle', 'bad.id', 'badformat', 'invalid', 'nodata', 'nostyle', 'notjson', 'unsupported']);
    assert.match(errors.badformat!, /badformat\.json: "formats\.1" must be one of png, jpg, webp/);
    assert.match(errors['bad.id']!, /not a valid map id/);
    assert.match(errors.nostyle!, /cannot read style .*missing\.json/);
    assert.match(errors.notjson!, /cannot read .*notjson\.json/);
    assert.match(errors.invalid!, /invalid style: .*source "none" not found; .*fill-color: color expected/);
    assert.match(errors.nodata!, /source "p": .*ENOENT/);
    assert.match(errors.unsupported!, /source "i": sources of type "image" are not supported/);
    assert.match(errors.astyle!, /is a style, not a map definition/);
    assert.equal(log.errors.length, 8);
    assert.ok(log.errors.every((line) => /^map "[^"]+" skipped: /.test(line) && !line.includes('\n')));
  } finally {
    await registry.close();
  }
});

test('the default maps folder may be missing; a configured one that is missing is reported', async () => {
  const log = new MemoryLog();
  const empty = await MapRegistry.open(config(tempDir()), { log });
  assert.deepEqual([empty.ids(), log.errors], [[], []]);
  await MapRegistry.open(config(tempDir(), { dir: '/nonexistent/maps' }), { log });
  assert.match(log.errors[0]!, /maps folder \/nonexistent\/maps cannot be read/);
});

test('registries open side by side with their own handles and caches; closing one leaves the other working', async () => {
  const dir = await mapsFolder();
  const first = await MapRegistry.open(config('/unused', { dir, tileCacheMB: 1 }));
  const second = await MapRegistry.open(config('/unused', { dir }), { log: new MemoryLog() });
  assert.equal(first.cache.maxBytes, 1024 * 1024);
  assert.notEqual(first.cache, second.cache);
  await first.close();
  const tile = await second.get('basic')!.sources.get('places')!.getTile(2, 2, 1);
  assert.equal(tile?.kind, 'vector');
  const log = new MemoryLog();
  const third = await MapRegistry.open(config('/unused', { dir }), { log });
  await third.close();
  assert.equal(await third.get('basic')!.sources.get('places')!.getTile(2, 2, 1), null, 'a closed archive reads nothing');
  assert.match(log.warnings[0]!, /map "basic", source "places": tile 2\/2\/1 failed/);
  await second.close();
});

test('the maps settings have defaults, come from the file and the environment, and a bad one is named', () => {
  const defaults = loadConfig();
  assert.deepEqual({ ...defaults.maps, workers: 0 }, { dir: null, watch: true, definitions: {}, tileCacheMB: 256, rasterCacheMB: 128, rasterStore: 'none', rasterStoreDir: null, workers: 0, queue: 64, timeoutMs: 15000, maxAgeSeconds: 86400, icons: { maxBytes: 1048576, timeoutMs: 5000, cacheEntries: 256, cacheBytes: 33554432, allowPrivateAddresses: false, maxPerRequest: 16, maxBytesPerRequest: 4194304, maxDownloads: 8, failureCacheMs: 30000 } });
  assert.ok(defaults.maps.workers >= 1 && defaults.maps.workers <= 4);

  const file = path.join(tempDir(), 'meridian.json');
  writeFileSync(file, JSON.stringify({ maps: { dir: 'my-maps', definitions: { osm: { style: 'osm/style.json', formats: ['png'] } }, icons: { maxBytes: 2048 } } }));
  const fromFile = loadConfig({ file, env: { MERIDIAN_MAPS_TILE_CACHE_MB: '32', MERIDIAN_MAPS_WORKERS: '2', MERIDIAN_MAPS_QUEUE: '8', MERIDIAN_MAPS_TIMEOUT_MS: '5000' } });
  assert.equal(fromFile.maps.dir, path.resolve('my-maps'));
  assert.deepEqual(fromFile.maps.definitions, { osm: { style: 'osm/style.json', formats: ['png'] } });
  assert.deepEqual([fromFile.maps.tileCacheMB, fromFile.maps.workers, fromFile.maps.queue, fromFile.maps.timeoutMs], [32, 2, 8, 5000]);
  assert.deepEqual(fromFile.maps.icons, { maxBytes: 2048, timeoutMs: 5000, cacheEntries: 256, cacheBytes: 33554432, allowPrivateAddresses: false, maxPerRequest: 16, maxBytesPerRequest: 4194304, maxDownloads: 8, failureCacheMs: 30000 });
  assert.equal(loadConfig({ env: { MERIDIAN_MAPS_MAX_AGE: '60' } }).maps.maxAgeSeconds, 60);
  assert.equal(loadConfig({ env: { MERIDIAN_MAPS_DIR: '/srv/maps' } }).maps.dir, '/srv/maps');
  assert.equal(loadConfig({ env: { MERIDIAN_MAPS_WATCH: 'false' } }).maps.watch, false);
  assert.equal(loadConfig({ env: { MERIDIAN_MAPS_ICON_CACHE_BYTES: '1024' } }).maps.icons.cacheBytes, 1024);

  const configFile = (maps: unknown) => {
    const bad = path.join(tempDir(), 'meridian.json');
    writeFileSync(bad, JSON.stringify({ maps }));
    return { file: bad };
  };
  const cases: [Parameters<typeof loadConfig>[0], RegExp][] = [
    [{ env: { MERIDIAN_MAPS_WORKERS: '0' } }, /"maps.workers" must be >= 1.*MERIDIAN_MAPS_WORKERS/],
    [{ env: { MERIDIAN_MAPS_TILE_CACHE_MB: 'lots' } }, /"maps.tileCacheMB" must be number.*MERIDIAN_MAPS_TILE_CACHE_MB/],
    [configFile({ definitions: { osm: { style: 'a.json', formats: ['gif'] } } }), /"maps.definitions.osm.formats.0" must be equal to one of the allowed values/],
    [configFile({ definitions: { osm: { formats: ['png'] } } }), /"maps.definitions.osm" must have required property 'style'/],
    [configFile({ definitions: { 'no/slash': { style: 'a.json' } } }), /key "no\/slash" of "maps.definitions" must match pattern .*config file/],
    [configFile({ icons: { maxBytes: 0 } }), /"maps.icons.maxBytes" must be >= 1/],
    [configFile({ tileCache: 1 }), /unknown setting "maps.tileCache"/],
  ];
  for (const [sources, message] of cases) {
    assert.throws(() => loadConfig(sources), (error: Error) => error instanceof ConfigError && message.test(error.message), `${JSON.stringify(sources)}`);
  }
});

/** A map definition file whose inline style is one background of `color`. */
function writeBackgroundMap(dir: string, id: string, color: string): void {
  const style = { version: 8, sources: {}, layers: [{ id: 'bg', type: 'background', paint: { 'background-color': color } }] };
  writeFileSync(path.join(dir, `${id}.json`), JSON.stringify({ style }));
}

test('reload serves changed maps anew, adds and removes maps, and keeps the previous version of a map that no longer loads', async () => {
  const dataDir = tempDir();
  const dir = path.join(dataDir, 'maps');
  mkdirSync(dir);
  writeBackgroundMap(dir, 'blue', '#0000ff');
  writeBackgroundMap(dir, 'red', '#ff0000');
  writeBackgroundMap(dir, 'gone', '#000000');
  const registry = await MapRegistry.open(config(dataDir), { log: new MemoryLog() });
  try {
    const red = registry.get('red')!;
    const blue = registry.get('blue')!;
    assert.deepEqual(await registry.reload(), [], 'nothing changed: nothing reloaded');
    assert.equal(registry.get('red'), red, 'an unchanged map is the same object, its caches kept');

    writeBackgroundMap(dir, 'red', '#cc0000');
    writeBackgroundMap(dir, 'green', '#00ff00');
    writeFileSync(path.join(dir, 'blue.json'), '{"style": ');
    rmSync(path.join(dir, 'gone.json'));
    const changes = await registry.reload();
    assert.deepEqual(
      changes.map(({ id, change }) => [id, change]),
      [['blue', 'kept'], ['gone', 'removed'], ['green', 'added'], ['red', 'updated']],
    );
    assert.match(changes[0]!.message!, /blue\.json/, 'why the new definition does not load, naming the file');
    assert.deepEqual(registry.ids(), ['blue', 'green', 'red']);
    assert.equal(registry.get('blue'), blue, 'the previous version keeps serving');
    assert.deepEqual(registry.loadErrors().map((error) => error.id), ['blue']);
    const newRed = registry.get('red')!;
    assert.notEqual(newRed.revision, red.revision);
    assert.equal((newRed.style.layers[0] as BackgroundLayerSpecification).paint?.['background-color'], '#cc0000');
    assert.equal(registry.get('gone'), undefined);

    writeBackgroundMap(dir, 'blue', '#0000aa');
    assert.deepEqual((await registry.reload()).map(({ id, change }) => [id, change]), [['blue', 'updated']], 'fixed: the new version serves');
    assert.deepEqual(registry.loadErrors(), []);
  } finally {
    await registry.close();
  }
});
