/**
 * Forward geocoding: the entries whose names best match the query's words, ranked as a user judges
 * them. Each query word is looked up in the dictionary as a whole word, as a prefix when it is the
 * last word and `autocomplete` is on (`zur` → Zürich), and within a typo or two when `fuzzyMatch` is
 * on (fuzzy.ts); a word the entry's name lacks may name its country (`Paris France`).
 *
 * - `relevance` (0..1, as the API reports it) is the share of the query, weighted by word length,
 *   that the entry matches: a whole word counts 1, a prefix 0.75 to 0.95 by how much of the word
 *   was typed, a typo 0.7 (two: 0.55), a country word 0.9 times its own match.
 * - The ranking adds to it half the entry's importance (population on a log scale; countries 0.8 to 1),
 *   0.15 times the share of the name's words the query matched (`York` before `New York City` for
 *   "york"; initials do not count: `Washington, D.C.` is matched whole by "washington"), 0.05 when the matched name is in a requested language (without one: English, or a GeoNames name), and with `proximity` up to 0.4
 *   for a place near that point (0.2 at 100 km).
 * - A query whose words match more than 4,000 names (a one- or two-letter prefix alone) is ranked
 *   among the 300 most important entries of them that pass the filters: the answer to `s` is a country or
 *   a large city, and checking every name would cost tens of milliseconds.
 */

import { attributionOf, featureOf, type FeatureCollection } from './features.js';
import { similarWords } from './fuzzy.js';
import { streetForms } from './normalize.js';
import { lowerBound, matchNameWords, type WordList } from './dictionary.js';
import { COUNTRY, ENTRY_KINDS, NO_COUNTRY, type PlaceIndex } from './place-index.js';
import type { SearchOptions } from './parameters.js';

const WHOLE = 1;
/** Beyond this many names to look at, candidates are taken in order of importance instead (`SCAN_CANDIDATES` of them). */
const MANY_POSTINGS = 4_000;
const SCAN_CANDIDATES = 300;
const COUNTRY_WORD = 0.9;
const TYPO = [1, 0.7, 0.55];
/** Abbreviations people type for words of place names, both ways (`St Petersburg`, `Saint-Étienne`). */
const SYNONYMS: Record<string, readonly string[]> = {
  st: ['saint', 'sankt'],
  saint: ['st'],
  sankt: ['st'],
  ste: ['sainte'],
  sainte: ['ste'],
  mt: ['mount'],
  mount: ['mt'],
  ft: ['fort'],
  fort: ['ft'],
};

/** A dictionary word a query word matched, and how well. */
export class Matches {
  /** Whole words, synonyms and typos, with their quality. */
  readonly words = new Map<number, number>();
  /** Words [from, to) of the sorted dictionary start with the typed word (a prefix can match thousands). */
  from = 0;
  to = 0;
  typed = 1;

  constructor(private readonly dictionary: readonly string[]) {}

  get(w: number): number | undefined {
    const q = this.words.get(w);
    if (w >= this.from && w < this.to) return Math.max(q ?? 0, prefixQuality(this.typed, this.dictionary[w]!));
    return q;
  }

  *keys(): Generator<number> {
    for (const w of this.words.keys()) if (w < this.from || w >= this.to) yield w;
    for (let w = this.from; w < this.to; w++) yield w;
  }
}

function prefixQuality(typed: number, word: string): number {
  return 0.75 + 0.2 * Math.min(1, typed / word.length);
}

/** The dictionary words one query word matches. */
export function matchWord(index: WordList, word: string, asPrefix: boolean, fuzzy: boolean): Matches {
  const matches = new Matches(index.words);
  const at = lowerBound(index.words, word);
  if (index.words[at] === word) matches.words.set(at, WHOLE);
  for (const synonym of [...(SYNONYMS[word] ?? []), ...streetForms(word)]) {
    const w = lowerBound(index.words, synonym);
    if (index.words[w] === synonym) matches.words.set(w, WHOLE);
  }
  if (asPrefix) {
    matches.typed = word.length;
    matches.from = index.words[at] === word ? at + 1 : at;
    // The words after `word` that start with it are those before the first one ≥ `word` + the last code unit.
    matches.to = Math.max(matches.from, lowerBound(index.words, `${word}\uffff`));
  }
  // A word of the dictionary is taken as spelled: only a word no name has may be a typo.
  if (fuzzy && index.words[at] !== word) {
    for (const [w, distance] of similarWords(index, word)) {
      const quality = TYPO[distance]!;
      if ((matches.words.get(w) ?? 0) < quality) matches.words.set(w, quality);
    }
  }
  return matches;
}

/** Whether an entry passes the request's filters. */
function admitted(index: PlaceIndex, entry: number, options: SearchOptions): boolean {
  if (options.kinds && !options.kinds.has(ENTRY_KINDS[index.kind[entry]!]!)) return false;
  const country = index.country[entry]!;
  if (options.countries && (country === NO_COUNTRY || !options.countries.has(index.countries[country]!.code))) return false;
  if (options.bbox) {
    const [west, south, east, north] = options.bbox;
    const lon = index.lon[entry]!;
    const lat = index.lat[entry]!;
    if (lat < south || lat > north) return false;
    if (west <= east ? lon < west || lon > east : lon < west && lon > east) return false;
  }
  return true;
}

/** Great-circle distance in kilometres. */
export function distanceKm(lon1: number, lat1: number, lon2: number, lat2: number): number {
  const rad = Math.PI / 180;
  const dLat = (lat2 - lat1) * rad;
  const dLon = (lon2 - lon1) * rad;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(dLon / 2) ** 2;
  return 12742 * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** The words of a name that count in the share matched: one-letter words are initials (`Washington, D.C.` is one word long), unless the name is only those. */
function nameLength(index: PlaceIndex, name: number): number {
  let length = 0;
  for (let p = index.nameWordStart[name]!; p < index.nameWordStart[name + 1]!; p++) if (index.words[index.nameWords[p]!]!.length > 1) length++;
  return Math.max(1, length);
}

/** Candidate names, and words matched, are marked with the search's number, so no set is built per search. */
let marks = new Uint32Array(0);
let wordMarks = new Uint32Array(0);
let searchNumber = 0;

export interface Ranked {
  entry: number;
  relevance: number;
  score: number;
  name: number;
}

/** The best entries for the query's words, best first. */
export function rank(index: PlaceIndex, words: readonly string[], options: SearchOptions): Ranked[] {
  const names = index.nameEntry.length;
  if (marks.length < names) marks = new Uint32Array(names);
  if (wordMarks.length < index.words.length) wordMarks = new Uint32Array(index.words.length);
  if (++searchNumber === 0xffffffff) {
    marks.fill(0);
    wordMarks.fill(0);
    searchNumber = 1;
  }
  const last = words.length - 1;
  const matches = words.map((word, i) => matchWord(index, word, options.autocomplete && i === last, options.fuzzyMatch));
  const weights = words.map((word) => Math.max(1, Math.min(8, [...word].length)));
  const totalWeight = weights.reduce((sum, w) => sum + w, 0);
  // Names in a requested language, or without a request in English or in no particular language (GeoNames' names).
  const requested = new Set((options.languages.length > 0 ? options.languages : ['', 'en']).map((language) => index.languages.indexOf(language)).filter((i) => i >= 0));

  // Candidates: the names of every matched word. A one- or two-letter prefix among longer words
  // would add thousands of names the other words rule out: those come from the other words.
  const candidates: number[] = [];
  const selective = words.length > 1 ? words.map((word, i) => !(i === last && options.autocomplete && [...word].length <= 2)) : [true];
  let postings = 0;
  matches.forEach((found, i) => {
    if (selective[i] || !selective.some(Boolean)) for (const w of found.keys()) postings += index.postingStart[w + 1]! - index.postingStart[w]!;
  });
  if (postings > MANY_POSTINGS) {
    // A short prefix alone (`s`, `pa`) matches tens of thousands of names: the first entries in
    // order of importance that pass the filters and have a matching word are the candidates.
    for (const found of matches) for (const w of found.keys()) wordMarks[w] = searchNumber;
    let entries = 0;
    for (let entry = 0; entry < index.kind.length && entries < SCAN_CANDIDATES; entry++) {
      if (!admitted(index, entry, options)) continue;
      const end = entry + 1 < index.kind.length ? index.firstName[entry + 1]! : index.nameEntry.length;
      let any = false;
      for (let name = index.firstName[entry]!; name < end; name++) {
        let hit = false;
        for (let p = index.nameWordStart[name]!; p < index.nameWordStart[name + 1]! && !hit; p++) hit = wordMarks[index.nameWords[p]!] === searchNumber;
        if (hit) {
          candidates.push(name);
          any = true;
        }
      }
      if (any) entries++;
    }
  }
  else matches.forEach((found, i) => {
    if (!selective[i] && selective.some(Boolean)) return;
    for (const w of found.keys()) {
      for (let p = index.postingStart[w]!; p < index.postingStart[w + 1]!; p++) {
        const name = index.postingName[p]!;
        if (marks[name] !== searchNumber) {
          marks[name] = searchNumber;
          candidates.push(name);
        }
      }
    }
  });

  // How well each query word names each country, worked out for the countries candidates are in.
  const countryQuality = words.map(() => new Map<number, number>());
  const countryMatch = (i: number, country: number): number => {
    const known = countryQuality[i]!.get(country);
    if (known !== undefined) return known;
    let q = 0;
    for (const w of index.countryWords[country]!) q = Math.max(q, matches[i]!.get(w) ?? 0);
    countryQuality[i]!.set(country, q * COUNTRY_WORD);
    return q * COUNTRY_WORD;
  };
  const best = new Map<number, Ranked>();
  const quality = new Float64Array(words.length);
  for (const name of candidates) {
    const entry = index.nameEntry[name]!;
    if (!admitted(index, entry, options)) continue;
    const nameWordsMatched = matchNameWords(index, name, matches, quality);
    const country = index.country[entry]!;
    if (index.kind[entry] !== COUNTRY && country !== NO_COUNTRY) {
      for (let i = 0; i < words.length; i++) {
        if (quality[i]! < COUNTRY_WORD) quality[i] = Math.max(quality[i]!, countryMatch(i, country));
      }
    }
    let matched = 0;
    for (let i = 0; i < words.length; i++) matched += quality[i]! * weights[i]!;
    const relevance = matched / totalWeight;
    let score = relevance + 0.5 * index.importance[entry]! + (0.15 * Math.min(1, nameWordsMatched / nameLength(index, name)));
    if (requested.has(index.nameLanguage[name]!)) score += 0.05;
    if (options.proximity) {
      const km = distanceKm(options.proximity[0], options.proximity[1], index.lon[entry]!, index.lat[entry]!);
      score += 0.4 / (1 + km / 100);
    }
    const previous = best.get(entry);
    if (!previous || score > previous.score) best.set(entry, { entry, relevance, score, name });
  }
  return [...best.values()].sort((a, b) => b.score - a.score || a.entry - b.entry).slice(0, options.limit);
}


/** The forward search's response. */
export function forward(index: PlaceIndex, words: readonly string[], options: SearchOptions): FeatureCollection {
  const ranked = rank(index, words, options);
  return {
    type: 'FeatureCollection',
    features: ranked.map((r) => featureOf(index, r.entry, r.relevance, options.languages, index.nameText[r.name])),
    query: [...words],
    attribution: attributionOf(index, ranked),
  };
}
