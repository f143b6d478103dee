/**
 * Country names as people type them, in the 78 languages of npm `i18n-iso-countries` (each
 * language's official names and aliases, English among them: `Schweiz`, `Suisse`, `Svizzera`,
 * `スイス`, `Czech Republic`), each mapped to the English words EPSG's areas of use name that
 * country by (`switzerland`; `Reino Unido` → `united kingdom`; `Česko` → `czechia`).
 *
 * Which English words: of the package's English names of a country ("United States of America",
 * "United States", "USA", ...; "Saint" also read as EPSG's "St"), the one that opens the most
 * places of the registry's areas (an area names its country first, "United States (USA) - Texas",
 * or lists it, "Portugal; Spain - mainland."). A country no area opens with any of its names is
 * left out (the package's "Lao People's Democratic Republic" against EPSG's "Laos").
 *
 * Left out too, so that a name never means something else than it does today:
 * - a name that is already those English words (`germany`, `new zealand`);
 * - a one-word name that is a word of the index and whose country takes several English words
 *   (`us`, as in "US survey foot", is not read as united states), or that is shorter than
 *   SHORT_NAME (`y`); a longer one-word name of a one-word country keeps its own meaning beside the
 *   country's, as search's place words do (`algerie` also finds "Voirol 1879 / Nord Algerie");
 * - a name that means different countries in different languages.
 *
 * Built with the index (registry.ts) and saved in its cache: the package's language files (about
 * 700 kB of JSON) are read when the index is built at setup, never at start-up.
 */

import { createRequire } from 'node:module';
import { tokenize } from './query.js';

/** One-word names shorter than this that are words of the index mean too much else to be read as a country. */
const SHORT_NAME = 4;

/** A country's name in some language, as normalized words joined by spaces → EPSG's English words for it. */
export type PlaceNames = ReadonlyMap<string, readonly string[]>;

/** The part of `i18n-iso-countries` read here (its Node entry registers every language). */
interface Countries {
  getSupportedLanguages(): string[];
  getNames(language: string, options: { select: 'all' }): Record<string, string[]>;
}

/**
 * How many places of the areas each word sequence opens: the whole description, and each item of
 * its list ("Europe between 6°E and 12°E: Austria; Denmark - onshore; ..."), by first word.
 */
function placesByFirstWord(areas: readonly string[]): Map<string, Map<string, number>> {
  const places = new Map<string, Map<string, number>>();
  for (const area of new Set(areas)) {
    const items = [area, ...area.slice(area.indexOf(':') + 1).split(/[;.](?:\s|$)/u)];
    for (const item of items) {
      const words = tokenize(item);
      if (words.length === 0) continue;
      const byText = places.get(words[0]!) ?? places.set(words[0]!, new Map()).get(words[0]!)!;
      const text = words.join(' ');
      byText.set(text, (byText.get(text) ?? 0) + 1);
    }
  }
  return places;
}

function opened(places: Map<string, Map<string, number>>, words: readonly string[]): number {
  const text = words.join(' ');
  let count = 0;
  for (const [place, times] of places.get(words[0]!) ?? []) if (place === text || place.startsWith(`${text} `)) count += times;
  return count;
}

/**
 * Localized country names → the English words of the registry's areas for each country.
 * `areas`: the registry's area descriptions; `indexWords`: every word of the index.
 */
export function countryNames(areas: readonly string[], indexWords: ReadonlySet<string>): Map<string, readonly string[]> {
  const countries = createRequire(import.meta.url)('i18n-iso-countries') as Countries;
  const places = placesByFirstWord(areas);
  const english = countries.getNames('en', { select: 'all' });
  const target = new Map<string, readonly string[]>();
  for (const [country, names] of Object.entries(english)) {
    let best: readonly string[] | null = null;
    let bestCount = 0;
    const spellings = names.flatMap((name) => [name, name.replace(/^Saint /u, 'St ')]);
    for (const words of spellings.map(tokenize).filter((words) => words.length > 0)) {
      const count = opened(places, words);
      if (count > bestCount) [best, bestCount] = [words, count];
    }
    if (best) target.set(country, best);
  }
  const found = new Map<string, readonly string[] | null>();
  for (const language of countries.getSupportedLanguages()) {
    for (const [country, names] of Object.entries(countries.getNames(language, { select: 'all' }))) {
      const words = target.get(country);
      if (!words) continue;
      for (const name of names) {
        const phrase = tokenize(name).join(' ');
        if (phrase === '' || phrase === words.join(' ')) continue;
        if (!phrase.includes(' ') && indexWords.has(phrase) && (words.length > 1 || phrase.length < SHORT_NAME)) continue;
        const known = found.get(phrase);
        if (known === undefined) found.set(phrase, words);
        else if (known !== null && known.join(' ') !== words.join(' ')) found.set(phrase, null);
      }
    }
  }
  const names = new Map<string, readonly string[]>();
  for (const [phrase, words] of found) if (words) names.set(phrase, words);
  return names;
}
