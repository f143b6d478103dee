/**
 * Typo tolerance of search: a term that matches no word of the index is looked up as the words it
 * is one edit away from (one letter inserted, dropped, replaced, or two neighbours swapped:
 * Damerau's single edits, which cover most typing slips). As terms match word prefixes, the
 * term may also be one edit away from the start of a word (`switzerlnd`, `mercatr`, `swizt`).
 * The checks compare characters in place: they run over every word of the index (tens of
 * thousands) for such a term, so they allocate nothing.
 */

/** Shortest term tolerated: shorter ones are one edit away from too many words. */
export const MIN_TYPO_LENGTH = 4;

/** Whether `a[i..)` and `b[j..)` have the same `count` characters. */
function same(a: string, i: number, b: string, j: number, count: number): boolean {
  for (let k = 0; k < count; k++) if (a.charCodeAt(i + k) !== b.charCodeAt(j + k)) return false;
  return true;
}

/** Whether `a` and the first `length` characters of `b` are equal or one Damerau edit apart. */
function oneEditFromStart(a: string, b: string, length: number): boolean {
  const n = a.length;
  if (n - length > 1 || length - n > 1) return false;
  let i = 0;
  while (i < n && i < length && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === n && i === length) return true;
  if (n === length) {
    // A replacement, or two neighbours swapped.
    if (same(a, i + 1, b, i + 1, n - i - 1)) return true;
    return i + 1 < n && a.charCodeAt(i) === b.charCodeAt(i + 1) && a.charCodeAt(i + 1) === b.charCodeAt(i) && same(a, i + 2, b, i + 2, n - i - 2);
  }
  // One letter more in the longer one.
  return n > length ? same(a, i + 1, b, i, length - i) : same(a, i, b, i + 1, n - i);
}

/** Whether `a` and `b` are equal or one Damerau edit apart. */
export const withinOneEdit = (a: string, b: string): boolean => oneEditFromStart(a, b, b.length);

/** Whether `term` is one edit away from `word` or from one of its starts. */
export function typoOf(term: string, word: string): boolean {
  // One edit leaves one of the first two letters where it was or moves it by one: a cheap rejection of most words.
  const t0 = term.charCodeAt(0);
  const t1 = term.charCodeAt(1);
  const w0 = word.charCodeAt(0);
  const w1 = word.charCodeAt(1);
  if (w0 !== t0 && w0 !== t1 && w1 !== t0 && w1 !== t1) return false;
  for (let length = term.length - 1; length <= term.length + 1 && length <= word.length; length++) {
    if (oneEditFromStart(term, word, length)) return true;
  }
  return false;
}
