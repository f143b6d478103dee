/**
 * Right-to-left text put in the order it is drawn, line by line, as MapLibre GL JS does it
 * (src/symbol/bidi.ts, BSD-3-Clause) with the Unicode Bidirectional Algorithm of npm `bidi-js`:
 * embedding levels for the whole label, then each line (broken where layout chose, and wherever a
 * paragraph ends) reordered by rules L1 and L2 a grapheme cluster at a time, so that a letter and
 * the marks written on it move together; brackets in right-to-left runs are mirrored, and the
 * invisible directional controls dropped.
 */

import bidiModule, { type Bidi, type BidiCharTypeName } from 'bidi-js';

// bidi-js is CommonJS whose only export is the factory; its typings declare it as an ES default export.
const bidi = (bidiModule as unknown as () => Bidi)();

/** Hebrew, Arabic, Syriac, Thaana, N'Ko and the other scripts written right to left (MapLibre's codePointIsInRTLScript). */
const RTL_SCRIPT =
  /[\u0591-\u05C7\u05D0-\u05EA\u05EF-\u05F4\u0600-\u0604\u0606-\u060B\u060D-\u061A\u061C-\u061E\u0620-\u063F\u0641-\u064A\u0656-\u066F\u0671-\u06DC\u06DE-\u070D\u070F-\u074A\u074D-\u07B1\u07C0-\u07FA\u07FD-\u082D\u0830-\u083E\u0840-\u085B\u085E\u0860-\u086A\u0870-\u0891\u0897-\u08E1\u08E3-\u08FF\uFB1D-\uFB36\uFB38-\uFB3C\uFB3E\uFB40\uFB41\uFB43\uFB44\uFB46-\uFD3D\uFD40-\uFDCF\uFDF0-\uFDFF\uFE70-\uFE74\uFE76-\uFEFC]|\uD802[\uDC00-\uDC05\uDC08\uDC0A-\uDC35\uDC37\uDC38\uDC3C\uDC3F-\uDC55\uDC57-\uDC9E\uDCA7-\uDCAF\uDCE0-\uDCF2\uDCF4\uDCF5\uDCFB-\uDD1B\uDD1F-\uDD39\uDD3F-\uDD59\uDD80-\uDDB7\uDDBC-\uDDCF\uDDD2-\uDE03\uDE05\uDE06\uDE0C-\uDE13\uDE15-\uDE17\uDE19-\uDE35\uDE38-\uDE3A\uDE3F-\uDE48\uDE50-\uDE58\uDE60-\uDE9F\uDEC0-\uDEE6\uDEEB-\uDEF6\uDF00-\uDF35\uDF39-\uDF55\uDF58-\uDF72\uDF78-\uDF91\uDF99-\uDF9C\uDFA9-\uDFAF]|\uD803[\uDC00-\uDC48\uDC80-\uDCB2\uDCC0-\uDCF2\uDCFA-\uDD27\uDD30-\uDD39\uDD40-\uDD65\uDD69-\uDD85\uDD8E\uDD8F\uDE60-\uDE7E\uDE80-\uDEA9\uDEAB-\uDEAD\uDEB0\uDEB1\uDEC2-\uDEC7\uDED0-\uDED8\uDEFA-\uDF27\uDF30-\uDF59\uDF70-\uDF89\uDFB0-\uDFCB\uDFE0-\uDFF6]|\uD83A[\uDC00-\uDCC4\uDCC7-\uDCD6\uDD00-\uDD4B\uDD50-\uDD59\uDD5E\uDD5F]|\uD83B[\uDE00-\uDE03\uDE05-\uDE1F\uDE21\uDE22\uDE24\uDE27\uDE29-\uDE32\uDE34-\uDE37\uDE39\uDE3B\uDE42\uDE47\uDE49\uDE4B\uDE4D-\uDE4F\uDE51\uDE52\uDE54\uDE57\uDE59\uDE5B\uDE5D\uDE5F\uDE61\uDE62\uDE64\uDE67-\uDE6A\uDE6C-\uDE72\uDE74-\uDE77\uDE79-\uDE7C\uDE7E\uDE80-\uDE89\uDE8B-\uDE9B\uDEA1-\uDEA3\uDEA5-\uDEA9\uDEAB-\uDEBB\uDEF0\uDEF1]/;

/** The characters that steer the algorithm without being drawn. */
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** Types rule L1 hands back to the paragraph's direction at the end of a line… */
const NEUTRAL_AT_END_OF_LINE = new Set<BidiCharTypeName>(['WS', 'FSI', 'LRI', 'RLI', 'PDI']);
/** …and wherever they appear. */
const ALWAYS_RESET = new Set<BidiCharTypeName>(['S', 'B']);

/** Whether any character of the text belongs to a right-to-left script. */
export function containsRtlText(text: string): boolean {
  return RTL_SCRIPT.test(text);
}

let segmenter: Intl.Segmenter | undefined;

/**
 * Grapheme clusters, joined where CLDR's cursor rules split one unit of writing (after an invisible
 * stacker, before a spacing mark), as MapLibre's toGraphemes does.
 */
function graphemes(text: string): string[] {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  const clusters: string[] = [];
  for (const { segment } of segmenter.segment(text)) {
    const last = clusters.length - 1;
    if (last >= 0 && combines(clusters[last]!, segment)) clusters[last] += segment;
    else clusters.push(segment);
  }
  return clusters;
}

function combines(former: string, latter: string): boolean {
  return /(?:[\u1039\u17D2\u1A60\u1BAB\u200D\uAAF6]|\uD802\uDE3F|\uD804[\uDD33\uDFD0]|\uD806[\uDD3E\uDE47\uDE99]|\uD807[\uDD45\uDD97\uDF42])$/.test(former) || /^\p{gc=Mc}/u.test(latter);
}

interface Cluster {
  /** Where the cluster starts in the label, UTF-16 code units. */
  index: number;
  text: string;
  level: number;
}

/** Rule L1: whitespace at the end of a line, and segment and paragraph separators, take the paragraph's level. */
function resetTrailingNeutrals(clusters: Cluster[], paragraphLevel: number): void {
  let trailing = true;
  for (let i = clusters.length - 1; i >= 0; i--) {
    const type = bidi.getBidiCharTypeName(clusters[i]!.text[0]!);
    if (ALWAYS_RESET.has(type)) {
      clusters[i]!.level = paragraphLevel;
      trailing = true;
    } else if (trailing && NEUTRAL_AT_END_OF_LINE.has(type)) {
      clusters[i]!.level = paragraphLevel;
    } else {
      trailing = false;
    }
  }
}

/** Rule L2: from the highest level down to the lowest odd one, every run at that level or higher reversed. */
function reorder(clusters: Cluster[], paragraphLevel: number): Cluster[] {
  let highest = paragraphLevel;
  let lowestOdd = Infinity;
  for (const { level } of clusters) {
    if (level > highest) highest = level;
    if ((level | 1) < lowestOdd) lowestOdd = level | 1;
  }
  const ordered = clusters.slice();
  for (let level = highest; level >= lowestOdd; level--) {
    for (let start = 0; start < ordered.length; start++) {
      if (ordered[start]!.level < level) continue;
      let end = start;
      while (end + 1 < ordered.length && ordered[end + 1]!.level >= level) end++;
      for (let i = start, j = end; i < j; i++, j--) [ordered[i], ordered[j]] = [ordered[j]!, ordered[i]!];
      start = end;
    }
  }
  return ordered;
}

/** A line in visual order, with the label's code unit each of its code units came from. */
export interface VisualLine {
  readonly text: string;
  readonly sourceIndices: readonly number[];
}

/**
 * The label's lines in the order they are drawn. `breaks` are code unit offsets into `text` where
 * layout broke it; a line also ends wherever a paragraph does.
 */
export function visualLines(text: string, breaks: readonly number[]): VisualLine[] {
  const { levels, paragraphs } = bidi.getEmbeddingLevels(text);
  const points = [...breaks, ...paragraphs.map((paragraph) => paragraph.start)].filter((point) => point > 0 && point < text.length);
  const bounds = [...new Set([0, ...points, text.length])].sort((a, b) => a - b);
  const lines: VisualLine[] = [];
  for (let i = 0; i + 1 < bounds.length; i++) {
    const [start, end] = [bounds[i]!, bounds[i + 1]!];
    const paragraphLevel = paragraphs.find((paragraph) => start >= paragraph.start && start <= paragraph.end)?.level ?? 0;
    const clusters: Cluster[] = [];
    let index = start;
    for (const cluster of graphemes(text.slice(start, end))) {
      clusters.push({ index, text: cluster, level: levels[index]! });
      index += cluster.length;
    }
    resetTrailingNeutrals(clusters, paragraphLevel);
    let line = '';
    const sourceIndices: number[] = [];
    for (const cluster of reorder(clusters, paragraphLevel)) {
      if (BIDI_CONTROLS.test(cluster.text)) continue;
      const drawn = cluster.level % 2 === 0 ? cluster.text : (bidi.getMirroredCharacter(cluster.text) ?? cluster.text);
      line += drawn;
      for (let k = 0; k < drawn.length; k++) sourceIndices.push(cluster.index);
    }
    lines.push({ text: line, sourceIndices });
  }
  return lines;
}
