/**
 * Coordinate search (`GET /coordinates/search/{query}.json`) over the registry index.
 *
 * Matching: every free-text term must match (see query.ts), read as the user meant it (synonyms.ts,
 * place-names.ts, spelling.ts): a nickname is replaced by EPSG's words (`google` → `pseudo
 * mercator`, `state plane` → `spcs`, `gk` → `gauss kruger`); a place word also matches the place
 * in areas (`swiss` → `switzerland`), and so does a country's name in another language (`Schweiz`,
 * `Reino Unido` → `united kingdom`); a zone number and a hemisphere word are the zone (`32 north`
 * → `32n`); a noise word (`epsg`, `grid`, ...) adds relevance without excluding; a term no word
 * has matches the words one edit away; two neighbouring words that a name has side by side add
 * relevance (`zone 3` → `zone3`).
 * Filters narrow the kinds, the deprecation state and the related objects. Ranking, best first:
 *   1. entries whose code equals a free-text term (`4326`), or the `code:` filter;
 *   2. current entries before deprecated ones (with `deprecated:*`);
 *   3. entries *about* every term (name, alias, code, the lead or a short list of places of the
 *      area) before those whose area merely covers one;
 *   4. popular entries: the CRSs of `POPULAR_CRS`, and the datums and ellipsoids of those CRSs,
 *      those in use today before the legacy grids at the end of the list (DHDN's Gauss-Krüger);
 *      but when the query names a place that has grids of its own (projected CRSs whose area is
 *      that place as a whole: "Austria.", "Italy - onshore and offshore."), a popular projected CRS
 *      about the place only as one place of its area's list (ETRS89 / UTM zone 32N for Austria) is
 *      not preferred, and the place's own grids come first among the rest, the one on the newest
 *      datum (EPSG's publication date: Mexico ITRF2008 before Mexico ITRF92) first;
 *   5. text relevance;
 *   6. depth CRSs after heights; shorter names (a name that is mostly the query; not among popular
 *      entries); then the popularity rank (a popular CRS before its datum; for the rest, that of
 *      their geodetic base CRS: NAD83's systems before NAD27's); ties by code, then kind.
 * Without free text, popular entries come first, then all by code.
 * Text relevance sums, over the terms, the best place each matches: the code (12), a word of the
 * name (10 exact, 8 prefix), of an alias or a projected CRS's conversion name (7, 6), of the area
 * (3, 2; two more when the word opens the area description, "United Kingdom (UK) - ...", one more
 * when the area is a short list of places that has it, "Europe between 6°E and 12°E: Austria;
 * Denmark; Germany; ..."; a long list merely covers the place); one less through a typo.
 *
 * Item fields (the spec's names) and the choices behind them:
 * - `bbox`: `[min_lon, min_lat, max_lon, max_lat]` in degrees. An area that crosses the antimeridian
 *   keeps its west edge first, so min_lon > max_lon (as GeoJSON, RFC 7946 §5.2): `[170, -50, -170, -30]`
 *   spans 40° of longitude. null when EPSG gives no area.
 * - `default_transformation` (CRS kinds only, else null): PROJ's first candidate operation from the
 *   CRS to WGS 84 (EPSG:4326) over the CRS's area that runs here (grids installed), as
 *   `proj_create_crs_to_crs` ranks them: its EPSG steps, its name, and the EPSG code naming it (the
 *   operation itself, or the EPSG concatenated operation of exactly those steps; null for a chain
 *   EPSG has no code for: ETRF2000 → ETRS89 → WGS 84). null when that candidate is no EPSG
 *   operation (CRSs on WGS 84's datum, ballparks) or there is none (vertical CRSs...).
 * - `accuracy` (metres): for CRSs, that of the default transformation; 0 for CRSs on the datum of
 *   WGS 84 (nothing to transform); otherwise null. For coordinate operations, their own accuracy
 *   (conversions: 0). null for other kinds.
 * - `transformations` (CRS kinds only, else []): EPSG transformations and concatenated operations
 *   from the CRS's geodetic base CRS to WGS 84 (4326, 4979 or 4978), current ones first, then by code;
 *   integers, or `TransformationItem`s with `transformations=true`.
 * - `exports`: present only with `exports=true`; CRS kinds get `{proj4, wkt}` bound to WGS 84 as
 *   PROJ binds it (projinfo's `--boundcrs-to-wgs84`: TOWGS84, or the datum or geoid grid), other kinds null.
 * - `TransformationItem.usable`: PROJ can instantiate it, has every grid it needs, and a transform
 *   from the CRS through it (`ops=`) answers at the middle of the area both cover. `grids[].path`
 *   is the grid's file name (as PROJ names it), not where this server keeps it.
 * PROJ-derived data (default transformation, exports, transformation details) is computed on first
 * use and kept in bounded LRU caches (`SearchCache`); default transformations and exports computed
 * at setup (derived-cache.ts) are taken from there instead. A server has PROJ compute it on its coordinates
 * pool (`searchWith`), never on the serving thread: finding a page, and a page whose data is cached,
 * need no PROJ. `search` computes in-line.
 */

import { derive, type BoundFacts, type CrsWork, type DefaultTransformation, type Derived, type DeriveTask } from '../derive.js';
import type { DefaultTransformations, PresetExports } from '../derived-cache.js';
import { familyOf, isCrsKind, KINDS, type Kind } from './kinds.js';
import type { OperationInfo } from '../proj/proj.js';
import { parseQuery, QueryError, type ParsedQuery } from './query.js';
import { FIELD, FIELD_BITS, type Bbox, type Registry, type RegistryEntry } from './registry.js';
import { MIN_TYPO_LENGTH, typoOf, withinOneEdit } from './spelling.js';
import { HEMISPHERES, NICKNAME_WORDS, NICKNAMES, NOISE_WORDS, PLACE_WORDS } from './synonyms.js';
import { ApiError } from '../../platform/errors.js';
import { Lru } from '../../platform/lru.js';

export interface Id {
  authority: 'EPSG';
  code: number;
}

export interface ExportItem {
  proj4: string | null;
  wkt: string | null;
}

export interface GridFile {
  path: string;
}

export interface TransformationItem {
  accuracy: number | null;
  area: string | null;
  bbox: Bbox | null;
  deprecated: boolean;
  exports: ExportItem | null;
  grids: GridFile[];
  id: Id;
  name: string;
  reversible: boolean;
  target_crs: Id | null;
  unit: string | null;
  usable: boolean;
}

/**
 * A CRS's default transformation: one EPSG operation (`code`), or a chain of them (`code` the EPSG
 * concatenated operation of exactly those steps, else the chain's first step).
 */
export interface DefaultTransformationItem {
  authority: 'EPSG';
  code: number;
  name: string;
  steps: Id[];
}

export interface SearchItem {
  accuracy: number | null;
  area: string | null;
  bbox: Bbox | null;
  default_transformation: DefaultTransformationItem | null;
  deprecated: boolean;
  exports?: ExportItem | null;
  id: Id;
  kind: Kind;
  name: string;
  transformations: (number | TransformationItem)[];
  unit: string | null;
}

export interface SearchOptions {
  query: string;
  limit: number;
  offset: number;
  transformations: boolean;
  exports: boolean;
}

export interface SearchResult {
  results: SearchItem[];
  total: number;
}

export const MAX_LIMIT = 50;

/**
 * CRSs ranked above the rest, most used first: the global and web defaults, the continental frames,
 * the UTM zones (WGS 84's, then ETRS89's), the national grids that mapping agencies publish in today
 * and the polar systems of polar data; then, from LEGACY_FROM on, legacy grids that were replaced
 * but that much of a country's data is still in (DHDN's Gauss-Krüger zones of former West Germany,
 * zones 3 and 4 first, which cover most of it), ranked after every system in use today and before
 * the rest. At most 127 (the rank takes 7 bits of the sort key).
 */
export const POPULAR_CRS: readonly number[] = [
  4326, 3857, 4258, 4269, 4979, 4978, 3395, 3035, 3034, 4267, 5070, 4674, 4283, 7844, 4490, 6668,
  32633, 32632, 32631, 32630, 32634, 32635, 32618, 25832, 25833, 25831, 25830, 26918,
  27700, 2056, 2154, 28992, 5514, 3006, 3067, 2180, 31370, 3812, 21781, 2100, 3763, 2157,
  23700, 3059, 3346, 3301, 2193, 28355, 7855, 3577, 2263, 3978, 5179, 3414, 2326, 4230, 23030, 4277, 4171,
  3413, 3031, 3995, 3976, 32661, 32761,
  31467, 31468, 31466, 31469,
];

/** Rank in POPULAR_CRS where the legacy grids start. */
const LEGACY_FROM = POPULAR_CRS.indexOf(31467);

const WGS84 = 4326;
const NO_EXPORTS: PresetExports = new Map();
const CACHE_SIZE = 2000;
const NOT_POPULAR = 127;
const TYPO_CACHE_SIZE = 256;

/** PROJ-derived data of a CRS, filled in as it is computed. */
interface CrsDetails {
  /** Set, with `accuracy`, once PROJ's operation search has run. */
  defaultTransformation?: DefaultTransformationItem | null;
  accuracy?: number | null;
  exports?: ExportItem;
  /** Each of its transformations as it works with it (exports with it built in, usable), as they are computed. */
  bound: Map<number, BoundFacts>;
  /** Its transformation items, once every part of them is known. */
  transformations?: TransformationItem[];
}

/**
 * The PROJ-derived data of search results, kept once computed (bounded): a page found again needs
 * no PROJ. A server has one, given the default transformations computed at setup
 * (derived-cache.ts) when it has them; `search` one per registry.
 */
export class SearchCache {
  /**
   * `defaults`: default transformations computed at setup; `exports`: the exports computed at
   * setup, asked for by the first search that wants exports (the file is read then).
   */
  constructor(
    readonly defaults: DefaultTransformations = new Map(),
    readonly exports: () => PresetExports = () => NO_EXPORTS,
  ) {}
  readonly crs = new Lru<number, CrsDetails>(CACHE_SIZE);
  /** Transformation descriptions; null: PROJ cannot build it. */
  readonly operations = new Lru<number, OperationInfo | null>(CACHE_SIZE);
}

/** Per-registry tables for filtering and ranking. */
interface State {
  kind: Uint8Array;
  deprecated: Uint8Array;
  /** Rank in POPULAR_CRS; datums and ellipsoids take the best rank of the CRSs on them. */
  popularity: Uint8Array;
  /** 1 for such a borrowed rank: the CRS comes before its datum. */
  borrowed: Uint8Array;
  /** Tie-breaker among the rest: the rank of the CRS's geodetic base (NAD83 before NAD27). */
  basePopularity: Uint8Array;
  /** Depth CRSs, after their heights. */
  variant: Uint8Array;
  /** Projected CRSs whose area is one place as a whole ("Austria.", "Italy - onshore and offshore."). */
  whole: Uint8Array;
  /** Years from their datum's publication to 2100 (255: unknown): a newer realization first among whole-place grids. */
  age: Uint8Array;
  nameLength: Uint8Array;
  /** Entry ids in the order of a query without free text: popular entries, then by code. */
  staticOrder: Uint32Array;
  /** Sort keys end with the entry id, in a field this wide. */
  idSpan: number;
  /** Candidate marks: an entry belongs to the current query when its stamp is the generation. */
  stamp: Uint32Array;
  generation: number;
  relevance: Uint16Array;
  /** Lowest score among the required terms, for the match class. */
  weakest: Uint8Array;
  /** Typo readings of the terms looked up lately: finding them scans many words of the index. */
  typos: Lru<string, Reading[]>;
  /** Word ids by their second letter: with the ranges of a first letter, the words a typo may be of. */
  bySecondLetter: Map<string, number[]>;
  /** The longest phrase read as one (a nickname, a country's name), in words. */
  phraseWords: number;
}

const states = new WeakMap<Registry, State>();
const PROJECTED = KINDS.indexOf('CRS-PROJCRS');

/**
 * An area that is one place as a whole, as EPSG describes a country's full extent: its name alone
 * (a landlocked country: "Austria.") or qualified "onshore and offshore" ("Italy - onshore and
 * offshore."); not a part of it ("- onshore", "- west of 12°E", "- states of ...") nor a list.
 */
const WHOLE_PLACE = /^(?:(?! - )[^:;,.()0-9])+(?: - onshore and offshore)?\.$/u;

function stateOf(registry: Registry): State {
  const known = states.get(registry);
  if (known) return known;
  const n = registry.entries.length;
  const kindIndex = new Map(KINDS.map((kind, i) => [kind, i]));
  const popularRank = new Map(POPULAR_CRS.map((code, i) => [code, i]));
  const state: State = {
    kind: new Uint8Array(n),
    deprecated: new Uint8Array(n),
    popularity: new Uint8Array(n).fill(NOT_POPULAR),
    borrowed: new Uint8Array(n),
    basePopularity: new Uint8Array(n).fill(NOT_POPULAR),
    variant: new Uint8Array(n),
    whole: new Uint8Array(n),
    age: new Uint8Array(n),
    nameLength: new Uint8Array(n),
    staticOrder: new Uint32Array(n),
    idSpan: 2 ** Math.ceil(Math.log2(n + 1)),
    stamp: new Uint32Array(n),
    generation: 0,
    relevance: new Uint16Array(n),
    weakest: new Uint8Array(n),
    typos: new Lru(TYPO_CACHE_SIZE),
    bySecondLetter: new Map(),
    phraseWords: Math.max(NICKNAME_WORDS, ...[...registry.places.keys()].map((phrase) => phrase.split(' ').length)),
  };
  registry.text.words.forEach((word, id) => {
    const list = state.bySecondLetter.get(word.charAt(1));
    if (list) list.push(id);
    else state.bySecondLetter.set(word.charAt(1), [id]);
  });
  // A datum or an ellipsoid is as popular as the most popular CRS built on it (WGS 84's datum ensemble).
  const datumRank = new Map<number, number>();
  const ellipsoidRank = new Map<number, number>();
  const lower = (map: Map<number, number>, code: number | null, rank: number) => {
    if (code !== null && rank < (map.get(code) ?? NOT_POPULAR)) map.set(code, rank);
  };
  for (const [code, rank] of popularRank) {
    const crs = registry.crs.get(code);
    lower(datumRank, crs?.datum ?? null, rank);
    lower(ellipsoidRank, crs?.ellipsoid ?? null, rank);
  }
  registry.entries.forEach((entry, id) => {
    state.kind[id] = kindIndex.get(entry.kind)!;
    state.deprecated[id] = entry.deprecated ? 1 : 0;
    const family = familyOf(entry.kind);
    if (family === 'CRS') {
      state.popularity[id] = popularRank.get(entry.code) ?? NOT_POPULAR;
      if (entry.baseCrs !== null) state.basePopularity[id] = popularRank.get(entry.baseCrs) ?? NOT_POPULAR;
    } else if (family === 'DATUM' || entry.kind === 'ELLIPSOID') {
      state.popularity[id] = (family === 'DATUM' ? datumRank : ellipsoidRank).get(entry.code) ?? NOT_POPULAR;
      state.borrowed[id] = 1;
    }
    state.variant[id] = entry.depth ? 1 : 0;
    state.whole[id] = state.kind[id] === PROJECTED && entry.area !== null && WHOLE_PLACE.test(entry.area) ? 1 : 0;
    state.age[id] = entry.published === null ? 255 : Math.max(0, Math.min(254, 2100 - entry.published));
    state.nameLength[id] = Math.min(entry.name.length, 255);
  });
  const order = Array.from({ length: n }, (_, id) => id).sort(
    (a, b) => state.popularity[a]! - state.popularity[b]! || state.borrowed[a]! - state.borrowed[b]! || a - b,
  );
  state.staticOrder.set(order);
  states.set(registry, state);
  return state;
}

/** Builds the ranking tables of a registry now, at start-up, rather than in the first search. */
export function prepareRanking(registry: Registry): void {
  stateOf(registry);
}

// ---- matching ------------------------------------------------------------------------------------

/** Score of a word match by where the word is, and whether the term is the whole word. */
const WORD_SCORE = (() => {
  const span = 1 << FIELD_BITS;
  const table = new Uint8Array(span * 2);
  for (let field = 0; field < span; field++) {
    for (const exact of [0, 1]) {
      let score = 0;
      if (field & FIELD.CODE && exact) score = 12;
      if (field & FIELD.NAME) score = Math.max(score, exact ? 10 : 8);
      if (field & FIELD.ALIAS) score = Math.max(score, exact ? 7 : 6);
      if (field & FIELD.AREA) {
        const place = field & FIELD.AREA_LEAD ? 2 : field & FIELD.AREA_LISTED ? 1 : 0;
        score = Math.max(score, (exact ? 3 : 2) + place);
      }
      table[field * 2 + exact] = score;
    }
  }
  return table;
})();

/**
 * Lowest term score of an entry about the query otherwise than as one place of its area's list:
 * a word of the name or alias, or the lead of the area (an area listing the place scores 4).
 */
const WHOLE_SCORE = 5;

/** Match class of a term's score: 0 the entry is about it, 1 its area merely covers it. */
const matchClass = (score: number): number => (score >= 4 ? 0 : 1);

/** Score lost by a match through a typo: it ranks below the same match spelled right, in the same class. */
const TYPO_PENALTY = 1;

/** One way a term matches: the words `[lo, hi)`. */
interface Reading {
  lo: number;
  hi: number;
  /** A word of this length is the whole term (an exact match); -1: never. */
  exactLength: number;
  penalty: number;
  /** The fields (FIELD bits) where a match counts. */
  fields: number;
}

const ALL_FIELDS = (1 << FIELD_BITS) - 1;
/**
 * A place word's place (`swiss` → Switzerland) is where the system is for: it counts in areas only,
 * not in names that merely contain it (NAD83(2011) / InGCS Dearborn-Ohio-Switzerland, a county of Indiana).
 */
const AREA_FIELDS = FIELD.AREA | FIELD.AREA_LEAD | FIELD.AREA_LISTED;

interface Term {
  readings: Reading[];
  /** Postings in its ranges: what generating candidates from this term costs. */
  cost: number;
  /** A noise word: adds relevance, excludes nothing. */
  optional: boolean;
}

/** Word ids `[lo, hi)` of the words `prefix` starts. */
function prefixRange(words: readonly string[], prefix: string): [number, number] {
  let lo = 0;
  let hi = words.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (words[mid]! < prefix) lo = mid + 1;
    else hi = mid;
  }
  let end = lo;
  hi = words.length;
  while (end < hi) {
    const mid = (end + hi) >>> 1;
    if (words[mid]!.startsWith(prefix)) end = mid + 1;
    else hi = mid;
  }
  return [lo, end];
}

/**
 * The words one edit away from `term` (or from their start). One edit leaves the first or the second
 * letter of the term first or second in the word (spelling.ts), so only words starting with one of
 * them (ranges of ids) or having one second are checked.
 */
function typoReadings(state: State, words: readonly string[], term: string): Reading[] {
  const readings: Reading[] = [];
  if (term.length < MIN_TYPO_LENGTH || /^[0-9]+$/.test(term)) return readings;
  const letters = new Set([term.charAt(0), term.charAt(1)]);
  const check = (w: number) => {
    const word = words[w]!;
    // A typo of the whole word is an exact match of it; one of its start, a prefix match.
    if (typoOf(term, word)) readings.push({ lo: w, hi: w + 1, exactLength: withinOneEdit(term, word) ? word.length : -1, penalty: TYPO_PENALTY, fields: ALL_FIELDS });
  };
  for (const letter of letters) {
    const [lo, hi] = prefixRange(words, letter);
    for (let w = lo; w < hi; w++) check(w);
  }
  // A word has one second letter: it is in one of these lists at most, and skipped when a range above had it.
  for (const letter of letters) {
    for (const w of state.bySecondLetter.get(letter) ?? []) if (!letters.has(words[w]!.charAt(0))) check(w);
  }
  return readings;
}

/** Word ids `[lo, hi)` of exactly `word` (empty when the index has not it). */
function exactRange(words: readonly string[], word: string): [number, number] {
  const [lo] = prefixRange(words, word);
  return words[lo] === word ? [lo, lo + 1] : [lo, lo];
}

const hasWord = (registry: Registry, word: string): boolean => {
  const [lo, hi] = exactRange(registry.text.words, word);
  return hi > lo;
};

/** A term as the query is read: a typed word (null for a place's word only) and the places it also names. */
interface Spelled {
  word: string | null;
  /** Words of the areas it means too, matched whole and in areas only (`swiss` → `switzerland`). */
  places: readonly string[];
}

/**
 * How a term is looked up: as typed (a word prefix, anywhere), as the places it names (whole words
 * of areas), or, when nothing has it, through its typos.
 */
function termOf(registry: Registry, spelled: Spelled, optional: boolean): Term {
  const { words, postingStart } = registry.text;
  const readings: Reading[] = [];
  if (spelled.word !== null) {
    const [lo, hi] = prefixRange(words, spelled.word);
    readings.push({ lo, hi, exactLength: spelled.word.length, penalty: 0, fields: ALL_FIELDS });
  }
  for (const place of spelled.places) {
    const [lo, hi] = exactRange(words, place);
    readings.push({ lo, hi, exactLength: place.length, penalty: 0, fields: AREA_FIELDS });
  }
  const cost = (list: Reading[]) => list.reduce((sum, reading) => sum + postingStart[reading.hi]! - postingStart[reading.lo]!, 0);
  if (cost(readings) > 0 || optional || spelled.word === null) return { readings, cost: cost(readings), optional };
  const state = stateOf(registry);
  const typos = state.typos.get(spelled.word) ?? state.typos.set(spelled.word, typoReadings(state, words, spelled.word));
  return { readings: typos, cost: cost(typos), optional };
}

const typed = (word: string): Spelled => ({ word, places: PLACE_WORDS.get(word) ?? [] });

/**
 * The query's words as meant, longest phrase first: a zone number and its hemisphere as EPSG's
 * zone (`32 north` → `32n`), a nickname as EPSG's words, a country's name in another language as
 * the English words of its areas (a one-word name of a one-word country also as typed).
 */
function spell(registry: Registry, state: State, words: readonly string[]): Spelled[] {
  const spelled: Spelled[] = [];
  for (let i = 0; i < words.length; ) {
    const hemisphere = HEMISPHERES.get(words[i + 1] ?? '');
    if (hemisphere && /^[0-9]+$/.test(words[i]!) && hasWord(registry, words[i] + hemisphere)) {
      spelled.push(typed(words[i] + hemisphere));
      i += 2;
      continue;
    }
    let length = Math.min(state.phraseWords, words.length - i);
    for (; length > 0; length--) {
      const phrase = words.slice(i, i + length).join(' ');
      const nickname = NICKNAMES.get(phrase);
      const place = registry.places.get(phrase);
      if (nickname) spelled.push(...nickname.map(typed));
      else if (place && length === 1 && place.length === 1) spelled.push({ word: phrase, places: place });
      else if (place) spelled.push(...place.map((word) => ({ word: null, places: [word] })));
      else continue;
      break;
    }
    if (length === 0) spelled.push(typed(words[i++]!));
    else i += length;
  }
  return spelled;
}

/**
 * The terms of a query (`spell`), noise words optional (unless all are); two neighbouring words
 * also add relevance where a name has them side by side, as names are indexed (`zone 3` →
 * `zone3`: DHDN / 3-degree Gauss-Kruger zone 3 before the other zones, whose names have a 3 too).
 * Names only: an alias such as "RGRDC 2005 / UTM 33S" would put its system before WGS 84's for
 * `utm 33 south`.
 */
function termsOf(registry: Registry, typedWords: readonly string[]): Term[] {
  const state = stateOf(registry);
  const spelled = spell(registry, state, typedWords);
  const unique = new Map(spelled.map((term) => [`${term.word} ${term.places.join(' ')}`, term]));
  const allNoise = spelled.every((term) => term.word !== null && NOISE_WORDS.has(term.word));
  const terms = [...unique.values()].map((term) => termOf(registry, term, !allNoise && term.word !== null && NOISE_WORDS.has(term.word)));
  for (let i = 1; i < spelled.length; i++) {
    const [first, second] = [spelled[i - 1]!.word, spelled[i]!.word];
    if (first === null || second === null) continue;
    const [lo, hi] = exactRange(registry.text.words, first + second);
    if (hi > lo) terms.push({ readings: [{ lo, hi, exactLength: first.length + second.length, penalty: 0, fields: FIELD.NAME }], cost: 0, optional: true });
  }
  return terms;
}

/** Best score of a term among an entry's words (0: no match), counting the `fields` given. Its words are sorted by id. */
function entryTermScore(registry: Registry, entry: number, term: Term, fields = ALL_FIELDS): number {
  const { entryStart, entryWord, entryField, words } = registry.text;
  let best = 0;
  for (const reading of term.readings) {
    let lo = entryStart[entry]!;
    let hi = entryStart[entry + 1]!;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (entryWord[mid]! < reading.lo) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < entryStart[entry + 1]! && entryWord[i]! < reading.hi; i++) {
      const exact = words[entryWord[i]!]!.length === reading.exactLength ? 1 : 0;
      best = Math.max(best, WORD_SCORE[(entryField[i]! & reading.fields & fields) * 2 + exact]! - reading.penalty);
    }
  }
  return best;
}

/** The filters that name related objects, as the (ascending) entry id lists they select. */
function relatedFilters(registry: Registry, query: ParsedQuery): (readonly number[])[] {
  const lists: (readonly number[])[] = [];
  const pairs: [number | null, ReadonlyMap<number, readonly number[]>][] = [
    [query.code, registry.byCode],
    [query.trans, registry.byTransformation],
    [query.datum, registry.byDatum],
    [query.ellipsoid, registry.byEllipsoid],
    [query.method, registry.byMethod],
    [query.areaCode, registry.byArea],
  ];
  for (const [value, index] of pairs) if (value !== null) lists.push(index.get(value) ?? []);
  return lists;
}

/** The ids in both lists (both ascending). */
function intersect(a: readonly number[], b: readonly number[]): number[] {
  const both: number[] = [];
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    if (a[i]! < b[j]!) i++;
    else if (a[i]! > b[j]!) j++;
    else {
      both.push(a[i]!);
      i++;
      j++;
    }
  }
  return both;
}

/** Entry ids matching the query, best first. */
function rank(registry: Registry, query: ParsedQuery): Uint32Array {
  const state = stateOf(registry);
  const allowedKind = new Uint8Array(KINDS.length);
  KINDS.forEach((kind, i) => (allowedKind[i] = query.kinds.has(kind) ? 1 : 0));
  const wantDeprecated = query.deprecated === 'only' ? 1 : 0;
  const passes = (id: number) =>
    allowedKind[state.kind[id]!] === 1 && (query.deprecated === 'include' || state.deprecated[id] === wantDeprecated);

  const related = relatedFilters(registry, query);
  if (related.length === 0 && query.terms.length === 0) return state.staticOrder.filter(passes);

  const terms = termsOf(registry, query.terms);
  const required = terms.filter((term) => !term.optional).sort((a, b) => a.cost - b.cost);
  if (required.some((term) => term.cost === 0)) return new Uint32Array(0);

  const generation = (state.generation = (state.generation + 1) >>> 0 || 1);
  let candidates: number[] = [];
  let checked = required;
  if (related.length > 0) {
    candidates = related.reduce(intersect).filter(passes);
    for (const id of candidates) {
      state.relevance[id] = 0;
      state.weakest[id] = 255;
    }
  } else {
    // The cheapest required term generates candidates from its postings; the others are checked per candidate.
    const [driver] = required as [Term];
    checked = required.slice(1);
    const { postingStart, postingEntry, postingField, words } = registry.text;
    for (const reading of driver.readings) {
      for (let word = reading.lo; word < reading.hi; word++) {
        const exact = words[word]!.length === reading.exactLength ? 1 : 0;
        for (let p = postingStart[word]!; p < postingStart[word + 1]!; p++) {
          const id = postingEntry[p]!;
          const score = WORD_SCORE[(postingField[p]! & reading.fields) * 2 + exact]! - reading.penalty;
          if (score <= 0 || !passes(id)) continue;
          if (state.stamp[id] !== generation) {
            state.stamp[id] = generation;
            state.relevance[id] = score;
            state.weakest[id] = score;
            candidates.push(id);
          } else if (score > state.relevance[id]!) {
            state.relevance[id] = score;
            state.weakest[id] = score;
          }
        }
      }
    }
  }
  for (const term of checked) {
    candidates = candidates.filter((id) => {
      const score = entryTermScore(registry, id, term);
      state.relevance[id] = state.relevance[id]! + score;
      state.weakest[id] = Math.min(state.weakest[id]!, score);
      return score > 0;
    });
  }
  for (const term of terms) {
    if (!term.optional) continue;
    for (const id of candidates) state.relevance[id] = state.relevance[id]! + entryTermScore(registry, id, term);
  }

  const codes = new Set(query.terms.filter((term) => /^[0-9]+$/.test(term)).map(Number));
  if (query.code !== null) codes.add(query.code);
  const withText = required.length > 0 ? 1 : 0;
  // A place the query names has grids of its own: projected CRSs about every term, whose area is
  // that place as a whole (a term opens the area). It matters where a popular system is about the
  // place only as one place of its area's list: a zone across countries, such as ETRS89 / UTM zone
  // 32N for Austria or Italy. Without such grids (Germany, Denmark), the popular zone stays first.
  const ownGrid = (id: number) =>
    state.whole[id] === 1 && state.weakest[id]! >= WHOLE_SCORE && required.some((term) => entryTermScore(registry, id, term, AREA_FIELDS) >= WHOLE_SCORE);
  const listedOnly = (id: number) =>
    state.kind[id] === PROJECTED && state.popularity[id]! !== NOT_POPULAR && matchClass(state.weakest[id]!) === 0 && state.weakest[id]! < WHOLE_SCORE;
  const placeHasGrid = withText === 1 && candidates.some(ownGrid);
  const keys = new Float64Array(candidates.length);
  candidates.forEach((id, i) => {
    const exact = codes.has(registry.entries[id]!.code) ? 0 : 1;
    const weakest = withText * matchClass(state.weakest[id]!);
    const popularity = state.popularity[id]!;
    const own = placeHasGrid && ownGrid(id);
    // 0: popular and in use today; 1: a legacy grid still in wide use; 2: the rest. When the place
    // has grids of its own, a popular system that is about it only as one place of its area's list
    // (a zone across countries: ETRS89 / UTM zone 32N for Austria) is not preferred.
    const group = popularity === NOT_POPULAR || (placeHasGrid && listedOnly(id)) ? 2 : popularity >= LEGACY_FROM ? 1 : 0;
    const rest = group === 2 ? 1 : 0;
    const notOwn = placeHasGrid && !own ? 1 : 0;
    const relevance = 255 - Math.min(state.relevance[id]!, 255);
    const order = rest ? state.basePopularity[id]! * 2 : popularity * 2 + state.borrowed[id]!;
    // Among a place's own grids, the one on the newest datum (the realization in use) before shorter names.
    const nameLength = own ? state.age[id]! : withText * rest * state.nameLength[id]!;
    const major = (((exact * 2 + state.deprecated[id]!) * 2 + weakest) * 3 + group) * 2 + notOwn;
    keys[i] = ((((major * 256 + relevance) * 2 + state.variant[id]!) * 256 + nameLength) * 256 + order) * state.idSpan + id;
  });
  keys.sort();
  return Uint32Array.from(keys, (key) => key % state.idSpan);
}

// ---- items ---------------------------------------------------------------------------------------

const epsg = (code: number): Id => ({ authority: 'EPSG', code });

/** EPSG transformations from a CRS's geodetic base CRS to WGS 84 (none for other kinds). */
function transformationCodes(registry: Registry, entry: RegistryEntry): readonly number[] {
  return isCrsKind(entry.kind) && entry.baseCrs !== null ? (registry.toWgs84.get(entry.baseCrs) ?? []) : [];
}

/** A page of results being answered: its entries, and the PROJ-derived data of its CRSs. */
interface Page {
  entries: RegistryEntry[];
  total: number;
  /** Held for the request, whatever the cache drops meanwhile. */
  details: Map<number, CrsDetails>;
  operations: Map<number, OperationInfo | null>;
  /** What PROJ still has to compute; null when the cache holds everything. */
  task: DeriveTask | null;
}

function checkPaging(limit: number, offset: number): void {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw new QueryError(`limit must be an integer from 1 to ${MAX_LIMIT}`);
  if (!Number.isSafeInteger(offset) || offset < 0) throw new QueryError('offset must be an integer >= 0');
}

/** Finds the page (index work only) and what of its data PROJ has yet to compute. */
function findPage(registry: Registry, cache: SearchCache, options: SearchOptions): Page {
  checkPaging(options.limit, options.offset);
  const ordered = rank(registry, parseQuery(options.query));
  const ids = ordered.subarray(Math.min(options.offset, ordered.length), Math.min(options.offset + options.limit, ordered.length));
  const page: Page = { entries: Array.from(ids, (id) => registry.entries[id]!), total: ordered.length, details: new Map(), operations: new Map(), task: null };
  const work: CrsWork[] = [];
  const operations = new Set<number>();
  for (const entry of page.entries) {
    if (!isCrsKind(entry.kind) || page.details.has(entry.code)) continue;
    const details = cache.crs.get(entry.code) ?? cache.crs.set(entry.code, { bound: new Map() });
    page.details.set(entry.code, details);
    const preset = cache.defaults.get(entry.code);
    if (details.defaultTransformation === undefined && preset !== undefined) setDefault(registry, details, entry.code, preset);
    if (options.exports && details.exports === undefined) details.exports = cache.exports().get(entry.code);
    const bound: number[] = [];
    if (options.transformations && !details.transformations) {
      for (const code of transformationCodes(registry, entry)) {
        if (!details.bound.has(code)) bound.push(code);
        if (page.operations.has(code) || operations.has(code)) continue;
        const info = cache.operations.get(code);
        if (info === undefined) operations.add(code);
        else page.operations.set(code, info);
      }
    }
    const defaultTransformation = details.defaultTransformation === undefined;
    const exports = options.exports && details.exports === undefined;
    if (defaultTransformation || exports || bound.length > 0) {
      work.push({ code: entry.code, defaultTransformation, exports, bound });
    }
  }
  if (work.length > 0 || operations.size > 0) page.task = { crs: work, operations: [...operations] };
  return page;
}

/** A CRS's default transformation and accuracy: that of the transformation, 0 on WGS 84's own datum, else unknown. */
function setDefault(registry: Registry, details: CrsDetails, code: number, best: DefaultTransformation | null): void {
  const datum = registry.crs.get(code)?.datum ?? null;
  // The spec's DefaultTransformation has an integer code: a chain EPSG has no code for is named
  // by its first EPSG step (the whole chain is in `steps` and `name`).
  details.defaultTransformation = best ? { authority: 'EPSG', code: best.code ?? best.steps[0]!, name: best.name, steps: best.steps.map(epsg) } : null;
  details.accuracy = best ? best.accuracy : datum !== null && datum === registry.crs.get(WGS84)?.datum ? 0 : null;
}

/** Keeps what PROJ computed for the page, in the page and in the cache. */
function keep(registry: Registry, cache: SearchCache, page: Page, derived: Derived): void {
  for (const [code, info] of derived.operations) {
    cache.operations.set(code, info);
    page.operations.set(code, info);
  }
  for (const facts of derived.crs) {
    const details = page.details.get(facts.code)!;
    if (facts.defaultTransformation !== undefined) setDefault(registry, details, facts.code, facts.defaultTransformation);
    if (facts.exports) details.exports = facts.exports;
    for (const [operation, bound] of facts.bound) details.bound.set(operation, bound);
  }
}

function transformationItems(registry: Registry, page: Page, codes: readonly number[], details: CrsDetails): TransformationItem[] {
  if (details.transformations) return details.transformations;
  details.transformations = codes.map((code) => {
    const own = registry.byCode.get(code)?.map((id) => registry.entries[id]!).find((found) => familyOf(found.kind) === 'COORDOP');
    const info = page.operations.get(code) ?? null;
    const target = own?.targetCrs ?? info?.targetCrs ?? null;
    return {
      accuracy: own?.accuracy ?? info?.accuracy ?? null,
      area: own?.area ?? info?.areaName ?? null,
      bbox: own?.bbox ?? info?.bbox ?? null,
      deprecated: own?.deprecated ?? info?.deprecated ?? false,
      exports: details.bound.get(code)?.exports ?? null,
      grids: (info?.grids ?? []).map((grid) => ({ path: grid.name ?? '' })),
      id: epsg(code),
      name: own?.name ?? info?.name ?? '',
      reversible: info?.reversible ?? false,
      target_crs: target === null ? null : epsg(target),
      unit: target === null ? null : (registry.crs.get(target)?.unit ?? null),
      usable: info !== null && info.instantiable && info.grids.every((grid) => grid.available) && details.bound.get(code)?.works === true,
    };
  });
  details.bound.clear(); // the items hold them now
  return details.transformations;
}

function item(registry: Registry, page: Page, entry: RegistryEntry, options: SearchOptions): SearchItem {
  const details = isCrsKind(entry.kind) ? page.details.get(entry.code)! : null;
  const codes = transformationCodes(registry, entry);
  const result: SearchItem = {
    accuracy: details ? details.accuracy! : entry.accuracy,
    area: entry.area,
    bbox: entry.bbox,
    default_transformation: details ? details.defaultTransformation! : null,
    deprecated: entry.deprecated,
    id: epsg(entry.code),
    kind: entry.kind,
    name: entry.name,
    transformations: details && options.transformations ? transformationItems(registry, page, codes, details) : [...codes],
    unit: entry.unit,
  };
  if (options.exports) result.exports = details ? details.exports! : null;
  return result;
}

function answer(registry: Registry, page: Page, options: SearchOptions): SearchResult {
  return { results: page.entries.map((entry) => item(registry, page, entry, options)), total: page.total };
}

const caches = new WeakMap<Registry, SearchCache>();

/**
 * Runs a search query, computing PROJ-derived data in-line; throws `QueryError` for a query or
 * paging the client got wrong. Items share cached data (bboxes, exports, transformation details):
 * treat them as read-only.
 */
export function search(registry: Registry, options: SearchOptions): SearchResult {
  let cache = caches.get(registry);
  if (!cache) caches.set(registry, (cache = new SearchCache()));
  const page = findPage(registry, cache, options);
  if (page.task) keep(registry, cache, page, derive(page.task));
  return answer(registry, page, options);
}

/** Where PROJ-derived data is computed: a thread of the coordinates pool, or in-line. */
export interface Deriver {
  derive(task: DeriveTask): Promise<Derived>;
  /** The PROJ time one search may use, after which `derive` returns what it has. */
  readonly timeoutMs: number;
}

/** Computes on the calling thread, as `search` does: for benchmarks that compare it with the pool. */
export const inlineDeriver: Deriver = { timeoutMs: Infinity, derive: async (task) => derive(task) };

/**
 * `search` with the PROJ-derived data computed by `deriver`; a page whose data is cached is
 * answered at once. When the deriver runs out of time, what it computed is kept and the search is
 * refused with 503 and `Retry-After`: a retry goes on from there.
 */
export async function searchWith(registry: Registry, cache: SearchCache, deriver: Deriver, options: SearchOptions): Promise<SearchResult> {
  const page = findPage(registry, cache, options);
  if (page.task) {
    const derived = await deriver.derive(page.task);
    keep(registry, cache, page, derived);
    if (!derived.complete) {
      throw new ApiError(`The search needed more than ${deriver.timeoutMs} ms of PROJ work; what it computed is kept: try again shortly`, 'unavailable', {
        'retry-after': '1',
      }, 'timeout');
    }
  }
  return answer(registry, page, options);
}
