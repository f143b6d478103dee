/**
 * Forward geocoding: the entries whose names best match the query's words, ranked as a user judges
 * them. Each query word is looked up in the dictionary as a whole word, as a prefix when it is the
 * last word and `autocomplete` is on (`zur` → Zürich), and within a typo or two when `fuzzyMatch` is
 * on (fuzzy.ts); a word the entry's name lacks may name its country (`Paris France`).
 *
 * - `relevance` (0..1, as the API reports it) is the share of the query, weighted by word length,
 *   that the entry matches: a whole word counts 1, a prefix 0.75 to 0.95 by how much of the word
 *   was typed, a typo 0.7 (two: 0.55), a country word 0.9 times its own match.
 * - The ranking adds to it half the entry's importance (population on a log scale; countries 1),
 *   0.15 times the share of the name's words the query matched (`York` before `New York City` for
 *   "york"), 0.05 when the matched name is in a requested language, and with `proximity` up to 0.4
 *   for a place near that point (0.2 at 100 km).
 */

import { attributionOf, featureOf, type FeatureCollection } from './features.js';
import { similarWords } from './fuzzy.js';
import { COUNTRY, ENTRY_KINDS, lowerBound, NO_COUNTRY, type PlaceIndex } from './place-index.js';
import type { SearchOptions } from './parameters.js';

const WHOLE = 1;
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
type Matches = Map<number, number>;

function prefixQuality(typed: number, word: string): number {
  return 0.75 + 0.2 * Math.min(1, typed / [...word].length);
}

/** The dictionary words one query word matches. */
function matchWord(index: PlaceIndex, word: string, asPrefix: boolean, fuzzy: boolean): Matches {
  const matches: Matches = new Map();
  const at = lowerBound(index.words, word);
  if (index.words[at] === word) matches.set(at, WHOLE);
  for (const synonym of SYNONYMS[word] ?? []) {
    const w = lowerBound(index.words, synonym);
    if (index.words[w] === synonym) matches.set(w, WHOLE);
  }
  if (asPrefix) {
    const typed = [...word].length;
    for (let w = index.words[at] === word ? at + 1 : at; w < index.words.length && index.words[w]!.startsWith(word); w++) {
      matches.set(w, prefixQuality(typed, index.words[w]!));
    }
  }
  if (fuzzy) {
    for (const [w, distance] of similarWords(index, word)) {
      const quality = TYPO[distance]!;
      if ((matches.get(w) ?? 0) < quality) matches.set(w, quality);
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

/** Candidate names are marked with the search's number, so no set is built per search. */
let marks = new Uint32Array(0);
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
  if (++searchNumber === 0xffffffff) {
    marks.fill(0);
    searchNumber = 1;
  }
  const last = words.length - 1;
  const matches = words.map((word, i) => matchWord(index, word, options.autocomplete && i === last, options.fuzzyMatch));
  const weights = words.map((word) => Math.max(1, Math.min(8, [...word].length)));
  const totalWeight = weights.reduce((sum, w) => sum + w, 0);
  const requested = new Set(options.languages.map((language) => index.languages.indexOf(language)).filter((i) => i > 0));

  // Candidates: the names of every matched word. A one- or two-letter prefix among longer words
  // would add thousands of names the other words rule out: those come from the other words.
  const candidates: number[] = [];
  const selective = words.length > 1 ? words.map((word, i) => !(i === last && options.autocomplete && [...word].length <= 2)) : [true];
  matches.forEach((found, i) => {
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
    quality.fill(0);
    const start = index.nameWordStart[name]!;
    const end = index.nameWordStart[name + 1]!;
    let nameWordsMatched = 0;
    for (let p = start; p < end; p++) {
      const w = index.nameWords[p]!;
      let matchedHere = false;
      for (let i = 0; i < words.length; i++) {
        const q = matches[i]!.get(w);
        if (q !== undefined) {
          matchedHere = true;
          if (q > quality[i]!) quality[i] = q;
        }
      }
      if (matchedHere) nameWordsMatched++;
    }
    const country = index.country[entry]!;
    if (index.kind[entry] !== COUNTRY && country !== NO_COUNTRY) {
      for (let i = 0; i < words.length; i++) {
        if (quality[i]! < COUNTRY_WORD) quality[i] = Math.max(quality[i]!, countryMatch(i, country));
      }
    }
    let matched = 0;
    for (let i = 0; i < words.length; i++) matched += quality[i]! * weights[i]!;
    const relevance = matched / totalWeight;
    let score = relevance + 0.5 * index.importance[entry]! + (0.15 * nameWordsMatched) / Math.max(1, end - start);
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
