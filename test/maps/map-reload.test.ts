/**
 * @oneDatabase the database only checks the key; what is tested is map definitions reloaded from files.
 */

import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import sharp from 'sharp';
import { reloadMaps } from '../../src/maps/map-reload.js';
import type { MapChange, MapRegistry } from '../../src/maps/registry.js';
import { LogCapture, newAccount, startTestServer, testConfig, type TestServer } from '../helpers.js';

/** A map definition file whose inline style is one background of `color`. */
function writeBackgroundMap(dir: string, id: string, color: string): void {
  const style = { version: 8, sources: {}, layers: [{ id: 'bg', type: 'background', paint: { 'background-color': color } }] };
  writeFileSync(path.join(dir, `${id}.json`), JSON.stringify({ style }));
}

let server: TestServer;
let key: string;
let dir: string;
const logs = new LogCapture();
const entries = () => logs.lines.map((line) => JSON.parse(line) as Record<string, unknown>);

before(async () => {
  const config = testConfig({ logLevel: 'info', maps: { workers: 1 } });
  dir = path.join(config.dataDir, 'maps');
  mkdirSync(dir, { recursive: true });
  writeBackgroundMap(dir, 'plain', '#0000ff');
  server = await startTestServer(config, { logStream: logs });
  const { accountId } = await newAccount(server.meridian);
  key = (await server.meridian.keys.create(accountId, {})).token;
});

after(() => server.close());

async function centrePixel(): Promise<number[]> {
  const response = await server.server.public.inject({ method: 'GET', url: `/api/maps/plain/static/0,0,1/32x32.png?attribution=false&key=${key}` });
  assert.equal(response.statusCode, 200, response.body);
  const { data } = await sharp(response.rawPayload).raw().toBuffer({ resolveWithObject: true });
  return [...data.subarray(0, 3)];
}

async function eventually<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) assert.fail(`${what}: still ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const mapIds = async () => {
  const response = await server.server.public.inject({ method: 'GET', url: `/maps?key=${key}` });
  return (JSON.parse(response.body) as { maps: { id: string }[] }).maps.map((map) => map.id);
};

test('a changed definition in the maps folder is served without a restart, drawn anew by the render threads', async () => {
  assert.deepEqual(await centrePixel(), [0, 0, 255], 'the render thread has the map open');
  writeBackgroundMap(dir, 'plain', '#ff0000');
  await eventually('the image after the change', centrePixel, (pixel) => pixel[0] === 255 && pixel[2] === 0);
  assert.ok(entries().some((line) => line.msg === 'map "plain" updated'), 'one log line for the change');
});

test('a new map appears, and a broken definition keeps the previous version serving with a log line saying why', async () => {
  writeBackgroundMap(dir, 'second', '#00ff00');
  await eventually('the maps listed', mapIds, (ids) => ids.includes('second'));
  writeFileSync(path.join(dir, 'plain.json'), '{"style": {"version": 8, "sources": {}, "layers": [{"id": "bg", "type": "nope"}]}}');
  await eventually('the log', async () => entries().filter((line) => line.map === 'plain' && line.reason), (lines) => lines.length > 0);
  const kept = entries().find((line) => line.map === 'plain' && line.reason)!;
  assert.match(String(kept.msg), /not reloaded: invalid style.*previous version keeps serving/);
  assert.deepEqual(await centrePixel(), [255, 0, 0], 'the previous version still draws');
  assert.ok((await mapIds()).includes('plain'));
});

test('a reload logs only when a map changed: no "maps reloaded … changed: 0" line', async () => {
  const said: { level: string; message: string }[] = [];
  const log = {
    info: (_fields: object, message: string) => said.push({ level: 'info', message }),
    warn: (_fields: object, message: string) => said.push({ level: 'warn', message }),
    error: (_fields: object, message: string) => said.push({ level: 'error', message }),
  } as unknown as Parameters<typeof reloadMaps>[1];
  let next: MapChange[] = [];
  const registry = { reload: async () => next, ids: () => ['world'] } as unknown as MapRegistry;
  for (let i = 0; i < 8; i++) await reloadMaps(registry, log, 'file change');
  assert.equal(said.length, 0, `reloads that changed nothing were logged: ${JSON.stringify(said)}`);
  next = [{ id: 'wo2', change: 'added' } as MapChange];
  await reloadMaps(registry, log, 'file change');
  assert.deepEqual(said.map((line) => line.message), ['map "wo2" added', 'maps reloaded']);
});
