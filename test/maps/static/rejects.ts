import assert from 'node:assert/strict';
import { MapsError } from '../../../src/maps/errors.js';

/** Asserts that `run` throws a MapsError with this status and message (exact text or pattern). */
export function rejects(run: () => unknown, status: number, message: RegExp | string): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof MapsError, String(error));
    assert.equal(error.status, status);
    if (typeof message === 'string') assert.equal(error.message, message);
    else assert.match(error.message, message);
    return true;
  });
}
