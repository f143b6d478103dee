/**
 * @oneDatabase the database only checks the key; what is tested is the list of maps, read from the map definitions.
 */

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { newAccount, startTestServer, testConfig, type TestServer } from '../helpers.js';

const style = { version: 8, sources: {}, layers: [{ id: 'sea', type: 'background', paint: { 'background-color': '#00f' } }] };
let server: TestServer;
let key: string;

before(async () => {
  server = await startTestServer(
    testConfig({
      maps: {
        definitions: {
          zeta: { style: style as never },
          alpha: { style: style as never, formats: ['png'], attribution: '© Alpha', minzoom: 2, maxzoom: 9 },
        },
      },
    }),
  );
  const { accountId } = await newAccount(server.meridian);
  key = (await server.meridian.keys.create(accountId, {})).token;
});
after(() => server.close());

test('GET /maps lists the configured maps in id order with their formats, zooms and attribution', async () => {
  const response = await server.server.public.inject(`/maps?key=${key}`);
  assert.equal(response.statusCode, 200);
  assert.deepEqual(response.json(), {
    maps: [
      { id: 'alpha', attribution: '© Alpha', minzoom: 2, maxzoom: 9, formats: ['png'] },
      { id: 'zeta', attribution: '', minzoom: 0, maxzoom: 22, formats: ['png', 'jpg', 'webp'] },
    ],
  });
});

test('GET /maps is behind the key gate', async () => {
  const response = await server.server.public.inject('/maps?key=nope');
  assert.equal(response.statusCode, 403);
  assert.equal(response.json().errors[0].message, 'Key is missing, invalid or restricted');
});
