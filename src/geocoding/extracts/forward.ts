/**
 * Forward search in an extract's index (extract-index.ts), scored as forward.ts scores the world's
 * places so that both rank in one list: `relevance` is the share of the query the entry matches
 * (a word of its place or country counts 0.9 of its match, so `Willow Street, Oakland` is
 * relevance 0.97 for the street), and the score adds half the entry's importance, 0.15 times the
 * share of its name's words matched, 0.05 for a name in a requested language, 0.15 for a street
 * or an address when the query reads as a street (`Willow St`: normalize.ts), and proximity. An
 * address's name is its street and number, in any order the query gives them (`Haydnstraße 5`,
 * `5 Haydnstraße`).
 */

import { matchNameWords } from '../dictionary.js';
import { distanceKm, matchWord } from '../forward.js';
import { isStreetQuery } from '../normalize.js';
import { ADDRESS, EXTRACT_KINDS, STREET, type ExtractIndex } from './extract-index.js';
import type { SearchOptions } from '../parameters.js';

const CONTEXT_WORD = 0.9;
/** Added to streets and addresses when the query reads as a street (normalize.ts, isStreetQuery): more than a small town's lead in importance over a street. */
const STREET_QUERY = 0.15;
/** Beyond this many names for the query's words, only those of its rarest word are candidates. */
const MANY_POSTINGS = 4_000;

export interface ExtractRanked {
  index: ExtractIndex;
  entry: number;
  relevance: number;
  score: number;
  name: number;
}

/** Whether an entry passes the request's filters. */
export function admittedExtract(index: ExtractIndex, entry: number, options: SearchOptions): boolean {
  if (options.kinds && !options.kinds.has(EXTRACT_KINDS[index.kind[entry]!]!)) return false;
  if (options.countries) {
    const country = index.contexts[index.context[entry]!]!.country;
    if (country === null || !options.countries.has(country)) return false;
  }
  if (options.bbox) {
    const [west, south, east, north] = options.bbox;
    const lon = index.lon[entry]!;
    const lat = index.lat[entry]!;
    if (lat < south || lat > north) return false;
    if (west <= east ? lon < west || lon > east : lon < west && lon > east) return false;
  }
  return true;
}

/** The best entries of one extract for the query's words, best first. */
export function rankExtract(index: ExtractIndex, words: readonly string[], options: SearchOptions): ExtractRanked[] {
  const last = words.length - 1;
  const matches = words.map((word, i) => matchWord(index, word, options.autocomplete && i === last, options.fuzzyMatch));
  const weights = words.map((word) => Math.max(1, Math.min(8, [...word].length)));
  const totalWeight = weights.reduce((sum, w) => sum + w, 0);
  const requested = new Set((options.languages.length > 0 ? options.languages : ['']).map((language) => index.languages.indexOf(language)).filter((i) => i >= 0));
  const streetQuery = isStreetQuery(words);

  const postingsOf = (i: number) => {
    let count = 0;
    for (const w of matches[i]!.keys()) count += index.postingStart[w + 1]! - index.postingStart[w]!;
    return count;
  };
  const counts = words.map((_, i) => postingsOf(i));
  let sources = words.map((_, i) => i);
  if (counts.reduce((sum, c) => sum + c, 0) > MANY_POSTINGS) {
    const rarest = sources.filter((i) => counts[i]! > 0).sort((a, b) => counts[a]! - counts[b]!)[0];
    sources = rarest === undefined ? [] : [rarest];
  }
  const candidates = new Set<number>();
  for (const i of sources) {
    for (const w of matches[i]!.keys()) for (let p = index.postingStart[w]!; p < index.postingStart[w + 1]!; p++) candidates.add(index.postingName[p]!);
  }

  const best = new Map<number, ExtractRanked>();
  const quality = new Float64Array(words.length);
  for (const name of candidates) {
    const entry = index.nameEntry[name]!;
    if (!admittedExtract(index, entry, options)) continue;
    const nameWordsMatched = matchNameWords(index, name, matches, quality);
    const context = index.context[entry]!;
    for (let p = index.contextWordStart[context]!; p < index.contextWordStart[context + 1]!; p++) {
      const w = index.contextWords[p]!;
      for (let i = 0; i < words.length; i++) {
        const q = matches[i]!.get(w);
        if (q !== undefined && q * CONTEXT_WORD > quality[i]!) quality[i] = q * CONTEXT_WORD;
      }
    }
    let matched = 0;
    for (let i = 0; i < words.length; i++) matched += quality[i]! * weights[i]!;
    const relevance = matched / totalWeight;
    let score = relevance + 0.5 * index.importance[entry]! + (0.15 * nameWordsMatched) / Math.max(1, index.nameWordStart[name + 1]! - index.nameWordStart[name]!);
    if (requested.has(index.nameLanguage[name]!)) score += 0.05;
    if (streetQuery && (index.kind[entry] === STREET || index.kind[entry] === ADDRESS)) score += STREET_QUERY;
    if (options.proximity) score += 0.4 / (1 + distanceKm(options.proximity[0], options.proximity[1], index.lon[entry]!, index.lat[entry]!) / 100);
    const previous = best.get(entry);
    if (!previous || score > previous.score) best.set(entry, { index, entry, relevance, score, name });
  }
  return [...best.values()].sort((a, b) => b.score - a.score || a.entry - b.entry).slice(0, options.limit);
}
