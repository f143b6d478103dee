/**
 * The links in style.json and TileJSON: with `publicUrl` set they ignore the request's Host (a
 * forged Host cannot point a client's tiles, glyphs and key elsewhere); without it they follow the
 * Host and the response says it varies by it, so a shared cache keeps one Host's links apart.
 *
 * @oneDatabase the database only checks the key; what is tested is the URLs built from Host headers.
 */

import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { newAccount, startTestServer, testConfig, type TestServer } from '../helpers.js';
import { writeFixtureMap, type FixtureMap } from '../maps/serve/interactive-fixture.js';

let fixture: FixtureMap;
let pinned: TestServer;
let open: TestServer;

before(async () => {
  fixture = await writeFixtureMap();
  pinned = await startTestServer(testConfig({ publicUrl: 'https://maps.example.com/', maps: { definitions: fixture.definitions as never } }));
  open = await startTestServer(testConfig({ maps: { definitions: fixture.definitions as never } }));
});

after(async () => {
  await pinned.close();
  await open.close();
  rmSync(fixture.dir, { recursive: true, force: true });
});

async function fetchWithHost(server: TestServer, url: string, host: string) {
  const key = (await server.meridian.keys.create((await newAccount(server.meridian)).accountId, {})).token;
  return server.server.public.inject({ method: 'GET', url: `${url}?key=${encodeURIComponent(key)}`, headers: { host } });
}

test('with publicUrl, a forged Host changes no link', async () => {
  for (const url of ['/maps/test/style.json', '/maps/test/sources/places.json']) {
    const response = await fetchWithHost(pinned, url, 'evil.example');
    assert.equal(response.statusCode, 200, response.body);
    assert.ok(!response.body.includes('evil.example'), url);
    assert.ok(response.body.includes('https://maps.example.com/maps/test/'), url);
  }
});

test('without publicUrl, links follow the Host and the response varies by it', async () => {
  for (const url of ['/maps/test/style.json', '/maps/test/sources/places.json']) {
    const response = await fetchWithHost(open, url, 'meridian.test:8080');
    assert.equal(response.statusCode, 200, response.body);
    assert.ok(response.body.includes('http://meridian.test:8080/maps/test/'), url);
    assert.match(String(response.headers.vary), /\bHost\b/, url);
    assert.match(String(response.headers.vary), /X-Forwarded-Host/, url);
  }
});

test('a public URL with a path, query or another scheme is refused at start-up', async () => {
  const { loadConfig } = await import('../../src/config.js');
  for (const value of ['ftp://maps.example.com', 'https://maps.example.com/base', 'https://maps.example.com?x=1']) {
    assert.throws(() => loadConfig({ env: { MERIDIAN_PUBLIC_URL: value } }), /"publicUrl".*MERIDIAN_PUBLIC_URL/, value);
  }
});
