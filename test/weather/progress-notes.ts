import type { Progress } from '../../src/platform/progress.js';

/** A Progress that keeps the notes (retries, runs passed over, steps written) for a test to read. */
export function notesInto(notes: string[]): Progress {
  return { phase() {}, update() {}, note: (message) => void notes.push(message), end() {} };
}
