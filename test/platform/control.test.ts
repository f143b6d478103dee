import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { callControl, ControlError, controlSocketPath, startControlServer } from '../../src/platform/control.js';
import { tempDir } from '../scratch.js';

async function roundTrip(dataDir: string): Promise<void> {
  const socket = controlSocketPath(dataDir);
  const stop = await startControlServer(socket, async (request) => {
    const { op } = request as { op: string };
    if (op === 'fail') throw new ControlError('refused politely');
    if (op === 'crash') throw new Error('internal detail');
    return { echoed: request };
  });
  try {
    assert.equal(statSync(socket).mode & 0o777, 0o600);
    assert.deepEqual(await callControl(socket, { op: 'hello', n: 1 }), { echoed: { op: 'hello', n: 1 } });
    await assert.rejects(callControl(socket, { op: 'fail' }), (error: Error) => error instanceof ControlError && error.message === 'refused politely');
    await assert.rejects(callControl(socket, { op: 'crash' }), ControlError);
  } finally {
    await stop();
  }
  await assert.rejects(callControl(socket, { op: 'hello' }), 'no server after stop');
}

test('commands reach the server through the socket in the data directory, and errors come back', async () => {
  const dir = tempDir();
  assert.equal(path.dirname(controlSocketPath(dir)), dir);
  await roundTrip(dir);
});

test('a data directory too deep for a Unix socket gets a short private socket path', async () => {
  const deep = path.join(tempDir(), 'a-very-long-directory-name-that-keeps-going'.repeat(3), 'data');
  const socket = controlSocketPath(deep);
  assert.ok(Buffer.byteLength(socket) <= 100, socket);
  assert.equal(controlSocketPath(deep), socket, 'the CLI finds the same socket');
  assert.notEqual(controlSocketPath(`${deep}2`), socket);
  await roundTrip(deep);
  assert.equal(statSync(path.dirname(socket)).mode & 0o777, 0o700);
});
