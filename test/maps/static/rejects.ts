import assert from 'node:assert/strict';
import { ApiError } from '../../../src/platform/errors.js';

/** Asserts that `run` throws a ApiError with this status and message (exact text or pattern). */
export function rejects(run: () => unknown, status: number, message: RegExp | string): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof ApiError, String(error));
    assert.equal(error.statusCode, status);
    if (typeof message === 'string') assert.equal(error.message, message);
    else assert.match(error.message, message);
    return true;
  });
}
