import assert from 'node:assert/strict';
import { test } from 'node:test';
import { projInfo } from '../../../src/coordinates/proj/proj.js';
import { listenWarm, newAccount, startTestServer, testConfig } from '../../helpers.js';

interface OpenApi {
  openapi: string;
  paths: Record<string, Record<string, { responses: Record<string, unknown>; security?: unknown[] }>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
}

test('the OpenAPI document is generated from the route schemas and covers every endpoint', async () => {
  const server = await startTestServer();
  try {
    const response = await server.server.public.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(response.statusCode, 200);
    const doc = response.json<OpenApi>();
    assert.match(doc.openapi, /^3\./);
    const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    for (const expected of [
      'GET /v1/api_keys',
      'POST /v1/api_keys',
      'GET /v1/api_keys/{key_id}',
      'DELETE /v1/api_keys/{key_id}',
      'POST /v1/api_keys/{key_id}/change_settings',
      'GET /health',
      'GET /ready',
      'GET /ping',
      'GET /coordinates/transform/{coordinates}.json',
      'GET /coordinates/search/{query}.json',
      'GET /weather/latest.json',
      'GET /tiles/{keyframe}/{z}/{x}/{y}.{format}',
    ]) {
      assert.ok(operations.includes(expected), `${expected} missing from ${operations.join(', ')}`);
    }
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        assert.ok(operation.responses['200'], `${method} ${path} documents its success`);
      }
    }
    for (const name of ['APIKey', 'APIKeyPage', 'APIKeySettings', 'ErrorBody', 'SearchResult', 'SearchItem', 'TransformationItem', 'TransformResult']) {
      assert.ok(doc.components.schemas[name], name);
    }
    for (const gated of ['/ping', '/coordinates/search/{query}.json', '/weather/latest.json', '/tiles/{keyframe}/{z}/{x}/{y}.{format}']) {
      assert.deepEqual(doc.paths[gated]!.get!.security, [{ apiKey: [] }], gated);
    }
    // The gate answers 403, 429 and, while the database cannot be reached, 503 on every gated route.
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        if (!JSON.stringify(operation.security ?? []).includes('apiKey')) continue;
        for (const status of ['403', '429', '503']) assert.ok(operation.responses[status], `${method} ${path} documents ${status}`);
        // Its successes and 429s name the RateLimit-* headers the gate sends.
        for (const [status, body] of Object.entries(operation.responses)) {
          if (!status.startsWith('2') && status !== '429') continue;
          const headers = (body as { headers?: Record<string, unknown> }).headers ?? {};
          assert.deepEqual(Object.keys(headers).filter((name) => name.startsWith('RateLimit-')).sort(), ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'], `${method} ${path} ${status}`);
        }
      }
    }
    // The catalog is typed down to its keyframes, so generated clients read them without casts.
    type Json = { [name: string]: Json } & Json[];
    const bodyOf = (path: string) => (JSON.parse(response.body) as Json).paths![path]!.get!.responses!['200']!.content!['application/json']!.schema!;
    const entry = bodyOf('/weather/latest.json').properties!.variables!.items!;
    const keyframe = entry.allOf!.find((part) => part.properties!.keyframes)!.properties!.keyframes!.items!;
    assert.deepEqual(keyframe.required, ['id', 'timestamp']);
    assert.equal(keyframe.properties!.id!.format, 'uuid');
    assert.deepEqual(bodyOf('/ready').required, ['status', 'database', 'epsg', 'coordinates_cache', 'geocoding_index', 'render_threads']);
    assert.deepEqual(Object.keys(doc.components.securitySchemes).sort(), ['apiKey', 'serviceToken']);
    assert.deepEqual(doc.paths['/ping']!.get!.security, [{ apiKey: [] }]);
    assert.deepEqual(doc.paths['/v1/api_keys']!.get!.security, [{ serviceToken: [] }]);
  } finally {
    await server.close();
  }
});

test('health, readiness and unknown routes answer over real HTTP', async () => {
  const server = await startTestServer();
  try {
    const { public: url } = await listenWarm(server.server);
    assert.deepEqual(await (await fetch(`${url}/health`)).json(), { status: 'ok' });
    const ready = await fetch(`${url}/ready`);
    assert.equal(ready.status, 200);
    const threads = server.meridian.config.maps.workers;
    assert.deepEqual(await ready.json(), {
      status: 'ok',
      database: server.meridian.db.kind,
      epsg: projInfo().epsgVersion,
      coordinates_cache: 'off',
      geocoding_index: 'off',
      render_threads: `${threads} of ${threads} warm`,
    });
    const missing = await fetch(`${url}/no/such/route?key=secret`);
    assert.equal(missing.status, 404);
    assert.deepEqual(await missing.json(), { errors: [{ message: 'The item does not exist' }] });
  } finally {
    await server.close();
  }
});

test('readiness is 503 when storage is unreachable', async () => {
  const server = await startTestServer();
  await listenWarm(server.server);
  const { db } = server.meridian;
  const query = db.query;
  db.query = async () => {
    throw new Error('connection refused');
  };
  try {
    const response = await server.server.public.inject({ method: 'GET', url: '/ready' });
    assert.equal(response.statusCode, 503);
    const timeout = server.meridian.config.database.readyTimeoutMs;
    assert.deepEqual(
      response.json(),
      { status: 'unavailable', reason: 'database', database: db.kind, message: `the database does not answer within ${timeout} ms` },
      'exactly the fields docs/api.md lists',
    );
  } finally {
    db.query = query;
    await server.close();
  }
});

test('key management can move to a separate admin listener', async () => {
  const server = await startTestServer(testConfig({ admin: { port: 0, host: '127.0.0.1' } }));
  try {
    const urls = await server.server.listen();
    assert.notEqual(urls.admin, urls.public);
    const { auth } = await newAccount(server.meridian);
    const onAdmin = await fetch(`${urls.admin}/v1/api_keys`, { headers: { authorization: auth } });
    assert.equal(onAdmin.status, 200);
    const onPublic = await fetch(`${urls.public}/v1/api_keys`, { headers: { authorization: auth } });
    assert.equal(onPublic.status, 404);
    assert.equal((await fetch(`${urls.admin}/health`)).status, 200);
    const publicDoc = (await (await fetch(`${urls.public}/openapi.json`)).json()) as OpenApi;
    assert.ok(!('/v1/api_keys' in publicDoc.paths));
    assert.ok('/ping' in publicDoc.paths);
    const adminDoc = (await (await fetch(`${urls.admin}/openapi.json`)).json()) as OpenApi;
    assert.ok('/v1/api_keys' in adminDoc.paths);
  } finally {
    await server.close();
  }
});
