/**
 * Typo tolerance: the words of the dictionary within a small edit distance of a typed word
 * (a letter missing, added, changed, or two letters swapped: `Zruich`, `Wahsington`, `Zuerich`).
 * Candidates are the words sharing enough trigrams with it (an edit changes at most three of a
 * word's trigrams, a swap four), and each is then checked with the restricted Damerau-Levenshtein distance.
 * Words of 4 letters or more may have one edit, of 8 or more two (keeping half their trigrams);
 * shorter words none, since nearly every short word is one edit away from another place's name.
 */

import { lowerBound, trigramsOf, type WordList } from './dictionary.js';

/** Edits allowed in a word of this many letters. */
export function allowedEdits(length: number): number {
  return length >= 8 ? 2 : length >= 4 ? 1 : 0;
}

/** Restricted Damerau-Levenshtein distance between a and b, or `max + 1` when it is over `max`. */
export function editDistance(a: string, b: string, max: number): number {
  const x = [...a];
  const y = [...b];
  if (Math.abs(x.length - y.length) > max) return max + 1;
  const width = y.length + 1;
  let before = new Array<number>(width).fill(0);
  let previous = Array.from({ length: width }, (_, j) => j);
  let current = new Array<number>(width).fill(0);
  for (let i = 1; i <= x.length; i++) {
    current[0] = i;
    let rowMin = i;
    for (let j = 1; j <= y.length; j++) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      let value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1]) value = Math.min(value, before[j - 2]! + 1);
      current[j] = value;
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin > max) return max + 1;
    [before, previous, current] = [previous, current, before];
  }
  return Math.min(previous[y.length]!, max + 1);
}

/** Shared-trigram counts per word, reused between calls (the serving thread runs one search at a time). */
let counts = new Uint16Array(0);

/** The dictionary words within the allowed edits of `word` (not the word itself), with their distance. */
export function similarWords(index: WordList, word: string): Map<number, number> {
  const found = new Map<number, number>();
  const length = [...word].length;
  const max = allowedEdits(length);
  if (max === 0) return found;
  if (counts.length < index.words.length) counts = new Uint16Array(index.words.length);
  const grams = [...new Set(trigramsOf(word))];
  const touched: number[] = [];
  for (const gram of grams) {
    const at = lowerBound(index.trigrams, gram);
    if (index.trigrams[at] !== gram) continue;
    for (let p = index.trigramStart[at]!; p < index.trigramStart[at + 1]!; p++) {
      const w = index.trigramWord[p]!;
      if (counts[w] === 0) touched.push(w);
      counts[w]!++;
    }
  }
  // An edit changes at most three trigrams, a swap of two letters four; two edits must leave at
  // least half of them (else nearly every long word would be checked).
  const needed = Math.max(1, grams.length - 4 * max, max === 2 ? Math.ceil(grams.length / 2) : 0);
  for (const w of touched) {
    if (counts[w]! >= needed) {
      const candidate = index.words[w]!;
      if (candidate !== word) {
        const distance = editDistance(word, candidate, max);
        if (distance <= max) found.set(w, distance);
      }
    }
    counts[w] = 0;
  }
  return found;
}
