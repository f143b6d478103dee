import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { Ajv } from 'ajv';
import { definitionSchema, type MapDefinition } from '../maps/definition.js';
import type { VariableDefinition } from '../weather/variables.js';

/** Everything Meridian can be configured with. Defaults need no file. */
export interface Config {
  host: string;
  port: number;
  dataDir: string;
  databaseUrl: string | null;
  /** PostgreSQL schema that holds Meridian's tables (lets several deployments share one database). */
  databaseSchema: string;
  redisUrl: string | null;
  /** Base64 of 32 bytes; encrypts API key tokens at rest. Generated into the data directory when null. */
  masterKey: string | null;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Behind a load balancer: take the client address from `X-Forwarded-For`. */
  trustProxy: boolean;
  /** When `port` is set, the key-management API moves to this separate listener. */
  admin: { host: string; port: number | null };
  /** Per-key token bucket; `requestsPerSecond: 0` turns rate limiting off. */
  rateLimit: { requestsPerSecond: number; burst: number };
  usage: { flushIntervalMs: number };
  gate: { cacheSize: number; negativeCacheMs: number };
  /**
   * Weather: runs kept per model, the tile format of new tilesets, and variables added to (or
   * taking precedence over) the built-in table.
   */
  weather: {
    keepRuns: number;
    tileFormat: 'png' | 'webp';
    variables: VariableDefinition[];
    /**
     * Downloading GFS runs: from where (NOMADS by default), which forecast hours (hourly 0-96 by
     * default: about four days of hourly keyframes, as the hosted service offers; NOMADS has hourly
     * files at 0p25 only, 3-hourly at 0p50 and 1p00), and how often `serve` looks (0: never).
     */
    fetch: { baseUrl: string; resolution: '0p25' | '0p50' | '1p00'; steps: string; intervalMinutes: number };
  };
  maps: MapsConfig;
}

/**
 * Static maps: where map definitions come from, the decoded-tile cache of each render thread, and
 * the render pool.
 */
export interface MapsConfig {
  /** A folder of `<id>.json` map definitions; null means `<dataDir>/maps`. */
  dir: string | null;
  /** Map definitions by id, besides (and taking precedence over) the folder's. */
  definitions: Record<string, MapDefinition>;
  /** Decoded tiles kept in memory, per open registry (each render thread opens one). */
  tileCacheMB: number;
  /** Render worker threads. */
  workers: number;
  /** Renders waiting for a thread before new requests get 503. */
  queue: number;
  /** Time limit of one render. */
  timeoutMs: number;
  /** `Cache-Control: public, max-age=` of static images. */
  maxAgeSeconds: number;
  /** Marker icons fetched from URLs; hosts on private networks only when allowed. */
  icons: { maxBytes: number; timeoutMs: number; cacheEntries: number; allowPrivateAddresses: boolean };
}

export const defaultConfig: Config = {
  host: '127.0.0.1',
  port: 8080,
  dataDir: './data',
  databaseUrl: null,
  databaseSchema: 'public',
  redisUrl: null,
  masterKey: null,
  logLevel: 'info',
  trustProxy: false,
  admin: { host: '127.0.0.1', port: null },
  rateLimit: { requestsPerSecond: 50, burst: 100 },
  usage: { flushIntervalMs: 5000 },
  gate: { cacheSize: 10000, negativeCacheMs: 2000 },
  weather: {
    keepRuns: 1,
    tileFormat: 'png',
    variables: [],
    fetch: { baseUrl: 'https://nomads.ncep.noaa.gov/pub/data/nccf/com/gfs/prod', resolution: '0p25', steps: '0-96/1', intervalMinutes: 0 },
  },
  maps: {
    dir: null,
    definitions: {},
    tileCacheMB: 256,
    workers: Math.min(4, availableParallelism()),
    queue: 64,
    timeoutMs: 15000,
    maxAgeSeconds: 86400,
    icons: { maxBytes: 1048576, timeoutMs: 5000, cacheEntries: 256, allowPrivateAddresses: false },
  },
};

const nullableString = { type: ['string', 'null'], minLength: 1 };

const selectorSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['discipline', 'category', 'number', 'levelType'],
  properties: {
    discipline: { type: 'integer', minimum: 0, maximum: 255 },
    category: { type: 'integer', minimum: 0, maximum: 255 },
    number: { type: 'integer', minimum: 0, maximum: 255 },
    levelType: { type: 'integer', minimum: 0, maximum: 255 },
    level: { type: 'number' },
  },
} as const;

const variableSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name', 'description', 'unit', 'fields', 'scale', 'offset', 'min', 'max', 'time'],
  properties: {
    id: { type: 'string', pattern: '^[a-z0-9_-]{1,64}$' },
    name: { type: 'string', minLength: 1 },
    description: { type: 'string' },
    unit: { type: 'string' },
    fields: { type: 'array', minItems: 1, maxItems: 2, items: selectorSchema },
    scale: { type: 'number' },
    offset: { type: 'number' },
    min: { type: 'number' },
    max: { type: 'number' },
    time: { enum: ['instant', 'rate', 'accumulation'] },
  },
} as const;
const port = { type: 'integer', minimum: 0, maximum: 65535 };

const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    host: { type: 'string', minLength: 1 },
    port,
    dataDir: { type: 'string', minLength: 1 },
    databaseUrl: { ...nullableString, pattern: '^postgres(ql)?://' },
    databaseSchema: { type: 'string', pattern: '^[a-z_][a-z0-9_]{0,62}$' },
    redisUrl: { ...nullableString, pattern: '^rediss?://' },
    masterKey: { ...nullableString, pattern: '^[A-Za-z0-9+/]{43}=$' },
    logLevel: { enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] },
    trustProxy: { type: 'boolean' },
    admin: {
      type: 'object',
      additionalProperties: false,
      properties: { host: { type: 'string', minLength: 1 }, port: { ...port, type: ['integer', 'null'] } },
    },
    rateLimit: {
      type: 'object',
      additionalProperties: false,
      properties: {
        requestsPerSecond: { type: 'number', minimum: 0 },
        burst: { type: 'integer', minimum: 1 },
      },
    },
    usage: {
      type: 'object',
      additionalProperties: false,
      properties: { flushIntervalMs: { type: 'integer', minimum: 100, maximum: 3600000 } },
    },
    gate: {
      type: 'object',
      additionalProperties: false,
      properties: {
        cacheSize: { type: 'integer', minimum: 0 },
        negativeCacheMs: { type: 'integer', minimum: 0, maximum: 60000 },
      },
    },
    weather: {
      type: 'object',
      additionalProperties: false,
      properties: {
        keepRuns: { type: 'integer', minimum: 1, maximum: 1000 },
        tileFormat: { enum: ['png', 'webp'] },
        variables: { type: 'array', items: variableSchema },
        fetch: {
          type: 'object',
          additionalProperties: false,
          properties: {
            baseUrl: { type: 'string', pattern: '^https?://' },
            resolution: { enum: ['0p25', '0p50', '1p00'] },
            steps: { type: 'string', pattern: '^\\d{1,3}(-\\d{1,3}(/\\d{1,3})?)?(,\\d{1,3}(-\\d{1,3}(/\\d{1,3})?)?)*$' },
            intervalMinutes: { type: 'integer', minimum: 0, maximum: 1440 },
          },
        },
      },
    },
    maps: {
      type: 'object',
      additionalProperties: false,
      properties: {
        dir: nullableString,
        definitions: {
          type: 'object',
          propertyNames: { pattern: '^[A-Za-z0-9_-]{1,64}$' },
          additionalProperties: definitionSchema,
        },
        tileCacheMB: { type: 'number', minimum: 0 },
        workers: { type: 'integer', minimum: 1, maximum: 256 },
        queue: { type: 'integer', minimum: 0 },
        timeoutMs: { type: 'integer', minimum: 100, maximum: 600000 },
        maxAgeSeconds: { type: 'integer', minimum: 0 },
        icons: {
          type: 'object',
          additionalProperties: false,
          properties: {
            maxBytes: { type: 'integer', minimum: 1 },
            timeoutMs: { type: 'integer', minimum: 100, maximum: 600000 },
            cacheEntries: { type: 'integer', minimum: 0 },
            allowPrivateAddresses: { type: 'boolean' },
          },
        },
      },
    },
  },
} as const;

/** Environment variables and the setting each one overrides. */
export const environmentVariables: Record<string, string> = {
  MERIDIAN_HOST: 'host',
  MERIDIAN_PORT: 'port',
  MERIDIAN_DATA_DIR: 'dataDir',
  DATABASE_URL: 'databaseUrl',
  MERIDIAN_DB_SCHEMA: 'databaseSchema',
  REDIS_URL: 'redisUrl',
  MERIDIAN_MASTER_KEY: 'masterKey',
  MERIDIAN_LOG_LEVEL: 'logLevel',
  MERIDIAN_TRUST_PROXY: 'trustProxy',
  MERIDIAN_ADMIN_HOST: 'admin.host',
  MERIDIAN_ADMIN_PORT: 'admin.port',
  MERIDIAN_RATE_LIMIT_RPS: 'rateLimit.requestsPerSecond',
  MERIDIAN_RATE_LIMIT_BURST: 'rateLimit.burst',
  MERIDIAN_USAGE_FLUSH_MS: 'usage.flushIntervalMs',
  MERIDIAN_WEATHER_KEEP_RUNS: 'weather.keepRuns',
  MERIDIAN_WEATHER_TILE_FORMAT: 'weather.tileFormat',
  MERIDIAN_WEATHER_FETCH_URL: 'weather.fetch.baseUrl',
  MERIDIAN_WEATHER_FETCH_STEPS: 'weather.fetch.steps',
  MERIDIAN_WEATHER_FETCH_INTERVAL: 'weather.fetch.intervalMinutes',
  MERIDIAN_MAPS_DIR: 'maps.dir',
  MERIDIAN_MAPS_TILE_CACHE_MB: 'maps.tileCacheMB',
  MERIDIAN_MAPS_WORKERS: 'maps.workers',
  MERIDIAN_MAPS_QUEUE: 'maps.queue',
  MERIDIAN_MAPS_TIMEOUT_MS: 'maps.timeoutMs',
  MERIDIAN_MAPS_MAX_AGE: 'maps.maxAgeSeconds',
};

export class ConfigError extends Error {}

export interface ConfigSources {
  /** Path of a JSON config file, if any. */
  file?: string | undefined;
  env?: NodeJS.ProcessEnv;
  /** Settings from command-line flags, by dotted path; they win over everything else. */
  flags?: Record<string, string | undefined>;
}

type Json = Record<string, unknown>;

/** Merges defaults, the config file, the environment and flags (in that order) and validates the result. */
export function loadConfig(sources: ConfigSources = {}): Config {
  const merged: Json = structuredClone(defaultConfig) as unknown as Json;
  const origin = new Map<string, string>();

  if (sources.file) mergeInto(merged, readConfigFile(sources.file), '', origin, `config file ${sources.file}`);
  const env = sources.env ?? {};
  for (const [name, setting] of Object.entries(environmentVariables)) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    setPath(merged, setting, parseScalar(setting, raw));
    origin.set(setting, `environment variable ${name}`);
  }
  for (const [setting, raw] of Object.entries(sources.flags ?? {})) {
    if (raw === undefined) continue;
    setPath(merged, setting, parseScalar(setting, raw));
    origin.set(setting, `command-line flag for ${setting}`);
  }

  const ajv = new Ajv({ allErrors: false, strict: true, allowUnionTypes: true });
  const validate = ajv.compile(configSchema);
  if (!validate(merged)) {
    const error = validate.errors![0]!;
    const pointer = error.instancePath.replace(/^\//, '').replaceAll('/', '.');
    if (error.keyword === 'additionalProperties') {
      const unknown = (error.params as { additionalProperty: string }).additionalProperty;
      const name = pointer ? `${pointer}.${unknown}` : unknown;
      throw new ConfigError(`Invalid configuration: unknown setting "${name}"${from(origin, name)}`);
    }
    const key = (error as { propertyName?: string }).propertyName;
    if (key !== undefined) {
      throw new ConfigError(`Invalid configuration: key "${key}" of "${pointer}" ${error.message}${from(origin, `${pointer}.${key}`)}`);
    }
    throw new ConfigError(`Invalid configuration: "${pointer}" ${error.message}${from(origin, pointer)}`);
  }
  const config = merged as unknown as Config;
  config.dataDir = path.resolve(config.dataDir);
  if (config.maps.dir !== null) config.maps.dir = path.resolve(config.maps.dir);
  return config;
}

/** Objects merge key by key at every depth; anything else (arrays included) replaces. */
function mergeInto(target: Json, source: Json, prefix: string, origin: Map<string, string>, where: string): void {
  for (const [key, value] of Object.entries(source)) {
    const name = prefix + key;
    const current = target[key];
    if (isObject(current) && isObject(value)) {
      mergeInto(current, value, `${name}.`, origin, where);
    } else {
      target[key] = value;
      origin.set(name, where);
    }
  }
}

function from(origin: Map<string, string>, setting: string): string {
  const where = origin.get(setting);
  return where ? ` (from ${where})` : '';
}

function readConfigFile(file: string): Json {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`Cannot read config file ${file}: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`Config file ${file} is not valid JSON: ${(error as Error).message}`);
  }
  if (!isObject(parsed)) throw new ConfigError(`Config file ${file} must hold a JSON object`);
  return parsed;
}

const numericSettings = new Set([
  'port',
  'admin.port',
  'rateLimit.requestsPerSecond',
  'rateLimit.burst',
  'usage.flushIntervalMs',
  'weather.keepRuns',
  'weather.fetch.intervalMinutes',
  'maps.tileCacheMB',
  'maps.workers',
  'maps.queue',
  'maps.timeoutMs',
  'maps.maxAgeSeconds',
]);

const booleanSettings = new Set(['trustProxy']);

/** Values stay strings when they do not parse, so validation can name the bad value's setting. */
function parseScalar(setting: string, raw: string): unknown {
  if (booleanSettings.has(setting)) return raw === 'true' ? true : raw === 'false' ? false : raw;
  if (!numericSettings.has(setting)) return raw;
  const value = Number(raw);
  return raw.trim() !== '' && Number.isFinite(value) ? value : raw;
}

function setPath(target: Json, dotted: string, value: unknown): void {
  const parts = dotted.split('.');
  let node = target;
  for (const part of parts.slice(0, -1)) {
    if (!isObject(node[part])) node[part] = {};
    node = node[part] as Json;
  }
  node[parts.at(-1)!] = value;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
