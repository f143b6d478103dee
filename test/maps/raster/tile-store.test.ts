import assert from 'node:assert/strict';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { repoRoot } from '../../render/suite/cases.js';
import { FolderTileStore } from '../../../src/maps/raster/folder-tile-store.js';
import { DatabaseTileStore } from '../../../src/maps/raster/database-tile-store.js';
import type { RasterTileStore } from '../../../src/maps/raster/tile-store.js';
import { metatilesCovering } from '../../../src/maps/raster/seed.js';
import type { Config } from '../../../src/config.js';
import { newAccount, onPostgres, startTestServer, startTwoInstances, testConfig, type TestServer } from '../../helpers.js';
import { tempDir } from '../../scratch.js';
import { smallStyle } from './raster-maps.js';

const maps = (colour = '#00ff00') => ({ definitions: { small: { style: smallStyle(colour) as never, maxzoom: 6 } } });

const closing: (() => Promise<void>)[] = [];
after(async () => {
  for (const close of closing.reverse()) await close();
});

async function keyOf(server: TestServer): Promise<string> {
  const { accountId } = await newAccount(server.meridian);
  return (await server.meridian.keys.create(accountId, {})).token;
}

const command = path.join(repoRoot, 'bin/meridian.js');

/** Runs the `meridian` command in a process of its own. */
function runCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [command, ...args], { env: { ...process.env, DATABASE_URL: '' } }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

const fetchTile = (server: TestServer, key: string, url: string) => server.server.public.inject({ method: 'GET', url: `${url}?key=${key}` });

async function exercise(store: RasterTileStore): Promise<void> {
  const bytes = (text: string) => Buffer.from(text);
  assert.equal(await store.get('m', 'r1', '512@1/png/-/0/0/0.png'), null);
  await store.put('m', 'r1', [
    { tile: '512@1/png/-/0/0/0.png', bytes: bytes('zero') },
    { tile: '512@1/png/-/1/0/0.png', bytes: bytes('one') },
  ]);
  assert.equal(String(await store.get('m', 'r1', '512@1/png/-/0/0/0.png')), 'zero');
  assert.equal(await store.get('m', 'r2', '512@1/png/-/0/0/0.png'), null, 'another revision does not see it');
  assert.equal(await store.get('other', 'r1', '512@1/png/-/0/0/0.png'), null, 'another map does not see it');
  await store.put('other', 'r1', [{ tile: '512@1/png/-/0/0/0.png', bytes: bytes('other') }]);
  await store.put('m', 'r2', [{ tile: '512@1/png/-/0/0/0.png', bytes: bytes('new') }]);
  assert.equal(String(await store.get('m', 'r2', '512@1/png/-/0/0/0.png')), 'new');
  await store.dropOtherRevisions('m', 'r2');
  assert.equal(await store.get('m', 'r1', '512@1/png/-/1/0/0.png'), null, 'the old revision is gone');
  assert.equal(String(await store.get('m', 'r2', '512@1/png/-/0/0/0.png')), 'new');
  assert.equal(String(await store.get('other', 'r1', '512@1/png/-/0/0/0.png')), 'other', 'other maps are left alone');
}

describe('raster tile stores', () => {
  test('the folder store keeps tiles per map and revision and drops other revisions', async () => {
    const dir = tempDir();
    await exercise(new FolderTileStore(dir));
    assert.deepEqual(readdirSync(path.join(dir, 'm')), ['r2']);
  });

  test('the database store keeps tiles per map and revision and drops other revisions', async () => {
    const server = await startTestServer(testConfig());
    closing.push(() => server.close());
    await exercise(new DatabaseTileStore(server.meridian.db));
  });
});

describe('a raster tile drawn once is served from the store', () => {
  test('two instances on one database: the second serves what the first drew, without rendering it, asked as soon as the first answered', { skip: !onPostgres && 'needs PostgreSQL: two instances share one database server' }, async () => {
    const instances = await startTwoInstances({ maps: { ...maps(), rasterStore: 'database' } });
    closing.push(() => instances.close());
    const key = await keyOf(instances.first);
    const drawn = await fetchTile(instances.first, key, '/maps/small/2/1/1.png');
    assert.equal(drawn.headers['x-cache'], 'miss');
    // The tiles are in the database before the first answered: the second is asked at once.
    const shared = await fetchTile(instances.second, key, '/maps/small/2/1/1.png');
    assert.equal(shared.headers['x-cache'], 'hit-shared');
    assert.deepEqual(shared.rawPayload, drawn.rawPayload);
    // Its metatile's neighbours too.
    assert.equal((await fetchTile(instances.second, key, '/maps/small/2/0/0.png')).headers['x-cache'], 'hit-shared');
  });

  test('a folder store survives a restart; a changed map is drawn again and its old tiles are dropped', async () => {
    const storeDir = tempDir();
    const first = await startTestServer(testConfig({ maps: { ...maps(), rasterStore: 'folder', rasterStoreDir: storeDir } }));
    const key = await keyOf(first);
    assert.equal((await fetchTile(first, key, '/maps/small/3/4/4.png')).headers['x-cache'], 'miss');
    // Stored before the response was sent: the metatile's files are there as it arrives.
    const files = readdirSync(storeDir, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.png'));
    assert.equal(files.length, 4, `the 2x2 tiles of the metatile: ${files.join(', ')}`);
    await first.close();
    const restarted = await startTestServer(testConfig({ maps: { ...maps(), rasterStore: 'folder', rasterStoreDir: storeDir } }));
    closing.push(() => restarted.close());
    const restartedKey = await keyOf(restarted);
    const again = await fetchTile(restarted, restartedKey, '/maps/small/3/4/4.png');
    assert.equal(again.headers['x-cache'], 'hit-shared', 'drawn before the restart');
    const revisions = readdirSync(path.join(storeDir, 'small'));
    assert.equal(revisions.length, 1);

    const changed = await startTestServer(testConfig({ maps: { ...maps('#ff0000'), rasterStore: 'folder', rasterStoreDir: storeDir } }));
    closing.push(() => changed.close());
    const changedKey = await keyOf(changed);
    assert.equal((await fetchTile(changed, changedKey, '/maps/small/3/4/4.png')).headers['x-cache'], 'miss', 'another style is another revision');
    assert.ok(!existsSync(path.join(storeDir, 'small', revisions[0]!)), 'the old revision is dropped');
  });
});

describe('meridian maps seed', () => {
  test('the metatiles of an area: every tile of the bbox, each metatile once, across the antimeridian too', () => {
    const area = { bbox: [-10, -10, 10, 10] as [number, number, number, number], minzoom: 0, maxzoom: 3, size: 512 as const, pixelRatio: 1 as const };
    // z0: the world (1); z1: 2x2 tiles in one metatile (1); z2: tiles 1..2 in both axes, 4 metatiles; z3: tiles 3..4, 4.
    assert.deepEqual(metatilesCovering(area).map((m) => `${m.z}/${m.x0}/${m.y0}`), ['0/0/0', '1/0/0', '2/0/0', '2/2/0', '2/0/2', '2/2/2', '3/2/2', '3/4/2', '3/2/4', '3/4/4']);
    const across = metatilesCovering({ ...area, bbox: [170, -10, -170, 10], minzoom: 3, maxzoom: 3 });
    assert.deepEqual(across.map((m) => `${m.x0}/${m.y0}`), ['6/2', '6/4', '0/2', '0/4']);
    // 256-px tiles at z4: columns and rows 7..8, in metatiles 4..7 and 8..11 of each.
    assert.deepEqual(metatilesCovering({ ...area, size: 256, minzoom: 4, maxzoom: 4 }).map((m) => `${m.x0}/${m.y0}/${m.span}`), ['4/4/4', '8/4/4', '4/8/4', '8/8/4']);
  });

  test('seeding fills the store; a server then serves the area from it; a second seed renders nothing', async () => {
    const storeDir = tempDir();
    const config: Config = testConfig({ maps: { ...maps(), rasterStore: 'folder', rasterStoreDir: storeDir, workers: 1 } });
    const configFile = path.join(tempDir(), 'config.json');
    writeFileSync(configFile, JSON.stringify({ maps: config.maps }));
    const seed = () => runCli(['maps', 'seed', 'small', '--bbox=-10,-10,10,10', '--zooms', '0-3', '--tile-size', '256', '--config', configFile, '--data', config.dataDir]);
    const first = await seed();
    assert.equal(first.code, 0, first.stderr);
    const result = JSON.parse(first.stdout) as { metatiles: number; rendered: number; skipped: number };
    assert.ok(result.metatiles > 0 && result.rendered === result.metatiles, first.stdout);

    const server = await startTestServer({ ...config, dataDir: tempDir() });
    closing.push(() => server.close());
    const key = await keyOf(server);
    for (const url of ['/maps/small/256/3/4/4.png', '/maps/small/256/3/3/3.png', '/maps/small/256/0/0/0.png']) {
      assert.equal((await fetchTile(server, key, url)).headers['x-cache'], 'hit-shared', url);
    }

    const second = await seed();
    assert.equal(second.code, 0, second.stderr);
    assert.equal((JSON.parse(second.stdout) as { rendered: number }).rendered, 0);
  });

  test('on PostgreSQL, a seed into the database store is served by the instances sharing it', { skip: !onPostgres && 'needs PostgreSQL: the seed and the instances share one database server' }, async () => {
    const masterKey = randomBytes(32).toString('base64');
    const server = await startTestServer(testConfig({ masterKey, maps: { ...maps(), rasterStore: 'database', workers: 1 } }));
    closing.push(() => server.close());
    const { databaseUrl, databaseSchema, dataDir } = server.meridian.config;
    const configFile = path.join(tempDir(), 'config.json');
    writeFileSync(configFile, JSON.stringify({ databaseUrl, databaseSchema, masterKey, maps: server.meridian.config.maps }));
    const seeded = await runCli(['maps', 'seed', 'small', '--bbox=-10,-10,10,10', '--zooms', '2-3', '--config', configFile, '--data', dataDir]);
    assert.equal(seeded.code, 0, seeded.stderr);
    const key = await keyOf(server);
    for (const url of ['/maps/small/2/1/1.png', '/maps/small/3/3/3.png', '/maps/small/3/4/4.png']) {
      assert.equal((await fetchTile(server, key, url)).headers['x-cache'], 'hit-shared', url);
    }
  });

  test('bad arguments are refused with a message, and seeding without a store is refused', async () => {
    const config = testConfig({ maps: { ...maps(), rasterStore: 'folder', rasterStoreDir: tempDir() } });
    const configFile = path.join(tempDir(), 'config.json');
    writeFileSync(configFile, JSON.stringify({ maps: config.maps }));
    const run = (...args: string[]) => runCli(['maps', 'seed', ...args, '--config', configFile, '--data', config.dataDir]);
    for (const [args, message] of [
      [['small', '--zooms', '0-3'], '--bbox needs W,S,E,N'],
      [['small', '--bbox=-10,10,10,-10', '--zooms', '0-3'], 'south below north'],
      [['small', '--bbox=-10,-10,10,10', '--zooms', '0-9'], 'zooms 0-6'],
      [['small', '--bbox=-10,-10,10,10', '--zooms', '0-2', '--tile-size', '300'], '--tile-size is 512 or 256'],
      [['nosuch', '--bbox=-10,-10,10,10', '--zooms', '0-2'], 'No map "nosuch"'],
    ] as const) {
      const { code, stderr } = await run(...args);
      assert.equal(code, 2, args.join(' '));
      assert.ok(stderr.includes(message), `${args.join(' ')}: ${stderr}`);
    }
    writeFileSync(configFile, JSON.stringify({ maps: { ...config.maps, rasterStore: 'none' } }));
    const refused = await run('small', '--bbox=-10,-10,10,10', '--zooms', '0-2');
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /set maps\.rasterStore/);
  });
});
