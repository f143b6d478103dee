/**
 * Scratch space for tests that need no Meridian: a temporary directory, a free TCP port, a seeded
 * random generator. Kept apart from helpers.ts, which opens servers and databases, so that
 * importing these does not make a test one that scripts/database-tests.mjs runs on both databases.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export function tempDir(): string {
  return mkdtempSync(path.join(tmpdir(), 'meridian-test-'));
}

/**
 * A TCP port nobody listens on at the moment, for a process that binds it later, chosen below the
 * kernel's range of ports for outgoing connections (`ip_local_port_range`): a port from that range
 * may be taken meanwhile as the local end of another test's connection (EADDRINUSE), one below it
 * only by another listener asking for it by number.
 */
export async function freePort(): Promise<number> {
  const low = 10_000;
  const high = Math.max(low + 1000, firstEphemeralPort());
  for (;;) {
    const port = low + Math.floor(Math.random() * (high - low));
    const probe = createServer();
    const bound = await new Promise<boolean>((resolve) => {
      probe.once('error', () => resolve(false));
      probe.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (!bound) continue;
    await new Promise((resolve) => probe.close(resolve));
    return port;
  }
}

/** The lowest local port the kernel gives outgoing connections (Linux), or its usual default. */
function firstEphemeralPort(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(low)) return low;
  } catch {
    // not Linux
  }
  return 32768;
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

/** The value of one sample of a Prometheus scrape (0 when the series is absent), e.g. `meridian_key_refusals_total{reason="missing"}`. */
export function sample(scrape: string, series: string): number {
  const line = scrape.split('\n').find((candidate) => candidate.startsWith(series + ' '));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}
