import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { smallStyle } from '../maps/raster/raster-maps.js';
import { LogCapture, newAccount, startTestServer, testConfig, type TestServer } from '../helpers.js';
import { freePort, sample } from '../scratch.js';

const token = 'metrics-token-0123456789';

describe('metrics on the public listener behind metrics.token', () => {
  let server: TestServer;
  let key: string;
  let originKey: { id: string; token: string };
  let limitedKey: { id: string; token: string };
  const logs = new LogCapture();

  before(async () => {
    server = await startTestServer(
      testConfig({
        logLevel: 'info',
        metrics: { token },
        // Every key may make 10 requests in this test file: enough for all but the rate-limit test.
        rateLimit: { requestsPerSecond: 0.001, burst: 10 },
        maps: { definitions: { square: { style: smallStyle() as never, formats: ['png'], maxzoom: 6 } } },
      }),
      { logStream: logs },
    );
    const { accountId } = await newAccount(server.meridian);
    key = (await server.meridian.keys.create(accountId, {})).token;
    const restricted = await server.meridian.keys.create(accountId, { origins: ['example.com'] });
    originKey = { id: restricted.id, token: restricted.token };
    const limited = await server.meridian.keys.create(accountId, {});
    limitedKey = { id: limited.id, token: limited.token };
  });
  after(() => server.close());

  const get = (url: string, headers: Record<string, string> = {}) => server.server.public.inject({ method: 'GET', url, headers });
  const scrape = async () => {
    const response = await get('/metrics', { authorization: `Bearer ${token}` });
    assert.equal(response.statusCode, 200, response.body);
    return response.body;
  };

  test('a scrape with the token is the Prometheus text format with every family', async () => {
    const response = await get('/metrics', { authorization: `Bearer ${token}` });
    assert.equal(response.statusCode, 200);
    assert.match(response.headers['content-type'] as string, /^text\/plain; version=0\.0\.4/);
    for (const family of [
      'meridian_http_requests_total',
      'meridian_http_request_duration_seconds',
      'meridian_render_duration_seconds',
      'meridian_raster_tile_duration_seconds',
      'meridian_cache_lookups_total',
      'meridian_cache_entries',
      'meridian_cache_bytes',
      'meridian_worker_pool_tasks',
      'meridian_key_refusals_total',
      'meridian_rate_limited_total',
      'meridian_weather_runs',
      'meridian_weather_latest_run_age_seconds',
      'meridian_database_pool_connections',
      'meridian_key_changes_heard_age_seconds',
      'nodejs_eventloop_lag_seconds',
      'process_cpu_seconds_total',
    ]) {
      assert.match(response.body, new RegExp(`^# TYPE ${family} `, 'm'), family);
    }
    for (const pool of ['render', 'coordinates']) {
      assert.match(response.body, new RegExp(`^meridian_worker_pool_tasks\\{pool="${pool}",state="waiting"\\} 0$`, 'm'), pool);
    }
    // Heard moments ago (a heartbeat is 2 s by default), or always (PGlite hears changes in-process).
    const heard = sample(response.body, 'meridian_key_changes_heard_age_seconds');
    assert.ok(heard >= 0 && heard < 30, `key changes heard ${heard} s ago`);
  });

  test('weather runs and their age come from the catalog; a scrape without the database still answers', async () => {
    const referenceTime = new Date(Date.now() - 6 * 3600_000);
    await server.meridian.weather.publish('gfs', referenceTime, [], 2);
    const scrape1 = await scrape();
    assert.equal(sample(scrape1, 'meridian_weather_runs{model="gfs"}'), 1);
    const age = sample(scrape1, 'meridian_weather_latest_run_age_seconds{model="gfs"}');
    assert.ok(age >= 6 * 3600 && age < 6 * 3600 + 60, String(age));
    assert.ok(sample(scrape1, 'meridian_weather_last_ingest_age_seconds{model="gfs"}') < 60);
    const catalog = server.meridian.weather;
    const runs = catalog.runs;
    catalog.runs = () => Promise.reject(new Error('the database does not answer'));
    try {
      const scrape2 = await scrape();
      assert.ok(!scrape2.includes('meridian_weather_runs{'), 'no stale weather samples');
      assert.match(scrape2, /^meridian_http_requests_total\{/m);
    } finally {
      catalog.runs = runs;
    }
  });

  test('without the token, or with another, /metrics is 401 with the error body', async () => {
    for (const authorization of [undefined, 'Bearer wrong-token-0123456789', `Token ${token}`, `Bearer ${token}x`]) {
      const response = await get('/metrics', authorization ? { authorization } : {});
      assert.equal(response.statusCode, 401, authorization);
      assert.equal(response.headers['www-authenticate'], 'Bearer');
      assert.ok(response.json().errors[0].message.includes('Bearer'));
      assert.ok(!response.body.includes('meridian_'), 'no metric leaks');
    }
  });

  test('requests are counted by route pattern and status, never by raw URL', async () => {
    const before = await scrape();
    const series = 'meridian_http_requests_total{method="GET",route="/health",status="200"}';
    await get('/health');
    await get('/health');
    await get('/no/such/route/12345');
    await get('/maps/square/0/0/0.png?key=' + key);
    const after = await scrape();
    assert.equal(sample(after, series) - sample(before, series), 2);
    const unmatched = 'meridian_http_requests_total{method="GET",route="unmatched",status="404"}';
    assert.equal(sample(after, unmatched) - sample(before, unmatched), 1);
    // The labels only: a sample's value may hold the digits (a byte count).
    const labels = after.split('\n').map((line) => /\{.*\}/.exec(line)?.[0] ?? '').join('\n');
    assert.ok(!labels.includes('12345') && !labels.includes(key), 'no raw URL or key in labels');
    assert.ok(after.includes('route="/maps/:mapId/:z/:x/:tile"'), 'the raster route by its pattern');
    assert.match(after, /meridian_http_request_duration_seconds_count\{method="GET",route="\/health",status="200"\} \d+/);
  });

  test('raster tiles count cache misses then hits, render and tile times', async () => {
    const before = await scrape();
    const first = await get('/maps/square/2/1/1.png?key=' + key);
    assert.equal(first.headers['x-cache'], 'miss');
    const second = await get('/maps/square/2/1/1.png?key=' + key);
    assert.equal(second.headers['x-cache'], 'hit');
    const after = await scrape();
    const delta = (series: string) => sample(after, series) - sample(before, series);
    assert.equal(delta('meridian_cache_lookups_total{cache="raster-tiles",result="miss"}'), 1);
    assert.equal(delta('meridian_cache_lookups_total{cache="raster-tiles",result="hit"}'), 1);
    assert.equal(delta('meridian_raster_tile_duration_seconds_count{origin="render"}'), 1);
    assert.equal(delta('meridian_raster_tile_duration_seconds_count{origin="memory"}'), 1);
    assert.equal(delta('meridian_render_duration_seconds_count{kind="metatile",map="square"}'), 1, 'render time by map');
    assert.ok(sample(after, 'meridian_cache_bytes{cache="raster-tiles"}') > 0);
    // The render thread reports its tile cache after the task, on a channel: it arrives shortly.
    let threads = after;
    for (let attempt = 0; attempt < 50 && sample(threads, 'meridian_cache_entries{cache="render-tiles"}') === 0; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      threads = await scrape();
    }
    assert.ok(sample(threads, 'meridian_cache_entries{cache="render-tiles"}') > 0, 'tiles kept by the render thread');
    assert.ok(sample(threads, 'meridian_cache_bytes{cache="render-tiles"}') > 0);
    assert.ok(sample(threads, 'meridian_cache_lookups_total{cache="render-tiles",result="miss"}') > 0, 'the render thread loaded tiles');
    for (const cache of ['icons', 'weather-archives', 'sprites', 'glyphs']) assert.match(threads, new RegExp(`meridian_cache_entries\\{cache="${cache}"\\} \\d+`), cache);
  });

  test('key refusals are counted by reason and logged with the key id, never the token', async () => {
    const before = await scrape();
    assert.equal((await get('/ping')).statusCode, 403);
    assert.equal((await get('/ping?key=not-a-key-at-all')).statusCode, 403);
    assert.equal((await get(`/ping?key=${originKey.token}`, { origin: 'https://elsewhere.org' })).statusCode, 403);
    const after = await scrape();
    const delta = (reason: string) => sample(after, `meridian_key_refusals_total{reason="${reason}"}`) - sample(before, `meridian_key_refusals_total{reason="${reason}"}`);
    assert.equal(delta('missing'), 1);
    assert.equal(delta('unknown'), 1);
    assert.equal(delta('origin'), 1);
    const refusals = logs.lines.map((line) => JSON.parse(line) as { msg: string; refusal?: string; keyId?: string | null }).filter((line) => line.msg === 'key refused');
    assert.deepEqual(refusals.slice(-3).map((line) => [line.refusal, line.keyId]), [['missing', null], ['unknown', null], ['origin', originKey.id]]);
    assert.ok(!logs.text.includes(originKey.token) && !logs.text.includes('not-a-key-at-all'), 'no token in the log');
  });

  test('a request over the key\'s rate limit is counted and logged with the key id', async () => {
    const before = await scrape();
    for (let i = 0; i < 10; i++) assert.equal((await get(`/ping?key=${limitedKey.token}`)).statusCode, 200);
    assert.equal((await get(`/ping?key=${limitedKey.token}`)).statusCode, 429);
    const after = await scrape();
    const series = 'meridian_rate_limited_total{limit="key"}';
    assert.equal(sample(after, series) - sample(before, series), 1);
    const limited = logs.lines.map((line) => JSON.parse(line) as { msg: string; rateLimit?: string; keyId?: string }).filter((line) => line.msg === 'rate limited');
    assert.deepEqual(limited.map((line) => [line.rateLimit, line.keyId]), [['key', limitedKey.id]]);
    assert.ok(!logs.text.includes(limitedKey.token));
  });
});

describe('where /metrics is served', () => {
  test('without an admin listener or a token there are no metrics: 404', async () => {
    const server = await startTestServer();
    try {
      const response = await server.server.public.inject({ method: 'GET', url: '/metrics' });
      assert.equal(response.statusCode, 404);
      assert.ok(response.json().errors);
    } finally {
      await server.close();
    }
  });

  test('with an admin listener, on it (no token needed) and not on the public one', async () => {
    const server = await startTestServer(testConfig({ admin: { port: await freePort() } }));
    try {
      assert.equal((await server.server.public.inject({ method: 'GET', url: '/metrics' })).statusCode, 404);
      const response = await server.server.admin.inject({ method: 'GET', url: '/metrics' });
      assert.equal(response.statusCode, 200);
      assert.match(response.body, /^# TYPE meridian_http_requests_total counter/m);
    } finally {
      await server.close();
    }
  });

  test('with an admin listener and a token, the admin listener asks for the token too', async () => {
    const server = await startTestServer(testConfig({ admin: { port: await freePort() }, metrics: { token } }));
    try {
      assert.equal((await server.server.admin.inject({ method: 'GET', url: '/metrics' })).statusCode, 401);
      const response = await server.server.admin.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${token}` } });
      assert.equal(response.statusCode, 200);
      assert.equal((await server.server.public.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${token}` } })).statusCode, 404);
    } finally {
      await server.close();
    }
  });
});

test('key-management calls over the account budget are counted as rate limited', async () => {
  const server = await startTestServer(testConfig({ admin: { port: await freePort() }, management: { requestsPerSecond: 0.001, burst: 1 } }));
  try {
    const { auth } = await newAccount(server.meridian);
    const list = () => server.server.admin.inject({ method: 'GET', url: '/v1/api_keys', headers: { authorization: auth } });
    assert.equal((await list()).statusCode, 200);
    assert.equal((await list()).statusCode, 429);
    const scrape = (await server.server.admin.inject({ method: 'GET', url: '/metrics' })).body;
    assert.equal(sample(scrape, 'meridian_rate_limited_total{limit="management"}'), 1);
  } finally {
    await server.close();
  }
});
