/**
 * Cold coordinate searches keep PROJ off the serving thread: while one client pages through
 * search results nothing has computed yet (each CRS of a page needs PROJ's operation search for its
 * default transformation, from under a millisecond to half a second, and here its transformations
 * and exports too), `/health` keeps answering. Before the coordinates pool, each page of this sweep
 * held the event loop for seconds (issue 15, item 1). Also: the PROJ time limit of a search and
 * the pool's queue limit answer 503 with `Retry-After`, and cached pages need no thread.
 *
 * @oneDatabase the database only checks the key; what is tested is PROJ's work off the serving thread.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sharedRegistry } from '../../src/coordinates/routes.js';
import { search, type SearchResult } from '../../src/coordinates/search/search.js';
import { healthLatencies, latencyFigures } from '../health-probe.js';
import { newAccount, startTestServer, testConfig, type TestServer } from '../helpers.js';

const query = 'kind:* deprecated:*';
/**
 * Pages of the sweep: in code order, where projected CRSs begin (codes 2344 to about 3350 in EPSG
 * v13.102's order). The offsets here and below follow the registry's order: after an EPSG upgrade,
 * pick pages that need PROJ work again (the sweep asserts that it computed default transformations;
 * the other tests, that their first answer is a 503).
 */
/** Two pages: each is seconds of PROJ work (its transformations' and exports' too), computed again in-line below to compare. */
const offsets = [3500, 3550];
const url = (offset: number) => `/coordinates/search/${encodeURIComponent(query)}.json?limit=50&offset=${offset}&transformations=true&exports=true`;

test('while a client pages through cold search results, /health keeps answering: its longest wait is a small part of a page\'s PROJ time', { timeout: 300_000 }, async () => {
  const { meridian, server, close } = await startTestServer(testConfig());
  try {
    const { public: base } = await server.listen();
    const { accountId } = await newAccount(meridian);
    const key = (await meridian.keys.create(accountId, {})).token;
    const pages = new Map<number, SearchResult>();
    const sweep = (async () => {
      for (const offset of offsets) {
        // A page needing more PROJ time than a search may use answers 503 and keeps its work: a
        // client retries after Retry-After and the search goes on from there (tested below).
        let response = await fetch(`${base}${url(offset)}&key=${key}`);
        for (let retry = 0; response.status === 503 && retry < 10; retry++) {
          await new Promise((resolve) => setTimeout(resolve, Number(response.headers.get('retry-after')) * 1000));
          response = await fetch(`${base}${url(offset)}&key=${key}`);
        }
        assert.equal(response.status, 200, `offset ${offset}: ${await response.clone().text()}`);
        pages.set(offset, (await response.json()) as SearchResult);
      }
    })();
    const started = performance.now();
    const latencies = await healthLatencies(base, sweep);
    const seconds = (performance.now() - started) / 1000;
    await sweep;

    const crsItems = [...pages.values()].flatMap((page) => page.results).filter((item) => item.kind.startsWith('CRS-')).length;
    assert.ok(crsItems >= 40, `${crsItems} CRS items in the sweep`);
    // Pages whose CRSs need PROJ's operation search: without it the sweep would prove nothing.
    const defaults = [...pages.values()].flatMap((page) => page.results).filter((item) => item.default_transformation).length;
    assert.ok(defaults >= 40, `${defaults} default transformations computed in the sweep`);
    assert.ok(latencies.length >= 50, `${latencies.length} health checks during the sweep`);
    const { p50Ms, p99Ms, maxMs } = latencyFigures(latencies);
    const pageMs = (seconds * 1000) / offsets.length;
    const figures = `/health p50 ${p50Ms} ms, p99 ${p99Ms} ms, max ${maxMs} ms over ${latencies.length} requests; ${offsets.length} pages in ${seconds.toFixed(1)} s`;
    console.log(figures);
    // Compared with the page's own time, not with a fixed bound, so that a loaded machine slows both:
    // with PROJ on the serving thread, /health waits out most of a page (seconds); on the pool, at
    // most a few event-loop turns. bench:coordinates reports the latencies themselves.
    assert.ok(maxMs < pageMs / 4, `${figures}: the longest wait should be under a quarter of a page's ${pageMs.toFixed(0)} ms`);

    // The answers are those of the in-line search, field for field.
    const registry = sharedRegistry();
    for (const [offset, page] of pages) {
      const inline = search(registry, { query, limit: 50, offset, transformations: true, exports: true });
      assert.deepEqual(page, JSON.parse(JSON.stringify(inline)), `offset ${offset}`);
    }
  } finally {
    await close();
  }
});

async function keyOf(server: TestServer): Promise<string> {
  const { accountId } = await newAccount(server.meridian);
  return (await server.meridian.keys.create(accountId, {})).token;
}

test('a search that runs out of PROJ time answers 503 with Retry-After, keeps its work, and a retry goes on from there', { timeout: 300_000 }, async () => {
  const server = await startTestServer(testConfig({ coordinates: { workers: 1, queue: 4, timeoutMs: 100 } }));
  try {
    const key = await keyOf(server);
    // 50 projected CRSs whose operation search takes 40-250 ms each: far more than 100 ms of PROJ.
    // Each try makes at least one PROJ call of the ~130 the page needs, so a few hundred tries are plenty.
    const get = () => server.server.public.inject({ method: 'GET', url: `${url(9500)}&key=${key}` });
    const first = await get();
    assert.equal(first.statusCode, 503);
    assert.equal(first.headers['retry-after'], '1');
    assert.match(first.json().errors[0].message, /^The search needed more than 100 ms of PROJ work/);
    let tries = 1;
    let response = first;
    while (response.statusCode === 503 && tries < 400) {
      response = await get();
      tries++;
    }
    assert.equal(response.statusCode, 200, response.body);
    assert.ok(tries > 2, `answered after ${tries} tries`);
    const inline = search(sharedRegistry(), { query, limit: 50, offset: 9500, transformations: true, exports: true });
    assert.deepEqual(response.json(), JSON.parse(JSON.stringify(inline)));
  } finally {
    await server.close();
  }
});

test("searches beyond the pool's queue are refused with 503 at once, and cached pages are answered without the pool", { timeout: 300_000 }, async () => {
  const server = await startTestServer(testConfig({ coordinates: { workers: 1, queue: 0, timeoutMs: 60_000 } }));
  try {
    const key = await keyOf(server);
    const get = (path: string) => server.server.public.inject({ method: 'GET', url: `${path}&key=${key}` });
    const warm = await get('/coordinates/search/swit.json?limit=5');
    assert.equal(warm.statusCode, 200);

    // Two cold pages at once on one thread without a queue: one is refused at once, one runs (seconds).
    const pending = [get(url(11050)), get(url(11100))];
    const refused = await Promise.race(pending);
    assert.equal(refused.statusCode, 503, refused.body);
    assert.equal(refused.headers['retry-after'], '1');
    assert.match(refused.json().errors[0].message, /^Too many coordinate operations waiting/);
    let settled = false;
    const all = Promise.all(pending).finally(() => (settled = true));
    const cached = await get('/coordinates/search/swit.json?limit=5');
    assert.equal(cached.statusCode, 200);
    assert.deepEqual(cached.json(), warm.json());
    assert.equal(settled, false, 'the cached page was answered while the thread was busy');
    assert.deepEqual((await all).map((response) => response.statusCode).sort(), [200, 503]);
  } finally {
    await server.close();
  }
});
