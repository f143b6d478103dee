/**
 * Configuration, declared once. Each area declares its settings as one TypeBox schema: every leaf
 * carries its `default`, its `description` and, when the environment may set it, its `env`
 * variable (`shownDefault` words a default that depends on the machine). From that one declaration
 * come the area's type (`Static<typeof schema>`), the defaults, the environment map, how an
 * environment value or flag is parsed (by the leaf's type), validation (Ajv) and the settings table
 * of the operations guide (`settingsTable`). `loadSettings` merges defaults, a JSON file, the
 * environment and flags, in that order.
 */

import { readFileSync } from 'node:fs';
import { Type, type Static, type TObject, type TProperties, type TSchema } from '@sinclair/typebox';
import { Ajv } from 'ajv';

export class ConfigError extends Error {}

export interface ConfigSources {
  /** Path of a JSON config file, if any. */
  file?: string | undefined;
  env?: NodeJS.ProcessEnv;
  /** Settings from command-line flags, by dotted path; they win over everything else. */
  flags?: Record<string, string | undefined>;
}

/** A group of settings: unknown keys are errors, so a misspelt setting never passes silently. */
export function section<T extends TProperties>(properties: T, options: { description?: string } = {}): TObject<T> {
  return Type.Object(properties, { ...options, additionalProperties: false });
}

interface Annotations {
  env?: string;
  description?: string;
  shownDefault?: string;
}

/** One of a list of strings. */
export function oneOf<const T extends readonly string[]>(values: T, options: Annotations & { default?: T[number] } = {}) {
  return Type.Unsafe<T[number]>({ ...options, type: 'string', enum: [...values] });
}

/** A string that may be null (unset). */
export function nullableString(options: Annotations & { default: null; pattern?: string }) {
  return Type.Unsafe<string | null>({ ...options, type: ['string', 'null'], minLength: 1 });
}

/** An integer that may be null (unset). */
export function nullableInteger(options: Annotations & { default: null; minimum?: number; maximum?: number }) {
  return Type.Unsafe<number | null>({ ...options, type: ['integer', 'null'] });
}

type Json = Record<string, unknown>;

/** The defaults a schema declares: each leaf's `default`, each section built from its members. */
export function defaultsOf<T extends TSchema>(schema: T): Static<T> {
  return defaultOf(schema) as Static<T>;
}

function defaultOf(schema: TSchema): unknown {
  if ('default' in schema) return structuredClone(schema.default);
  if (schema.type === 'object' && schema.properties) {
    const value: Json = {};
    for (const [key, member] of Object.entries(schema.properties as Record<string, TSchema>)) {
      const memberDefault = defaultOf(member);
      if (memberDefault !== undefined) value[key] = memberDefault;
    }
    return value;
  }
  return undefined;
}

interface Leaf {
  setting: string;
  schema: TSchema;
}

/** Every leaf setting of a schema by dotted path. */
function leavesOf(schema: TSchema, prefix = ''): Leaf[] {
  if (schema.type === 'object' && schema.properties && !('default' in schema)) {
    return Object.entries(schema.properties as Record<string, TSchema>).flatMap(([key, member]) => leavesOf(member, `${prefix}${key}.`));
  }
  return [{ setting: prefix.slice(0, -1), schema }];
}

/** Environment variables and the setting each one sets, as the schema declares them. */
export function environmentVariables(schema: TSchema): Record<string, string> {
  return Object.fromEntries(leavesOf(schema).flatMap(({ setting, schema: leaf }) => (typeof leaf.env === 'string' ? [[leaf.env, setting]] : [])));
}

/** The settings as a Markdown table: setting, environment variable, default, range, meaning. */
export function settingsTable(schema: TSchema): string {
  const rows = leavesOf(schema).map(({ setting, schema: leaf }) => {
    const shown = typeof leaf.shownDefault === 'string' ? leaf.shownDefault : leaf.default === null ? 'none' : `\`${typeof leaf.default === 'string' ? leaf.default : JSON.stringify(leaf.default)}\``;
    const range = rangeOf(leaf);
    return `| \`${setting}\` | ${typeof leaf.env === 'string' ? `\`${leaf.env}\`` : ''} | ${shown} | ${range ?? ''} | ${String(leaf.description ?? '').replaceAll('|', '\\|')} |`;
  });
  return ['| Setting | Environment | Default | Range | Meaning |', '|---|---|---|---|---|', ...rows].join('\n');
}

/**
 * The numbers a numeric setting takes, as the API reference writes them (`1..100`, `0, or
 * 0.001..1000000000` for a union); undefined for a setting that is no number or not only one.
 */
function rangeOf(leaf: TSchema): string | undefined {
  if (Array.isArray(leaf.anyOf)) {
    const members = (leaf.anyOf as TSchema[]).map(rangeOf);
    return members.every((member) => member !== undefined) ? members.join(', or ') : undefined;
  }
  if (typeof leaf.const === 'number') return String(leaf.const);
  const types = [leaf.type].flat();
  if (!types.includes('number') && !types.includes('integer')) return undefined;
  const { minimum, maximum } = leaf as { minimum?: number; maximum?: number };
  if (minimum !== undefined && maximum !== undefined) return `${minimum}..${maximum}`;
  if (minimum !== undefined) return `≥ ${minimum}`;
  return maximum === undefined ? undefined : `≤ ${maximum}`;
}

/** Merges defaults, the config file, the environment and flags (in that order) and validates the result. */
export function loadSettings<T extends TObject>(schema: T, sources: ConfigSources = {}): Static<T> {
  const merged = defaultsOf(schema) as Json;
  const origin = new Map<string, string>();
  const leaves = new Map(leavesOf(schema).map((leaf) => [leaf.setting, leaf.schema]));

  if (sources.file) mergeInto(merged, readConfigFile(sources.file), '', origin, `config file ${sources.file}`);
  const env = sources.env ?? {};
  for (const [name, setting] of Object.entries(environmentVariables(schema))) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    setPath(merged, setting, parseScalar(leaves.get(setting), raw));
    origin.set(setting, `environment variable ${name}`);
  }
  for (const [setting, raw] of Object.entries(sources.flags ?? {})) {
    if (raw === undefined) continue;
    setPath(merged, setting, parseScalar(leaves.get(setting), raw));
    origin.set(setting, `command-line flag for ${setting}`);
  }

  const validate = validatorOf(schema);
  if (!validate(merged)) {
    // A setting of several forms (a union) is named as a whole, with the deepest of its members' complaints.
    const union = validate.errors!.find((candidate) => candidate.keyword === 'anyOf');
    const error = union
      ? validate.errors!.filter((candidate) => candidate.instancePath.startsWith(union.instancePath)).reduce((a, b) => (b.instancePath.length > a.instancePath.length ? b : a))
      : validate.errors![0]!;
    const pointer = (union ?? error).instancePath.replace(/^\//, '').replaceAll('/', '.');
    if (union && error.instancePath !== union.instancePath) {
      const item = error.instancePath.slice(union.instancePath.length + 1);
      throw new ConfigError(`Invalid configuration: "${pointer}" item ${item} ${error.message}${from(origin, pointer)}`);
    }
    // A number of several ranges (0 for off, or a bounded rate) is told all of them, not the first one's complaint.
    const unionLeaf = union && leaves.get(pointer);
    const range = unionLeaf && rangeOf(unionLeaf);
    if (range) throw new ConfigError(`Invalid configuration: "${pointer}" must be ${range}${from(origin, pointer)}`);
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
  return merged as Static<T>;
}

const validators = new WeakMap<TSchema, ReturnType<Ajv['compile']>>();

/** Ajv's validator of a schema (compiled once); `env` and `shownDefault` are our annotations. */
export function validatorOf(schema: TSchema): ReturnType<Ajv['compile']> {
  let validate = validators.get(schema);
  if (!validate) {
    const ajv = new Ajv({ allErrors: false, strict: true, allowUnionTypes: true });
    ajv.addKeyword({ keyword: 'env', schemaType: 'string' });
    ajv.addKeyword({ keyword: 'shownDefault', schemaType: 'string' });
    validate = ajv.compile(schema);
    validators.set(schema, validate);
  }
  return validate;
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

/**
 * An environment value or flag as the leaf's type: numbers, booleans and comma-separated lists are
 * parsed; values stay strings when they do not parse, so validation can name the bad value's setting.
 */
function parseScalar(leaf: TSchema | undefined, raw: string): unknown {
  // A union (`anyOf`) takes the first of its members' types the text reads as.
  const types = [leaf?.type, ...((leaf?.anyOf as TSchema[] | undefined) ?? []).map((member) => member.type)].flat();
  if (types.includes('boolean') && (raw === 'true' || raw === 'false')) return raw === 'true';
  const value = Number(raw);
  if ((types.includes('number') || types.includes('integer')) && raw.trim() !== '' && Number.isFinite(value)) return value;
  // A list is written comma-separated.
  if (types.includes('array')) return raw.split(',').map((item) => item.trim()).filter((item) => item !== '');
  return raw;
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
