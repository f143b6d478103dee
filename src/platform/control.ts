import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Unix socket paths longer than this do not fit in `sockaddr_un` on Linux and macOS. */
const maxSocketPath = 100;

/**
 * A local control channel on a Unix socket (mode 0600). While `serve` owns the embedded
 * database, the CLI hands its administrative commands to the server through it. The socket lives
 * in the data directory or, when that path is too long for a socket, in a private (0700)
 * directory under the system's temporary directory, named after the data directory.
 */
export function controlSocketPath(dataDir: string): string {
  const inDataDir = path.join(dataDir, 'control.sock');
  if (Buffer.byteLength(inDataDir) <= maxSocketPath) return inDataDir;
  const digest = createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 16);
  return path.join(tmpdir(), `meridian-${process.getuid?.() ?? 'user'}`, `${digest}.sock`);
}

export class ControlError extends Error {}

export type ControlHandler = (request: unknown) => Promise<unknown>;

const maxRequestBytes = 64 * 1024;

export async function startControlServer(socketPath: string, handle: ControlHandler): Promise<() => Promise<void>> {
  const directory = path.dirname(socketPath);
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  const owner = statSync(directory);
  if (process.getuid && (owner.uid !== process.getuid() || (owner.mode & 0o022) !== 0)) {
    throw new ControlError(`${directory} must be owned by this user and writable by nobody else`);
  }
  rmSync(socketPath, { force: true });
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxRequestBytes) request.destroy();
      else chunks.push(chunk);
    });
    request.on('end', () => {
      const answer = (status: number, body: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(body));
      };
      let parsed: unknown;
      try {
        parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        answer(400, { error: 'Control request is not JSON' });
        return;
      }
      handle(parsed).then(
        (result) => answer(200, { result }),
        (error: Error) => answer(error instanceof ControlError ? 400 : 500, { error: error.message }),
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  chmodSync(socketPath, 0o600);
  return () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
      rmSync(socketPath, { force: true });
    });
}

export function callControl(socketPath: string, request: unknown): Promise<unknown> {
  const body = JSON.stringify(request);
  return new Promise((resolve, reject) => {
    const call = http.request(
      { socketPath, path: '/', method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          try {
            const answer = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { result?: unknown; error?: string };
            if (answer.error !== undefined) reject(new ControlError(answer.error));
            else resolve(answer.result);
          } catch (error) {
            reject(error);
          }
        });
      },
    );
    call.on('error', reject);
    call.end(body);
  });
}
