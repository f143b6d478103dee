import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ConfigError, configSchema, defaultConfig, environmentVariables, loadConfig } from '../src/config.js';
import { validatorOf } from '../src/platform/settings.js';
import { defaultVariables } from '../src/weather/variables.js';
import { tempDir } from './scratch.js';

function configFile(content: unknown): string {
  const file = path.join(tempDir(), 'meridian.json');
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

test('defaults need no file and no environment', () => {
  const config = loadConfig();
  assert.equal(config.port, 8080);
  assert.equal(config.host, '127.0.0.1');
  assert.equal(config.databaseUrl, null);
  assert.equal(config.admin.port, null);
  assert.equal(config.dataDir, path.resolve('./data'));
  assert.deepEqual(config.rateLimit, defaultConfig.rateLimit);
});

test('the file overrides defaults, the environment the file, flags the environment', () => {
  const file = configFile({ port: 9000, host: '0.0.0.0', rateLimit: { burst: 7 }, admin: { port: 9001 }, weather: { fetch: { intervalMinutes: 30 } } });
  const fromFile = loadConfig({ file });
  assert.equal(fromFile.port, 9000);
  assert.equal(fromFile.rateLimit.burst, 7);
  assert.equal(fromFile.rateLimit.requestsPerSecond, defaultConfig.rateLimit.requestsPerSecond);
  assert.equal(fromFile.admin.port, 9001);
  assert.equal(fromFile.admin.host, '127.0.0.1');
  assert.equal(fromFile.weather.fetch.intervalMinutes, 30);
  assert.equal(fromFile.weather.fetch.resolution, defaultConfig.weather.fetch.resolution, 'nested sections merge');

  const env = { MERIDIAN_PORT: '9100', DATABASE_URL: 'postgres://db/meridian', MERIDIAN_RATE_LIMIT_RPS: '2.5', MERIDIAN_TRUST_PROXY: 'true' };
  const fromEnv = loadConfig({ file, env });
  assert.equal(fromEnv.port, 9100);
  assert.equal(fromEnv.host, '0.0.0.0');
  assert.equal(fromEnv.databaseUrl, 'postgres://db/meridian');
  assert.equal(fromEnv.rateLimit.requestsPerSecond, 2.5);
  assert.equal(fromEnv.trustProxy, true);

  const fromFlags = loadConfig({ file, env, flags: { port: '9200', dataDir: '/tmp/x', host: undefined } });
  assert.equal(fromFlags.port, 9200);
  assert.equal(fromFlags.dataDir, '/tmp/x');
  assert.equal(fromFlags.host, '0.0.0.0');
});

test('trustProxy takes a list of proxies (comma-separated in the environment), a hop count or a boolean', () => {
  assert.deepEqual(loadConfig({ env: { MERIDIAN_TRUST_PROXY: '10.0.0.5, 192.168.0.0/16,fd00::/8,loopback' } }).trustProxy, ['10.0.0.5', '192.168.0.0/16', 'fd00::/8', 'loopback']);
  assert.deepEqual(loadConfig({ env: { MERIDIAN_TRUST_PROXY: '::1' } }).trustProxy, ['::1']);
  assert.equal(loadConfig({ env: { MERIDIAN_TRUST_PROXY: '2' } }).trustProxy, 2);
  assert.equal(loadConfig({ env: { MERIDIAN_TRUST_PROXY: 'false' } }).trustProxy, false);
  assert.deepEqual(loadConfig({ file: configFile({ trustProxy: ['127.0.0.1'] }) }).trustProxy, ['127.0.0.1']);
  for (const [env, message] of [
    ['10.0.0.300', /"trustProxy" has "10.0.0.300", which is no address or network/],
    ['10.0.0.0/33', /"trustProxy" has "10.0.0.0\/33"/],
    ['proxy.internal', /"trustProxy" item 0 must match pattern.*MERIDIAN_TRUST_PROXY/],
    ['0', /"trustProxy".*MERIDIAN_TRUST_PROXY/],
  ] as const) {
    assert.throws(() => loadConfig({ env: { MERIDIAN_TRUST_PROXY: env } }), (error: Error) => error instanceof ConfigError && message.test(error.message), env);
  }
});

test('an invalid setting stops start-up with a message naming it and where it came from', () => {
  const cases: [Parameters<typeof loadConfig>[0], RegExp][] = [
    [{ env: { MERIDIAN_PORT: 'eighty' } }, /"port".*MERIDIAN_PORT/],
    [{ env: { MERIDIAN_PORT: '70000' } }, /"port".*65535/],
    [{ env: { DATABASE_URL: 'mysql://x' } }, /"databaseUrl".*DATABASE_URL/],
    [{ env: { MERIDIAN_LOG_LEVEL: 'loud' } }, /"logLevel"/],
    [{ env: { MERIDIAN_MASTER_KEY: 'short' } }, /"masterKey"/],
    [{ env: { MERIDIAN_DB_SCHEMA: 'Robert"; DROP' } }, /"databaseSchema"/],
    [{ file: configFile({ prot: 1 }) }, /unknown setting "prot"/],
    [{ file: configFile({ admin: { prt: 1 } }) }, /unknown setting "admin.prt"/],
    [{ file: configFile({ rateLimit: { burst: 0 } }) }, /"rateLimit.burst".*config file/],
    [{ file: configFile('{ not json') }, /not valid JSON/],
    [{ file: configFile('[1]') }, /JSON object/],
    [{ file: '/nonexistent/meridian.json' }, /Cannot read config file/],
    [{ flags: { port: '-1' } }, /"port".*command-line/],
    [{ env: { MERIDIAN_TRUST_PROXY: 'yes' } }, /"trustProxy".*MERIDIAN_TRUST_PROXY/],
    [{ env: { MERIDIAN_WEATHER_FETCH_STEPS: '0-96/x' } }, /"weather.fetch.steps".*MERIDIAN_WEATHER_FETCH_STEPS/],
    [{ file: configFile({ weather: { fetch: { resolution: '0p10' } } }) }, /"weather.fetch.resolution".*config file/],
  ];
  for (const [sources, message] of cases) {
    assert.throws(() => loadConfig(sources), (error: Error) => error instanceof ConfigError && message.test(error.message), JSON.stringify(sources));
  }
});

test('rate limits are bounded as a bucket holds them, each in every configuration, the burst even with the rate off', () => {
  const range = /must be 0, or 0\.001\.\.1000000000/;
  const cases: [Parameters<typeof loadConfig>[0], RegExp][] = [
    // Slower than a request per 1,000 s: the Redis bucket's expiry is no integer, and the shared limiter fails open.
    [{ env: { MERIDIAN_RATE_LIMIT_RPS: '1e-300' } }, range],
    [{ env: { MERIDIAN_RATE_LIMIT_RPS: '0.0009' } }, range],
    [{ env: { MERIDIAN_RATE_LIMIT_RPS: '1e300' } }, range],
    [{ env: { MERIDIAN_RATE_LIMIT_RPS: '-1' } }, range],
    [{ file: configFile({ management: { requestsPerSecond: 1e-300 } }) }, /"management.requestsPerSecond" must be 0, or 0\.001\.\.1000000000 \(from config file/],
    [{ file: configFile({ unknownKeys: { requestsPerSecond: 2e9 } }) }, /"unknownKeys.requestsPerSecond" must be 0, or/],
    // A burst beyond a PostgreSQL integer, which a key's own burst (at most the server's) is stored as.
    [{ env: { MERIDIAN_RATE_LIMIT_BURST: '3000000000' } }, /"rateLimit.burst".*2147483647.*MERIDIAN_RATE_LIMIT_BURST/],
    [{ file: configFile({ rateLimit: { requestsPerSecond: 0, burst: 1e308 } }) }, /"rateLimit.burst".*2147483647/],
    [{ file: configFile({ management: { requestsPerSecond: 0, burst: 2 ** 31 } }) }, /"management.burst".*2147483647/],
    [{ file: configFile({ unknownKeys: { burst: 1e300 } }) }, /"unknownKeys.burst".*2147483647/],
  ];
  for (const [sources, message] of cases) {
    assert.throws(() => loadConfig(sources), (error: Error) => error instanceof ConfigError && message.test(error.message), JSON.stringify(sources));
  }
  const edges = { requestsPerSecond: 0.001, burst: 2 ** 31 - 1 };
  const config = loadConfig({ file: configFile({ rateLimit: edges, management: { requestsPerSecond: 1e9, burst: 1 }, unknownKeys: { requestsPerSecond: 0, burst: 1 } }) });
  assert.deepEqual(config.rateLimit, edges);
  assert.deepEqual(config.management, { ...defaultConfig.management, requestsPerSecond: 1e9, burst: 1 });
  assert.deepEqual(config.unknownKeys, { requestsPerSecond: 0, burst: 1 });
});

test('cache sizes are bounded by what a Map holds, and max-age by what HTTP caches read', () => {
  // V8's Map takes 2^24 entries at most: a larger cache throws once full, in the key gate on every unknown key.
  const cases: [Parameters<typeof loadConfig>[0], RegExp][] = [
    [{ file: configFile({ gate: { cacheSize: 2 ** 24 } }) }, /"gate.cacheSize" must be <= 16777215/],
    [{ file: configFile({ gate: { negativeCacheSize: 1e300 } }) }, /"gate.negativeCacheSize" must be <= 16777215/],
    [{ file: configFile({ maps: { icons: { cacheEntries: 2 ** 24 } } }) }, /"maps.icons.cacheEntries" must be <= 16777215/],
    // RFC 9111 section 1.2.2: 2^31 is the largest delta-seconds a cache reads; 1e21 would be sent as max-age=1e+21.
    [{ env: { MERIDIAN_MAPS_MAX_AGE: '1e21' } }, /"maps.maxAgeSeconds" must be <= 2147483648.*MERIDIAN_MAPS_MAX_AGE/],
  ];
  for (const [sources, message] of cases) {
    assert.throws(() => loadConfig(sources), (error: Error) => error instanceof ConfigError && message.test(error.message), JSON.stringify(sources));
  }
  const largest = loadConfig({ file: configFile({ gate: { cacheSize: 2 ** 24 - 1, negativeCacheSize: 2 ** 24 - 1 }, maps: { maxAgeSeconds: 2 ** 31 } }) });
  assert.equal(largest.gate.negativeCacheSize, 16777215);
  assert.equal(largest.maps.maxAgeSeconds, 2147483648);
});

test('every built-in default passes validation, the built-in weather variables included', () => {
  const validate = validatorOf(configSchema);
  assert.ok(validate(defaultConfig), JSON.stringify(validate.errors));
  const withTable = { ...structuredClone(defaultConfig), weather: { ...structuredClone(defaultConfig.weather), variables: structuredClone(defaultVariables) } };
  assert.ok(validate(withTable), JSON.stringify(validate.errors));
});

test('an operator may restate the built-in variable table in the config file, `combine` included', () => {
  assert.ok(defaultVariables.some((variable) => variable.combine !== undefined), 'the table has a combined variable');
  const config = loadConfig({ file: configFile({ weather: { variables: defaultVariables } }) });
  assert.deepEqual(config.weather.variables, defaultVariables);
  assert.throws(() => loadConfig({ file: configFile({ weather: { variables: [{ ...defaultVariables[0], combine: 'sum' }] } }) }), /"weather.variables.0.combine"/);
});

test('each environment variable sets the setting its declaration names, parsed by the setting\'s type', () => {
  const names = Object.keys(environmentVariables);
  assert.ok(names.includes('MERIDIAN_PORT') && names.includes('MERIDIAN_MAPS_WORKERS') && names.includes('MERIDIAN_WEATHER_FETCH_STEPS'));
  const samples: Record<string, [string, unknown]> = {
    MERIDIAN_PORT: ['9300', 9300],
    MERIDIAN_ADMIN_PORT: ['9301', 9301],
    MERIDIAN_TRUST_PROXY: ['true', true],
    MERIDIAN_RATE_LIMIT_RPS: ['1.5', 1.5],
    MERIDIAN_MAPS_WORKERS: ['3', 3],
    MERIDIAN_WEATHER_TILE_FORMAT: ['webp', 'webp'],
    MERIDIAN_MAPS_DIR: ['/srv/maps', '/srv/maps'],
  };
  for (const [name, [raw, value]] of Object.entries(samples)) {
    const config = loadConfig({ env: { [name]: raw } }) as unknown as Record<string, unknown>;
    const setting = environmentVariables[name]!;
    const actual = setting.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown>)[part], config);
    assert.deepEqual(actual, value, name);
  }
});
