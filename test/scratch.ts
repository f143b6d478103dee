/**
 * Scratch space for tests that need no Meridian: a temporary directory, a free TCP port, a seeded
 * random generator. Kept apart from helpers.ts, which opens servers and databases, so that
 * importing these does not make a test one that scripts/database-tests.mjs runs on both databases.
 */
import { mkdtempSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export function tempDir(): string {
  return mkdtempSync(path.join(tmpdir(), 'meridian-test-'));
}

/** A TCP port nobody listens on at the moment. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** mulberry32: a small seeded generator in [0, 1), so that "random" test points are the same on every run. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Sends bytes to a local port as they are and returns the raw response once the server closes the connection. */
export function rawRequest(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    let response = '';
    socket.on('data', (chunk) => (response += chunk.toString('latin1')));
    socket.on('close', () => resolve(response));
    socket.on('error', reject);
  });
}

/** A raw HTTP/1.1 response's status, header section (lower case) and body. */
export function parseRaw(response: string): { status: number; headers: string; body: string } {
  const [head, ...rest] = response.split('\r\n\r\n');
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head!)?.[1]), headers: head!.toLowerCase(), body: rest.join('\r\n\r\n') };
}
