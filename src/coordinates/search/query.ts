/**
 * The coordinate search query language (`GET /coordinates/search/{query}.json`).
 *
 * A query is whitespace-separated words. A word `key:value` (key made of letters and `_`) is a
 * filter; every other word is free text. `key: value` (a space after the colon) is accepted too.
 *
 * Free text is normalized the same way as the index (`normalizeText`/`tokenize`): compatibility
 * decomposition (NFKD), diacritics dropped, a few letters without a decomposition spelled out
 * (ø→o, æ→ae, ß→ss, ł→l...), lower case, split on anything that is not a letter or a digit. Every
 * term must match (AND); a term matches a word of the name, an alias or the area when it is a prefix
 * of it, and matches the code only when equal to it.
 *
 * Filters (keys and values are case-insensitive; each key at most once):
 *   kind:       `*`, a family (`CRS`, `COORDOP`, `DATUM`, `CS`, `UNIT`) or a full kind
 *               (`CRS-PROJCRS`...); a comma-separated list selects the union. Default `CRS`.
 *   deprecated: `0` (default: current objects only), `1` (deprecated only), `*` (both).
 *   code:       an exact EPSG code. `epsg:` is the same filter, so a pasted `EPSG:2056` works.
 *   trans:      a transformation code: the CRSs whose `transformations` list contains it.
 * Extra keys (codes of the objects a CRS or an operation is built from):
 *   datum:      CRSs on exactly that datum (projected and compound CRSs through their geodetic
 *               base); a datum ensemble and its members are different datums.
 *   ellipsoid:  CRSs and datums on that ellipsoid.
 *   method:     operations using that method, and projected CRSs whose conversion uses it
 *               (`method:9807`: every Transverse Mercator system).
 *   area_code:  objects with a usage in that EPSG area (extent) code.
 * A query without free text lists everything its filters select. Anything else (an unknown key, a
 * bad value, a repeated key, more than MAX_QUERY_LENGTH characters or MAX_TERMS terms) is a
 * `QueryError`.
 */

import { ApiError } from '../../platform/errors.js';
import { kindsMatching, type Kind } from './kinds.js';

/** A query the client got wrong: the message is meant for them (it becomes a 400). */
export class QueryError extends ApiError {
  override readonly name = 'QueryError';
}

export type DeprecatedFilter = 'exclude' | 'only' | 'include';

export interface ParsedQuery {
  /** Normalized free-text terms, deduplicated, in query order. */
  terms: string[];
  kinds: ReadonlySet<Kind>;
  deprecated: DeprecatedFilter;
  code: number | null;
  trans: number | null;
  datum: number | null;
  ellipsoid: number | null;
  method: number | null;
  areaCode: number | null;
}

/** Bounds that keep a hostile query cheap; real queries are a few words. */
export const MAX_QUERY_LENGTH = 1000;
export const MAX_TERMS = 16;

// Letters that NFKD leaves whole but that users type without the diacritic.
const SPELLED_OUT: Record<string, string> = {
  ø: 'o', æ: 'ae', œ: 'oe', ß: 'ss', ł: 'l', đ: 'd', ð: 'd', þ: 'th', ı: 'i', ħ: 'h', ŀ: 'l',
};
const SPELLED_OUT_PATTERN = new RegExp(`[${Object.keys(SPELLED_OUT).join('')}]`, 'gu');

/** Lower case, without diacritics: how both the index and queries compare text. */
export function normalizeText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(SPELLED_OUT_PATTERN, (letter) => SPELLED_OUT[letter]!);
}

/** The words of a text, normalized: runs of letters and digits. */
export function tokenize(text: string): string[] {
  return normalizeText(text).split(/[^\p{L}\p{N}]+/u).filter((word) => word.length > 0);
}

type FilterKey = 'kind' | 'deprecated' | 'code' | 'trans' | 'datum' | 'ellipsoid' | 'method' | 'areaCode';

const FILTER_KEYS: Record<string, FilterKey> = {
  kind: 'kind',
  deprecated: 'deprecated',
  code: 'code',
  epsg: 'code',
  trans: 'trans',
  datum: 'datum',
  ellipsoid: 'ellipsoid',
  method: 'method',
  area_code: 'areaCode',
};

const FILTER_WORD = /^([A-Za-z_]+):(.*)$/s;

function parseCode(key: string, value: string): number {
  if (!/^[0-9]{1,9}$/.test(value)) throw new QueryError(`Filter ${key}: expects an EPSG code (digits), got "${value}"`);
  return Number(value);
}

function parseKinds(value: string): ReadonlySet<Kind> {
  const kinds = new Set<Kind>();
  for (const part of value.split(',')) {
    const matching = kindsMatching(part);
    if (!matching) throw new QueryError(`Filter kind: unknown kind "${part}" (expected *, a family such as CRS, or a kind such as CRS-PROJCRS)`);
    for (const kind of matching) kinds.add(kind);
  }
  return kinds;
}

function parseDeprecated(value: string): DeprecatedFilter {
  if (value === '0') return 'exclude';
  if (value === '1') return 'only';
  if (value === '*') return 'include';
  throw new QueryError(`Filter deprecated: expects 0, 1 or *, got "${value}"`);
}

/** Parses a search query; throws `QueryError` when it cannot be understood. */
export function parseQuery(query: string): ParsedQuery {
  if (query.length > MAX_QUERY_LENGTH) throw new QueryError(`Query is too long (at most ${MAX_QUERY_LENGTH} characters)`);
  const parsed: ParsedQuery = {
    terms: [],
    kinds: kindsMatching('CRS')!,
    deprecated: 'exclude',
    code: null,
    trans: null,
    datum: null,
    ellipsoid: null,
    method: null,
    areaCode: null,
  };
  const seen = new Set<FilterKey>();
  const terms = new Set<string>();
  const words = query.split(/\s+/u).filter((word) => word.length > 0);
  for (let i = 0; i < words.length; i++) {
    const filter = FILTER_WORD.exec(words[i]!);
    if (!filter) {
      for (const term of tokenize(words[i]!)) terms.add(term);
      continue;
    }
    const name = filter[1]!.toLowerCase();
    const key = FILTER_KEYS[name];
    if (!key) throw new QueryError(`Unknown filter "${name}:" (known: ${Object.keys(FILTER_KEYS).join(', ')})`);
    if (seen.has(key)) throw new QueryError(`Filter ${name}: is given more than once`);
    seen.add(key);
    let value = filter[2]!;
    if (value === '' && i + 1 < words.length) value = words[++i]!;
    if (value === '') throw new QueryError(`Filter ${name}: needs a value`);
    if (key === 'kind') parsed.kinds = parseKinds(value);
    else if (key === 'deprecated') parsed.deprecated = parseDeprecated(value);
    else parsed[key] = parseCode(name, value);
  }
  if (terms.size > MAX_TERMS) throw new QueryError(`Too many search terms (at most ${MAX_TERMS})`);
  parsed.terms = [...terms];
  return parsed;
}
