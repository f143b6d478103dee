import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

export interface Served {
  method: string;
  path: string;
  range: string | undefined;
  status: number;
  bytes: number;
}

/**
 * A forecast server stand-in (NOMADS, ECMWF open data) on 127.0.0.1, serving the files under
 * `root` at `prefix` with real Range support, logging what it sends, with faults on demand.
 */
export class ForecastServer {
  readonly requests: Served[] = [];
  /** Handles a request itself (a failure, a drop, silence) when it returns true. */
  intercept: ((request: IncomingMessage, response: ServerResponse) => boolean) | null = null;
  corrupt = false;
  ignoreRanges = false;
  private readonly server = createServer((request, response) => this.handle(request, response));

  constructor(
    private readonly root: string,
    private readonly prefix: string,
  ) {}

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${this.prefix}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  reset(): void {
    this.requests.length = 0;
    this.intercept = null;
    this.corrupt = false;
    this.ignoreRanges = false;
  }

  /** Bytes of GRIB files (not inventories or indexes) sent, and the ranges asked for them. */
  gribTraffic(): { bytes: number; ranges: (string | undefined)[] } {
    const grib = this.requests.filter((r) => !/\.(idx|index)$/.test(r.path) && r.method === 'GET');
    return { bytes: grib.reduce((sum, r) => sum + r.bytes, 0), ranges: grib.map((r) => r.range) };
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    const urlPath = decodeURIComponent(new URL(request.url!, 'http://localhost').pathname);
    const entry: Served = { method: request.method!, path: urlPath, range: request.headers.range, status: 0, bytes: 0 };
    this.requests.push(entry);
    if (this.intercept?.(request, response)) return;
    const send = (status: number, headers: Record<string, string | number>, body: Buffer) => {
      entry.status = status;
      entry.bytes = request.method === 'HEAD' ? 0 : body.length;
      response.writeHead(status, { 'Content-Length': body.length, ...headers });
      response.end(body);
    };
    const file = path.join(this.root, path.normalize(urlPath));
    if (!existsSync(file)) return send(404, {}, Buffer.from('Not Found'));
    const data = readFileSync(file);
    const match = /^bytes=(\d+)-(\d*)$/.exec(request.headers.range ?? '');
    if (!match || this.ignoreRanges) return send(200, { 'Accept-Ranges': 'bytes' }, data);
    const start = Number(match[1]);
    const end = Math.min(match[2] ? Number(match[2]) : data.length - 1, data.length - 1);
    if (start > end) return send(416, { 'Content-Range': `bytes */${data.length}` }, Buffer.alloc(0));
    const body = Buffer.from(data.subarray(start, end + 1));
    if (this.corrupt) body.write('XXXX');
    send(206, { 'Content-Range': `bytes ${start}-${end}/${data.length}` }, body);
  }
}
