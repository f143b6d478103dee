/**
 * What the listener does with requests framed in ways no route expects (issue 31, item 6): an
 * HTTP/1.1 request without Host, a body in a transfer coding other than chunked or in a content
 * coding (a 400 before: its bytes were parsed as JSON), and many
 * connections that never finish their headers. Every refusal is the documented error body.
 *
 * @oneDatabase the database only checks the service token; what is tested is Node's HTTP layer.
 */

import assert from 'node:assert/strict';
import net from 'node:net';
import { Readable } from 'node:stream';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { after, before, test } from 'node:test';
import { parseRaw, rawRequest } from '../scratch.js';
import { newAccount, startTestServer, testConfig, type TestServer } from '../helpers.js';

/** A cap the test reaches on purpose, and a headers time limit it cannot reach by load alone. */
const cap = 10;

let server: TestServer;
let port: number;
let auth: string;

before(async () => {
  server = await startTestServer(testConfig({ http: { maxConnectionsAwaitingHeaders: cap, headersTimeoutMs: 600_000 } }));
  port = Number(new URL((await server.server.listen()).public).port);
  ({ auth } = await newAccount(server.meridian));
});
after(() => server.close());

const raw = (request: string) => rawRequest(port, request);
const parse = parseRaw;

/** The one message of a documented error body, or a failed assertion. */
function errorMessage(response: { headers: string; body: string }): string {
  assert.ok(response.headers.includes('content-type: application/json'), response.headers);
  const body = JSON.parse(response.body) as { errors: { message: string }[] };
  assert.equal(body.errors.length, 1);
  return body.errors[0]!.message;
}

test('an HTTP/1.1 request without Host gets 400 with the documented body; HTTP/1.0 may omit it', async () => {
  const missing = parse(await raw('GET /health HTTP/1.1\r\nConnection: close\r\n\r\n'));
  assert.equal(missing.status, 400);
  assert.equal(errorMessage(missing), 'Missing Host header: HTTP/1.1 requests must send one');
  const old = await raw('GET /health HTTP/1.0\r\n\r\n');
  assert.match(old, /^HTTP\/1\.1 200 /);
});

test('a body in a transfer coding other than chunked is 415 with the documented body, and nothing is created', async () => {
  const before = (await server.server.admin.inject({ method: 'GET', url: '/v1/api_keys', headers: { authorization: auth } })).json() as { total_count: number };
  const body = '{"name":"plain json sent as gzip"}';
  const chunked = `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
  for (const coding of ['gzip, chunked', 'deflate, chunked', 'GZIP,chunked', 'x-custom, chunked']) {
    const response = parse(
      await raw(`POST /v1/api_keys HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\nContent-Type: application/json\r\nTransfer-Encoding: ${coding}\r\nConnection: close\r\n\r\n${chunked}`),
    );
    assert.equal(response.status, 415, coding);
    assert.equal(errorMessage(response), 'Unsupported Transfer-Encoding: send the body as it is, or chunked', coding);
  }
  const plain = parse(
    await raw(`POST /v1/api_keys HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${chunked}`),
  );
  assert.equal(plain.status, 200, 'chunked alone is read');
  const after = (await server.server.admin.inject({ method: 'GET', url: '/v1/api_keys', headers: { authorization: auth } })).json() as { total_count: number };
  assert.equal(after.total_count, before.total_count + 1, 'only the chunked request created a key');
});

test('a body in a content coding is 415 with the documented body and Accept-Encoding: identity, and nothing is created', async () => {
  const url = `http://127.0.0.1:${port}/v1/api_keys`;
  const count = async () => ((await server.server.admin.inject({ method: 'GET', url: '/v1/api_keys', headers: { authorization: auth } })).json() as { total_count: number }).total_count;
  const before = await count();
  const json = '{"name":"json sent in a content coding"}';
  // Each body is truly in its coding (node:zlib), so a server that decoded it would create a key.
  const bodies: [string, Buffer | string][] = [
    ['gzip', gzipSync(json)],
    ['GZIP', gzipSync(json)],
    ['x-gzip', gzipSync(json)],
    ['deflate', deflateSync(json)],
    ['br', brotliCompressSync(json)],
    ['identity, gzip', gzipSync(json)],
    ['x-custom', json],
  ];
  for (const [coding, body] of bodies) {
    const response = await fetch(url, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json', 'content-encoding': coding }, body });
    assert.equal(response.status, 415, coding);
    assert.equal(response.headers.get('accept-encoding'), 'identity', coding);
    assert.deepEqual(await response.json(), { errors: [{ message: 'Unsupported Content-Encoding: send the body as it is (identity)' }] }, coding);
  }
  // Chunked, with no Content-Length.
  const streamed = await fetch(url, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json', 'content-encoding': 'gzip' },
    body: Readable.toWeb(Readable.from([gzipSync(json)])) as ReadableStream,
    duplex: 'half',
  } as RequestInit);
  assert.equal(streamed.status, 415, 'chunked gzip');
  assert.equal(await count(), before, 'no coded body created a key');
  for (const coding of ['identity', 'Identity']) {
    const plain = await fetch(url, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json', 'content-encoding': coding }, body: json });
    assert.equal(plain.status, 200, coding);
  }
  // A request without content names no coding to decode: a GET with the header is served.
  const listed = await fetch(url, { headers: { authorization: auth, 'content-encoding': 'gzip' } });
  assert.equal(listed.status, 200);
  assert.equal(await count(), before + 2);
});

/**
 * A connection that sends the start of a request and then waits for the test to finish it; it
 * resolves with what the server answered once the server closes it.
 */
function slowRequest(): { connected: Promise<void>; finish(): void; answer: Promise<string> } {
  const socket = net.connect(port, '127.0.0.1');
  const connected = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  void connected.then(() => socket.write('GET /health HTTP/1.1\r\nHost: x\r\n'));
  let response = '';
  socket.on('data', (chunk) => (response += chunk.toString('latin1')));
  const answer = new Promise<string>((resolve) => socket.once('close', () => resolve(response)));
  socket.on('error', () => {});
  return { connected, finish: () => socket.writable && socket.write('Connection: close\r\n\r\n'), answer };
}

test('connections still sending headers are bounded: past the cap the one waiting longest is closed with 408', async () => {
  const slow = Array.from({ length: 50 }, slowRequest);
  await Promise.all(slow.map((request) => request.connected));
  // Accepted after the 50: answered while they still hold their headers back.
  const health = parse(await raw('GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
  assert.equal(health.status, 200, 'the server answers while slow connections are held');
  for (const request of slow) request.finish();
  const answers = (await Promise.all(slow.map((request) => request.answer))).map(parse);
  const evicted = answers.filter((response) => response.status === 408);
  const served = answers.filter((response) => response.status === 200);
  assert.equal(evicted.length + served.length, answers.length, `every connection was evicted or served: ${answers.map((answer) => answer.status)}`);
  for (const response of evicted) assert.equal(errorMessage(response), 'Request timeout');
  assert.ok(served.length <= cap, `${served.length} connections outlived the cap of ${cap}`);
  // The oldest go first: those still served are the last ones opened.
  const firstServed = answers.findIndex((response) => response.status === 200);
  assert.ok(answers.slice(firstServed).every((response) => response.status === 200), 'the oldest connections were closed first');
});
