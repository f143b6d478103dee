/**
 * A bound on the connections still sending the header section of their first request, per
 * listener. Node closes each one after `headersTimeout`, but until then any number of them may be
 * held open a few bytes at a time (slowloris), each holding a file descriptor. Past the cap the
 * connection that has waited longest is closed with 408: a new client always gets its chance, and
 * a client that sends its headers at once is never the oldest for long. Connections idle between
 * keep-alive requests are not counted: they are a load balancer's pool, bounded by the keep-alive
 * timeout, and closing them under load is what turns into a proxy's 502s.
 */

import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { rawErrorResponse } from '../errors.js';

export function boundConnectionsAwaitingHeaders(server: Server, max: number): void {
  // A Set keeps insertion order: its first entry has waited longest.
  const awaiting = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    awaiting.add(socket);
    socket.once('close', () => awaiting.delete(socket));
    if (awaiting.size <= max) return;
    const [oldest] = awaiting;
    awaiting.delete(oldest!);
    if (oldest!.writable) oldest!.end(rawErrorResponse(408, 'Request timeout'));
    oldest!.destroy();
  });
  server.on('request', (request: { socket: Socket }) => awaiting.delete(request.socket));
}
