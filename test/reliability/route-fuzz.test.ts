/**
 * Hostile input on every route of the OpenAPI document (fast-check, a fixed seed): random and
 * malformed path parameters, query strings and bodies, with and without a valid key or service
 * token. No request gets a 5xx (503 from a full pool aside), every refusal is in the documented
 * body, and no response echoes the key. `MERIDIAN_FUZZ_RUNS` sets the cases per route (a larger
 * run is a benchmark, not CI).
 */

import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import type { InjectOptions } from 'fastify';
import { listenWarm, newAccount, startTestServer, testConfig, type TestServer } from '../helpers.js';
import { writeFixtureMap, type FixtureMap } from '../maps/serve/interactive-fixture.js';

const runs = Number(process.env.MERIDIAN_FUZZ_RUNS ?? 1000);
const seed = 20261125;

let server: TestServer;
let fixture: FixtureMap;
let key: string;
let auth: string;
let keyId: string;

before(async () => {
  fixture = await writeFixtureMap();
  server = await startTestServer(testConfig({ maps: { definitions: fixture.definitions as never } }));
  // A serving instance: listening, its render threads warm, so that /ready answers as it does in service.
  await listenWarm(server.server);
  const account = await newAccount(server.meridian);
  auth = account.auth;
  const created = await server.meridian.keys.create(account.accountId, {});
  key = created.token;
  keyId = created.id;
});
after(async () => {
  await server.close();
  rmSync(fixture.dir, { recursive: true, force: true });
});

/** The arbitraries, made once the key exists (some cases use its id). */
function arbitraries() {
  const text = fc.oneof(
    fc.string({ unit: 'grapheme', maxLength: 40 }),
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.constantFrom('', '0', '-1', '1e400', 'NaN', '%00', '%', '%E0%A4%A', '..%2F..%2Fetc%2Fpasswd', '\u0000', 'a'.repeat(9000), 'test', 'world', keyId, `urn:uuid:${keyId}`),
    fc.integer().map(String),
    fc.double().map(String),
  );

  /** A value for a path parameter, percent-encoded as a client would (or not, sometimes). */
  const pathValue = fc.tuple(text, fc.boolean()).map(([value, encode]) => (encode ? encodeURIComponent(value) : value.replace(/[/?#\s]/g, '')));

  const json = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.record({ name: text, description: fc.oneof(text, fc.constant(null)), user_agent: fc.oneof(text, fc.constant(null)), origins: fc.array(text, { maxLength: 4 }) }, { requiredKeys: [] }),
  );
  return { text, pathValue, json };
}

function routes(): { method: string; path: string }[] {
  const doc = { ...server.server.public.swagger(), ...{} } as { paths: Record<string, Record<string, unknown>> };
  const admin = server.server.admin.swagger() as { paths: Record<string, Record<string, unknown>> };
  const all = new Map<string, { method: string; path: string }>();
  for (const paths of [doc.paths, admin.paths]) {
    for (const [path, operations] of Object.entries(paths)) {
      for (const method of Object.keys(operations)) all.set(`${method} ${path}`, { method: method.toUpperCase(), path });
    }
  }
  return [...all.values()];
}

test(`${runs} hostile requests per route: no 5xx, the documented error body, no key echoed`, { timeout: 900_000 }, async () => {
  const { text, pathValue, json } = arbitraries();
  const list = routes();
  assert.ok(list.length >= 20, `${list.length} routes`);
  for (const route of list) {
    const names = [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
    await fc.assert(
      fc.asyncProperty(
        fc.array(pathValue, { minLength: names.length, maxLength: names.length }),
        fc.dictionary(fc.constantFrom('key', 'limit', 'offset', 'cursor', 'path', 'markers', 'padding', 'attribution', 'transformations', 'exports', 's_srs', 't_srs', 'x', '%6Bey'), text, { maxKeys: 4 }),
        fc.constantFrom('valid key', 'no key', 'random key'),
        json,
        async (values, query, credentials, body) => {
          let path = route.path;
          names.forEach((name, i) => (path = path.replace(`{${name}}`, values[i]!)));
          const params = new URLSearchParams(Object.entries(query).filter(([name]) => name !== 'key'));
          if (credentials === 'valid key') params.set('key', key);
          if (credentials === 'random key') params.set('key', query.key ?? 'x');
          const request: InjectOptions = {
            method: route.method as InjectOptions['method'],
            url: `${path}?${params}`,
            headers: credentials === 'valid key' ? { authorization: auth } : {},
          };
          if (route.method === 'POST') request.payload = body as object;
          const app = route.path.startsWith('/v1/') ? server.server.admin : server.server.public;
          const response = await app.inject(request);
          assert.ok(response.statusCode < 500 || response.statusCode === 503, `${response.statusCode} for ${route.method} ${request.url}: ${response.body.slice(0, 300)}`);
          // WMTS' KVP form answers its own errors as OWS exception reports, the body its clients read.
          const owsReport = /^\/maps\/[^/]+\/wmts$/.test(path) && String(response.headers['content-type']).includes('xml');
          if (owsReport) assert.match(response.body, /<ows:ExceptionReport[\s\S]*exceptionCode="\w+"/, `exception report of ${route.method} ${request.url}`);
          else if (response.statusCode >= 400) {
            const parsed = JSON.parse(response.body) as { errors?: { message?: unknown }[] };
            assert.ok(Array.isArray(parsed.errors) && typeof parsed.errors[0]?.message === 'string', `error body of ${route.method} ${request.url}: ${response.body.slice(0, 300)}`);
          }
          // Styles, TileJSON, WMTS capabilities and the list of maps (its thumbnails) carry the caller's key in their links; key management shows keys to their owner.
          const carriesKey = /^\/maps(\/[^/]+\/(style|sources|tiles\.json|256\/tiles\.json|WMTSCapabilities\.xml|wmts(\?|$))|\?|$)/.test(path) || route.path.startsWith('/v1/');
          assert.ok(carriesKey || !response.body.includes(key), `the key echoed by ${route.method} ${request.url}`);
        },
      ),
      { numRuns: runs, seed, endOnFailure: true, includeErrorInReport: true },
    );
  }
});
