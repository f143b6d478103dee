/**
 * @oneDatabase the database only checks the key; what is tested is sprites.
 */

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parseSpriteFile } from '../../../src/maps/serve/sprite-routes.js';
import type { TestServer } from '../../helpers.js';
import { startFixtureServer, type FixtureMap, type FixtureServer } from './interactive-fixture.js';

let served: FixtureServer;
let fixture: FixtureMap;
let server: TestServer;

before(async () => {
  served = await startFixtureServer();
  ({ fixture, server } = served);
});

after(() => served.close());

const get = (url: string, headers: Record<string, string> = {}) => served.get(url, headers);

async function assertFile(url: string, file: string, type: string): Promise<void> {
  const response = await get(url);
  assert.equal(response.statusCode, 200, `${url}: ${response.body}`);
  assert.match(String(response.headers['content-type']), new RegExp(`^${type}`), url);
  assert.ok(response.rawPayload.equals(fixture.sprites[file]!), `${url} is ${file}`);
  assert.equal(response.headers['cache-control'], 'public, max-age=86400');
}

describe('GET /maps/{mapId}/sprite{@2x}.{json,png}', () => {
  test('the sprite’s files, byte for byte', async () => {
    await assertFile('/maps/test/sprite.json', 'basic.json', 'application/json');
    await assertFile('/maps/test/sprite.png', 'basic.png', 'image/png');
  });

  test('@2x answers with the 1x files when the sprite has no @2x files', async () => {
    await assertFile('/maps/test/sprite@2x.json', 'basic.json', 'application/json');
    await assertFile('/maps/test/sprite@2x.png', 'basic.png', 'image/png');
  });

  test('the array form: each entry at sprite/{id}, with its own @2x files; "default" also at sprite', async () => {
    await assertFile('/maps/arrays/sprite/icons.json', 'icons.json', 'application/json');
    await assertFile('/maps/arrays/sprite/icons@2x.json', 'icons@2x.json', 'application/json');
    await assertFile('/maps/arrays/sprite/icons@2x.png', 'icons@2x.png', 'image/png');
    await assertFile('/maps/arrays/sprite/default.png', 'basic.png', 'image/png');
    await assertFile('/maps/arrays/sprite.json', 'basic.json', 'application/json');
  });

  test('an ETag per file; If-None-Match gets 304', async () => {
    const first = await get('/maps/test/sprite.png');
    const again = await get('/maps/test/sprite.png', { 'if-none-match': String(first.headers.etag) });
    assert.equal(again.statusCode, 304);
  });

  test('an unknown map, sprite id or file name is 404; no key is 403', async () => {
    for (const url of ['/maps/nope/sprite.json', '/maps/arrays/sprite/nope.json', '/maps/test/sprite/icons.json', '/maps/arrays/sprite/icons.txt']) {
      const response = await get(url);
      assert.equal(response.statusCode, 404, url);
      assert.deepEqual(response.json(), { errors: [{ message: 'The item does not exist' }] });
    }
    assert.equal((await server.server.public.inject({ method: 'GET', url: '/maps/test/sprite.json' })).statusCode, 403);
  });
});

test('parseSpriteFile reads {id}{@2x}.{json,png}', () => {
  assert.deepEqual(parseSpriteFile('icons@2x.png'), { id: 'icons', ratio: 2, format: 'png' });
  assert.deepEqual(parseSpriteFile('a.b.json'), { id: 'a.b', ratio: 1, format: 'json' });
  assert.equal(parseSpriteFile('icons.svg'), undefined);
  assert.equal(parseSpriteFile('.json'), undefined);
});
