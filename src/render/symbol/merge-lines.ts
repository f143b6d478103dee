/**
 * MapLibre's mergeLines (src/symbol/merge_lines.ts), run on a tile's features before line labels
 * are anchored: lines with the same label text that meet end to start (the same tile point) become
 * one line, so that a road cut into segments at every junction is labelled along its whole length
 * rather than segment by segment. Only each feature's first line takes part, as in MapLibre.
 */

import type { Point } from './anchor.js';

export interface MergeCandidate {
  /** The label text; null or empty lines are never merged. */
  readonly text: string | null;
  readonly geometry: readonly (readonly Point[])[];
}

interface Chunk {
  readonly points: readonly Point[];
  next: Chunk | null;
}

interface Merged {
  readonly index: number;
  first: Chunk;
  last: Chunk;
  dropped: boolean;
}

function key(text: string, line: Merged, right: boolean): string {
  const points = right ? line.last.points : line.first.points;
  const point = right ? points[points.length - 1]! : points[0]!;
  return `${text}:${point.x}:${point.y}`;
}

function join(line: Merged): Point[] {
  const points = [...line.first.points];
  for (let chunk = line.first.next; chunk; chunk = chunk.next) points.push(...chunk.points.slice(1));
  return points;
}

/**
 * The geometry of each candidate after merging, in the same order: a feature whose line joined an
 * earlier one's gets null (it is labelled as part of that one), the others their geometry with the
 * first line extended by what joined it.
 */
export function mergeLines(candidates: readonly MergeCandidate[]): (readonly (readonly Point[])[] | null)[] {
  const leftIndex = new Map<string, number>();
  const rightIndex = new Map<string, number>();
  const merged: Merged[] = [];
  const owner = new Map<number, Merged>();

  const fromRight = (leftKey: string, rightKey: string, line: Merged): number => {
    const i = rightIndex.get(leftKey)!;
    rightIndex.delete(leftKey);
    rightIndex.set(rightKey, i);
    const target = merged[i]!;
    target.last.next = line.first;
    target.last = line.last;
    return i;
  };
  const fromLeft = (leftKey: string, rightKey: string, line: Merged): number => {
    const i = leftIndex.get(rightKey)!;
    leftIndex.delete(rightKey);
    leftIndex.set(leftKey, i);
    const target = merged[i]!;
    line.last.next = target.first;
    target.first = line.first;
    return i;
  };

  candidates.forEach((candidate, index) => {
    const first = candidate.geometry[0];
    if (!first || first.length === 0) return;
    const chunk: Chunk = { points: first, next: null };
    const line: Merged = { index, first: chunk, last: chunk, dropped: false };
    const text = candidate.text;
    if (!text) {
      merged.push(line);
      owner.set(index, line);
      return;
    }
    const leftKey = key(text, line, false);
    const rightKey = key(text, line, true);
    if (rightIndex.has(leftKey) && leftIndex.has(rightKey) && rightIndex.get(leftKey) !== leftIndex.get(rightKey)) {
      // Lines with the same text at both ends: all three become one.
      const j = fromLeft(leftKey, rightKey, line);
      const i = fromRight(leftKey, rightKey, merged[j]!);
      leftIndex.delete(leftKey);
      rightIndex.delete(rightKey);
      rightIndex.set(key(text, merged[i]!, true), i);
      merged[j]!.dropped = true;
    } else if (rightIndex.has(leftKey)) {
      fromRight(leftKey, rightKey, line);
    } else if (leftIndex.has(rightKey)) {
      fromLeft(leftKey, rightKey, line);
    } else {
      const i = merged.push(line) - 1;
      owner.set(index, line);
      leftIndex.set(leftKey, i);
      rightIndex.set(rightKey, i);
    }
  });

  return candidates.map((candidate, index) => {
    const line = owner.get(index);
    if (!line) return candidate.geometry[0]?.length ? null : candidate.geometry;
    if (line.dropped) return null;
    return line.first.next ? [join(line), ...candidate.geometry.slice(1)] : candidate.geometry;
  });
}
