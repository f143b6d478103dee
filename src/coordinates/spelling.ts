/**
 * Typo tolerance of search: a term that matches no word of the index is looked up as the words it
 * is one edit away from (one letter inserted, dropped, replaced, or two neighbours swapped:
 * Damerau's single edits, which cover most typing slips). As terms match word prefixes, the
 * term may also be one edit away from the start of a word (`switzerlnd`, `mercatr`, `swizt`).
 */

/** Shortest term tolerated: shorter ones are one edit away from too many words. */
export const MIN_TYPO_LENGTH = 4;

/** Whether `a` and `b` are equal or one Damerau edit apart. */
export function withinOneEdit(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  if (i === a.length && i === b.length) return true;
  if (a.length === b.length) {
    // A replacement, or two neighbours swapped.
    if (a.slice(i + 1) === b.slice(i + 1)) return true;
    return a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
  }
  // One letter more in the longer one.
  return a.length > b.length ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}

/** Whether `term` is one edit away from `word` or from one of its starts. */
export function typoOf(term: string, word: string): boolean {
  if (word.length + 1 < term.length) return false;
  for (let length = term.length - 1; length <= term.length + 1; length++) {
    if (length <= word.length && withinOneEdit(term, word.slice(0, length))) return true;
  }
  return false;
}
