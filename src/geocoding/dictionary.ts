/**
 * The word dictionary of an index (the world's, place-index.ts, and each extract's,
 * extracts/extract-index.ts): every distinct folded word of the names, sorted (a prefix is a range), the
 * names each word is in (postings, in name order), each name's words as word numbers, and the
 * words' trigrams for typo tolerance (fuzzy.ts).
 */

export interface Dictionary {
  words: string[];
  nameWordStart: Uint32Array;
  nameWords: Uint32Array;
  postingStart: Uint32Array;
  postingName: Uint32Array;
  trigrams: string[];
  trigramStart: Uint32Array;
  trigramWord: Uint32Array;
}

/** What matching a word needs: the sorted words and their trigrams. */
export type WordList = Pick<Dictionary, 'words' | 'trigrams' | 'trigramStart' | 'trigramWord'>;

/** The dictionary of names given as their folded words, name by name; `extraWords` are words that name no entry but are searched as context (a street's place). */
export function buildDictionary(nameWordLists: readonly string[][], extraWords: Iterable<string> = []): Dictionary {
  const distinct = [...new Set([...nameWordLists.flat(), ...extraWords])].sort();
  const wordNumber = new Map(distinct.map((word, i) => [word, i]));
  const nameWordStart = new Uint32Array(nameWordLists.length + 1);
  const flatWords: number[] = [];
  const counts = new Uint32Array(distinct.length);
  nameWordLists.forEach((list, name) => {
    nameWordStart[name] = flatWords.length;
    const unique = [...new Set(list.map((word) => wordNumber.get(word)!))];
    flatWords.push(...list.map((word) => wordNumber.get(word)!));
    for (const word of unique) counts[word]!++;
  });
  nameWordStart[nameWordLists.length] = flatWords.length;
  const postingStart = prefixSums(counts);
  const postingName = new Uint32Array(postingStart[distinct.length]!);
  const fill = postingStart.slice(0, distinct.length);
  nameWordLists.forEach((list, name) => {
    for (const word of new Set(list.map((w) => wordNumber.get(w)!))) postingName[fill[word]!++] = name;
  });

  const byTrigram = new Map<string, number[]>();
  distinct.forEach((word, i) => {
    for (const trigram of new Set(trigramsOf(word))) {
      const list = byTrigram.get(trigram);
      if (list) list.push(i);
      else byTrigram.set(trigram, [i]);
    }
  });
  const trigrams = [...byTrigram.keys()].sort();
  return {
    words: distinct,
    nameWordStart,
    nameWords: Uint32Array.from(flatWords),
    postingStart,
    postingName,
    trigrams,
    trigramStart: prefixSums(Uint32Array.from(trigrams.map((t) => byTrigram.get(t)!.length))),
    trigramWord: Uint32Array.from(trigrams.flatMap((t) => byTrigram.get(t)!)),
  };
}

/** The trigrams of a word, padded so that its first and last letters count: `zur` → ` zu`, `zur`, `ur `. */
export function trigramsOf(word: string): string[] {
  const letters = [...` ${word} `];
  const out: string[] = [];
  for (let i = 0; i + 3 <= letters.length; i++) out.push(letters.slice(i, i + 3).join(''));
  return out;
}

export function prefixSums(counts: Uint32Array): Uint32Array {
  const starts = new Uint32Array(counts.length + 1);
  for (let i = 0; i < counts.length; i++) starts[i + 1] = starts[i]! + counts[i]!;
  return starts;
}

/** The first word number whose word is ≥ `text` (binary search in the sorted dictionary). */
export function lowerBound(words: readonly string[], text: string): number {
  let lo = 0;
  let hi = words.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (words[mid]! < text) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * How well the query's words name one name: each query word's best match quality among the name's
 * words goes into `quality` (cleared first; `matches[i]` maps a word number to its quality for
 * query word i), and the count of the name's words that matched any query word is returned.
 */
export function matchNameWords(dictionary: Pick<Dictionary, 'nameWordStart' | 'nameWords'>, name: number, matches: readonly { get(word: number): number | undefined }[], quality: Float64Array): number {
  quality.fill(0);
  let nameWordsMatched = 0;
  for (let p = dictionary.nameWordStart[name]!; p < dictionary.nameWordStart[name + 1]!; p++) {
    const w = dictionary.nameWords[p]!;
    let matchedHere = false;
    for (let i = 0; i < matches.length; i++) {
      const q = matches[i]!.get(w);
      if (q !== undefined) {
        matchedHere = true;
        if (q > quality[i]!) quality[i] = q;
      }
    }
    if (matchedHere) nameWordsMatched++;
  }
  return nameWordsMatched;
}
