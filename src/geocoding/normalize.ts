/**
 * Text as the geocoder compares it, so that a name is found however it is typed: lower case,
 * accents and other marks dropped (`Zürich` → `zurich`, `São Paulo` → `sao paulo`), letters that
 * decomposition leaves alone spelled out (`ß` → `ss`, `æ` → `ae`, `ø` → `o`, `ł` → `l`), and
 * everything that is neither a letter nor a digit a word break (`Saint-Étienne` → `saint etienne`,
 * `St.` → `st`). Apostrophes join (`L'Aquila` → `laquila`, `'s-Hertogenbosch` → `s hertogenbosch`)
 * since people type them or not. Scripts without case or marks (`東京`, `Москва`) pass through.
 * Street words people shorten (`Str.`, `St`, `Ave`) are read as the words they stand for, and
 * those as their short forms (streetForms).
 */

const SPELLED: Record<string, string> = {
  ß: 'ss',
  ẞ: 'ss',
  æ: 'ae',
  Æ: 'ae',
  œ: 'oe',
  Œ: 'oe',
  ø: 'o',
  Ø: 'o',
  ł: 'l',
  Ł: 'l',
  đ: 'd',
  Đ: 'd',
  ð: 'd',
  Ð: 'd',
  þ: 'th',
  Þ: 'th',
  ı: 'i',
  ħ: 'h',
  Ħ: 'h',
};
const SPELLED_PATTERN = new RegExp(`[${Object.keys(SPELLED).join('')}]`, 'gu');
const MARKS = /\p{M}+/gu;
const APOSTROPHES = /['’ʼ`´]/gu;
const BREAKS = /[^\p{L}\p{N}]+/gu;

/** The folded text: lower case, no marks, words separated by one space, no space at either end. */
export function fold(text: string): string {
  return text
    .replace(SPELLED_PATTERN, (letter) => SPELLED[letter]!)
    .normalize('NFKD')
    .replace(MARKS, '')
    .toLowerCase()
    .replace(APOSTROPHES, '')
    .replace(BREAKS, ' ')
    .trim();
}

/** The folded words of a text. */
export function words(text: string): string[] {
  const folded = fold(text);
  return folded === '' ? [] : folded.split(' ');
}

/** Folded street words and their short forms, each way (`Willow St` finds Willow Street). */
const STREET_WORDS: Record<string, readonly string[]> = {
  str: ['strasse'],
  strasse: ['str'],
  st: ['street'],
  street: ['st'],
  ave: ['avenue'],
  avenue: ['ave'],
  rd: ['road'],
  road: ['rd'],
  blvd: ['boulevard'],
  boulevard: ['blvd'],
  dr: ['drive'],
  drive: ['dr'],
  ln: ['lane'],
  lane: ['ln'],
  pl: ['platz', 'place'],
};

/** Short forms of street words: typed after a name (`Willow St`), they say the query is a street. */
const STREET_ABBREVIATIONS = new Set(['st', 'str', 'ave', 'rd', 'blvd', 'dr', 'ln']);

/**
 * Whether the query's words read as a street: a street word's short form after the first word
 * (`Willow St`, not `St Louis`, where it is Saint), or a German compound cut after `str`
 * (`Haydnstr`). Nobody shortens a town's name so: `Willow St` is a street even where a town is
 * named `Willow Street`.
 */
export function isStreetQuery(words: readonly string[]): boolean {
  return words.some((word, i) => (i > 0 && STREET_ABBREVIATIONS.has(word)) || (word.length > 3 && word.endsWith('str')));
}

/**
 * The other forms of a folded street word: `st` → `street`, and German compounds, written as one
 * word, by their ending (`haydnstr` → `haydnstrasse`, `haydnstrasse` → `haydnstr`).
 */
export function streetForms(word: string): readonly string[] {
  const forms = STREET_WORDS[word];
  if (forms) return forms;
  if (word.length > 3 && word.endsWith('str')) return [`${word}asse`];
  if (word.length > 7 && word.endsWith('strasse')) return [word.slice(0, -4)];
  return [];
}
