import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import net, { isIP, type AddressInfo, type LookupFunction } from 'node:net';
import { after, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { addressRange, HttpClient, HttpClientError, isPrivateAddress, retryAfterMs, type HttpClientOptions, type RetryEvent } from '../../../src/platform/http/http-client.js';
import { until } from '../../until.js';

// A firewall for this file: a socket may connect to loopback only, so that a broken guard shows
// as a failed test and never as traffic beyond this machine.
const firewalled: string[] = [];
const realConnect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
  const first = args[0];
  const options = (Array.isArray(first) ? first[0] : typeof first === 'object' ? first : { host: args[1] }) as { host?: string } | undefined;
  const host = options?.host?.replace(/^\[|\]$/g, '');
  if (host && isIP(host) && !/^127\./.test(host) && host !== '::1') {
    firewalled.push(host);
    process.nextTick(() => this.destroy(new Error(`test firewall: no connection to ${host}`)));
    return this;
  }
  return (realConnect as (...a: unknown[]) => net.Socket).apply(this, args);
} as typeof realConnect;

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

interface TestServer {
  origin: string;
  port: number;
  requests: Seen[];
  /** TCP connections accepted. */
  connections: number;
  close(): Promise<void>;
}

const clients: HttpClient[] = [];
const servers: TestServer[] = [];
after(async () => {
  for (const client of clients) client.close();
  await Promise.all(servers.map((server) => server.close()));
  net.Socket.prototype.connect = realConnect;
});

function client(options: HttpClientOptions = {}): HttpClient {
  const made = new HttpClient(options);
  clients.push(made);
  return made;
}

async function serve(handle: (request: IncomingMessage, response: ServerResponse) => void, host = '127.0.0.1', port = 0): Promise<TestServer> {
  const requests: Seen[] = [];
  const server = createServer((request, response) => {
    requests.push({ method: request.method!, url: request.url!, headers: request.headers });
    handle(request, response);
  });
  const served: TestServer = {
    origin: '',
    port: 0,
    requests,
    connections: 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  server.on('connection', () => served.connections++);
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  served.port = (server.address() as AddressInfo).port;
  served.origin = `http://${host}:${served.port}`;
  servers.push(served);
  return served;
}

/** A resolver that answers every name with the addresses `answer` gives, counting the questions. */
function resolver(answer: (call: number) => string[]): LookupFunction & { calls: number } {
  const lookup = ((_hostname, options, callback) => {
    const addresses: LookupAddress[] = answer(++lookup.calls).map((address) => ({ address, family: isIP(address) }));
    if (options.all) callback(null, addresses);
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  }) as LookupFunction & { calls: number };
  lookup.calls = 0;
  return lookup;
}

async function refused(promise: Promise<unknown>, code: HttpClientError['code'], message?: RegExp): Promise<HttpClientError> {
  let caught: unknown;
  await assert.rejects(promise, (error: unknown) => {
    caught = error;
    assert.ok(error instanceof HttpClientError, `an HttpClientError, not ${String(error)}`);
    assert.equal(error.code, code, error.message);
    if (message) assert.match(error.message, message);
    return true;
  });
  return caught as HttpClientError;
}

const text = (body: Uint8Array) => Buffer.from(body).toString('utf8');

// ---------------------------------------------------------------------------------------------
// Address classes

test('every IANA special-purpose block, v4 and v6, and multicast, is private; IPv4 inside IPv6 is judged by itself', () => {
  const special = [
    // IPv4 special-purpose registry.
    '0.0.0.0', '0.1.2.3', '10.0.0.1', '10.255.255.255', '100.64.0.1', '100.127.255.254', '127.0.0.1', '127.255.255.254', '169.254.169.254',
    '172.16.0.1', '172.31.255.254', '192.0.0.1', '192.0.0.8', '192.0.0.9', '192.0.0.10', '192.0.0.170', '192.0.0.171', '192.0.2.1',
    '192.31.196.1', '192.52.193.1', '192.88.99.1', '192.168.1.1', '192.175.48.1', '198.18.0.1', '198.19.255.254', '198.51.100.1',
    '203.0.113.1', '240.0.0.1', '255.255.255.254', '255.255.255.255',
    // Multicast.
    '224.0.0.1', '239.255.255.250', 'ff02::1', 'ff0e::1',
    // IPv6 special-purpose registry.
    '::1', '::', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '64:ff9b:1::1', '100::1', '100:0:0:1::1', '2001::1', '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    '2001:1::1', '2001:1::2', '2001:1::3', '2001:2::1', '2001:3::1', '2001:4:112::1', '2001:10::1', '2001:20::1', '2001:30::1',
    '2001:db8::1', '2620:4f:8000::1', '3fff::1', '5f00::1', 'fc00::1', 'fd12:3456::1', 'fe80::1', 'febf::1', 'fec0::1',
    // IPv4 addresses carried in IPv6 ones (issue 15): NAT64, 6to4, IPv4-compatible, IPv4-translated.
    '64:ff9b::a9fe:a9fe', '64:ff9b::7f00:1', '2002:7f00:1::', '2002:a00:1::1', '::127.0.0.1', '::7f00:1', '::ffff:0:7f00:1', '::ffff:0:a9fe:a9fe',
    // Not addresses at all.
    'localhost', '', '1.2.3', 'example.com',
  ];
  for (const address of special) assert.equal(isPrivateAddress(address), true, `${address}: ${addressRange(address)}`);
  const public_ = ['8.8.8.8', '1.1.1.1', '192.0.1.1', '100.128.0.1', '172.32.0.1', '2001:4860:4860::8888', '2a00:1450::1', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1', '::ffff:0:808:808'];
  for (const address of public_) assert.equal(isPrivateAddress(address), false, `${address}: ${addressRange(address)}`);
  assert.equal(addressRange('64:ff9b::a9fe:a9fe'), 'linkLocal', 'the NAT64 address is judged by the IPv4 address it carries');
  assert.equal(addressRange('::7f00:1'), 'ipv4Compatible');
});

/** One literal of each class, in a URL. */
const literals = [
  '127.0.0.1', '10.0.0.1', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '255.255.255.255', '240.0.0.1',
  '[::1]', '[::]', '[fe80::1]', '[fd00::1]', '[ff02::1]', '[::ffff:127.0.0.1]', '[::ffff:a9fe:a9fe]', '[64:ff9b::a9fe:a9fe]', '[2002:7f00:1::]',
  '[::127.0.0.1]', '[::ffff:0:7f00:1]', '[fec0::1]',
];

test('an IP literal of every non-public class is refused before anything is sent; allowed, the same client setup connects', async () => {
  const server = await serve((_request, response) => response.end('ok'));
  const guarded = client();
  for (const literal of literals) {
    const url = literal === '127.0.0.1' ? `${server.origin}/` : `http://${literal}:${server.port}/`;
    await refused(guarded.request(url, { timeoutMs: 2000 }), 'private-address', /is not a public address/);
  }
  assert.deepEqual(firewalled, [], 'no connection was tried');
  assert.equal(server.connections, 0);
  assert.equal(text((await client({ allowPrivateAddresses: true }).request(`${server.origin}/`)).body), 'ok');
});

test('host names: the guard judges the addresses they resolve to, and keeps only the allowed ones', async () => {
  const first = await serve((_request, response) => response.end('first'));
  const second = await serve((_request, response) => response.end('second'), '127.0.0.2');
  const local = resolver(() => ['127.0.0.1', '::1']);
  const error = await refused(client({ lookup: local }).request(`http://app.test:${first.port}/`), 'private-address', /app\.test resolves to no public address: 127\.0\.0\.1 \(loopback\), ::1 \(loopback\)/);
  assert.equal(error.attempts, 1);
  assert.equal(first.connections, 0);
  // Of two answers only the allowed one is connected to.
  const mixed = client({ lookup: resolver(() => ['127.0.0.1', '127.0.0.2']), allowPrivateAddresses: ['127.0.0.2/32'] });
  assert.equal(text((await mixed.request(`http://app.test:${second.port}/`)).body), 'second');
  assert.equal(first.connections, 0);
});

test('DNS rebinding: the address connected to is the address checked, each connection looking the name up once', async () => {
  const allowed = await serve((_request, response) => response.writeHead(200, { connection: 'close' }).end('allowed'));
  // The same port on another address: reached by the same URL if a second answer is trusted.
  const internal = await serve((_request, response) => response.end('internal'), '127.0.0.2', allowed.port);
  // The name first resolves to the allowed address, and to the other one from then on.
  const rebinding = resolver((call) => (call === 1 ? ['127.0.0.1'] : ['127.0.0.2']));
  const guarded = client({ lookup: rebinding, allowPrivateAddresses: ['127.0.0.1/32'] });
  assert.equal(text((await guarded.request(`http://rebind.test:${allowed.port}/`)).body), 'allowed');
  assert.equal(rebinding.calls, 1, 'one lookup for one connection');
  await refused(guarded.request(`http://rebind.test:${allowed.port}/`), 'private-address', /127\.0\.0\.2 \(loopback\)/);
  assert.equal(rebinding.calls, 2);
  assert.equal(internal.connections, 0, 'nothing reached the rebound address');
});

test('clients with different guards share no connection', async () => {
  const server = await serve((_request, response) => response.end('ok'));
  const lookup = resolver(() => ['127.0.0.1']);
  const open = client({ lookup, allowPrivateAddresses: true });
  assert.equal(text((await open.request(`http://shared.test:${server.port}/`)).body), 'ok');
  // The open client keeps its connection alive; the guarded one must not take it over.
  await refused(client({ lookup }).request(`http://shared.test:${server.port}/`), 'private-address');
  assert.equal(server.requests.length, 1);
});

// ---------------------------------------------------------------------------------------------
// Redirects

test('at most maxRedirects redirects are followed, relative ones included; one more is an error', async () => {
  const server = await serve((request, response) => {
    const left = Number(/^\/hop\/(\d+)$/.exec(request.url!)?.[1]);
    if (left === 0) return response.end('arrived');
    response.writeHead(302, { location: `/hop/${left - 1}` }).end();
  });
  const open = client({ allowPrivateAddresses: true, maxRedirects: 3 });
  const arrived = await open.request(`${server.origin}/hop/3`);
  assert.deepEqual([arrived.status, text(arrived.body), arrived.redirects, arrived.url], [200, 'arrived', 3, `${server.origin}/hop/0`]);
  server.requests.length = 0;
  await refused(open.request(`${server.origin}/hop/4`), 'too-many-redirects', /more than 3 redirects/);
  assert.deepEqual(server.requests.map((r) => r.url), ['/hop/4', '/hop/3', '/hop/2', '/hop/1'], 'the fourth redirect is not followed');
  // A request's own limit wins over the client's.
  await refused(open.request(`${server.origin}/hop/1`, { maxRedirects: 0 }), 'too-many-redirects');
});

test('a redirect to a private address, or away from http(s), is refused: every hop is checked', async () => {
  const internal = await serve((_request, response) => response.end('internal'), '127.0.0.2');
  const entry = await serve((request, response) => {
    const target = { '/to-internal': `${internal.origin}/secret`, '/to-v6': `http://[::1]:${internal.port}/`, '/to-metadata': 'http://169.254.169.254/latest/meta-data/', '/to-file': 'file:///etc/passwd' }[request.url!];
    response.writeHead(302, { location: target! }).end();
  });
  const guarded = client({ allowPrivateAddresses: ['127.0.0.1/32'] });
  await refused(guarded.request(`${entry.origin}/to-internal`), 'private-address', /127\.0\.0\.2 is not a public address \(loopback\)/);
  await refused(guarded.request(`${entry.origin}/to-v6`), 'private-address');
  await refused(guarded.request(`${entry.origin}/to-metadata`), 'private-address', /linkLocal/);
  await refused(guarded.request(`${entry.origin}/to-file`), 'protocol', /file URLs are not fetched/);
  assert.equal(entry.requests.length, 4);
  assert.equal(internal.connections, 0);
  assert.deepEqual(firewalled, []);
});

test('credentials stay with their origin on a redirect; 303 turns a POST into a GET', async () => {
  const other = await serve((request, response) => response.end(`${request.method} ${request.headers.authorization ?? 'none'}`), '127.0.0.2');
  const entry = await serve((request, response) => {
    if (request.url === '/here') return response.end(`${request.method} ${request.headers.authorization ?? 'none'}`);
    if (request.url === '/same') return response.writeHead(307, { location: '/here' }).end();
    response.writeHead(request.url === '/see-other' ? 303 : 302, { location: `${other.origin}/` }).end();
  });
  const open = client({ allowPrivateAddresses: true });
  const headers = { authorization: 'Bearer secret' };
  assert.equal(text((await open.request(`${entry.origin}/same`, { headers })).body), 'GET Bearer secret');
  assert.equal(text((await open.request(`${entry.origin}/away`, { headers })).body), 'GET none');
  assert.equal(text((await open.request(`${entry.origin}/see-other`, { method: 'POST', body: 'x' })).body), 'GET none');
});

// ---------------------------------------------------------------------------------------------
// Time limits

test('the total time limit ends an answer that keeps trickling in', { timeout: 10_000 }, async () => {
  let closed = false;
  const server = await serve((_request, response) => {
    response.writeHead(200);
    const timer = setInterval(() => response.write('x'), 20);
    response.on('close', () => {
      clearInterval(timer);
      closed = true;
    });
  });
  const error = await refused(client({ allowPrivateAddresses: true }).request(server.origin, { timeoutMs: 300 }), 'timeout', /no complete answer within 300 ms/);
  assert.equal(error.url, server.origin);
  // The server hears of the close once its loop gets to the socket: waited for, not assumed within a pause.
  await until(() => closed, 'the connection to be closed', 5_000);
});

test('the connect time limit covers the TLS handshake and the DNS lookup, and ends with the connection', { timeout: 10_000 }, async () => {
  // Accepts TCP connections and never says a word: no TLS handshake completes.
  const silent = net.createServer(() => {});
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const port = (silent.address() as AddressInfo).port;
  try {
    const open = client({ allowPrivateAddresses: true });
    await refused(open.request(`https://127.0.0.1:${port}/`, { connectTimeoutMs: 200, timeoutMs: 5000 }), 'connect-timeout', /no connection within 200 ms/);
    const hanging: LookupFunction = () => {};
    await refused(client({ lookup: hanging, allowPrivateAddresses: true }).request('http://never.test/', { connectTimeoutMs: 200, timeoutMs: 5000 }), 'connect-timeout');
  } finally {
    silent.close();
  }
  // A slow answer after a quick connection is not a connect timeout.
  const slow = await serve((_request, response) => setTimeout(() => response.end('late'), 300));
  const answer = await client({ allowPrivateAddresses: true }).request(slow.origin, { connectTimeoutMs: 100, timeoutMs: 3000 });
  assert.equal(text(answer.body), 'late');
});

// ---------------------------------------------------------------------------------------------
// Size cap

test('a body announced larger than the cap is refused before it is read', { timeout: 10_000 }, async () => {
  const server = await serve((_request, response) => {
    response.writeHead(200, { 'content-length': 10_000_000 });
    response.write('0123456789'); // and nothing more: only the announcement can end this in time
  });
  const open = client({ allowPrivateAddresses: true, maxBytes: 1000 });
  await refused(open.request(server.origin, { timeoutMs: 5000 }), 'too-large', /larger than 1000 bytes/);
});

test('a body streamed past the cap is cut off; exactly the cap is accepted', { timeout: 10_000 }, async () => {
  const total = 64 * 1024 * 1024;
  let sent = 0;
  let closed = false;
  const server = await serve((request, response) => {
    if (request.url === '/exact') return response.end(Buffer.alloc(4096, 1));
    response.writeHead(200); // chunked, no length announced
    const pump = () => {
      while (sent < total && !closed) {
        sent += 65536;
        if (!response.write(Buffer.alloc(65536))) return void response.once('drain', pump);
      }
      response.end();
    };
    response.on('close', () => (closed = true));
    pump();
  });
  const open = client({ allowPrivateAddresses: true });
  await refused(open.request(`${server.origin}/stream`, { maxBytes: 4096 }), 'too-large', /larger than 4096 bytes/);
  await until(() => closed, 'the connection to be closed', 5_000);
  assert.ok(sent < total, `cut off after ${sent} of ${total} bytes`);
  assert.equal((await open.request(`${server.origin}/exact`, { maxBytes: 4096 })).body.length, 4096);
});

test('compressed answers are decoded, and the cap counts the decoded bytes', async () => {
  const bomb = gzipSync(Buffer.alloc(1024 * 1024));
  const server = await serve((request, response) => {
    assert.equal(request.headers['accept-encoding'], 'gzip, deflate, br');
    const body = request.url === '/bomb' ? bomb : gzipSync('hello');
    response.writeHead(200, { 'content-encoding': 'gzip', 'content-length': body.length }).end(body);
  });
  const open = client({ allowPrivateAddresses: true });
  assert.equal(text((await open.request(`${server.origin}/small`)).body), 'hello');
  assert.ok(bomb.length < 4096);
  await refused(open.request(`${server.origin}/bomb`, { maxBytes: 4096 }), 'too-large');
});

// ---------------------------------------------------------------------------------------------
// Retries

test('5xx and 429 are retried with doubling waits until an answer comes', async () => {
  let failures = 2;
  const server = await serve((_request, response) => {
    if (failures-- > 0) return response.writeHead(503).end('busy');
    response.end('done');
  });
  const retries: RetryEvent[] = [];
  const answer = await client({ allowPrivateAddresses: true }).request(server.origin, { retries: 3, retryDelayMs: 10, onRetry: (event) => retries.push(event) });
  assert.deepEqual([answer.status, text(answer.body), answer.attempts], [200, 'done', 3]);
  assert.deepEqual(retries.map((r) => [r.attempt, r.delayMs, r.status]), [[1, 10, 503], [2, 20, 503]]);
});

test('when the retries are spent the last 5xx is the answer; other statuses and other methods are not retried', async () => {
  const server = await serve((request, response) => response.writeHead(request.url === '/missing' ? 404 : 502).end('no'));
  const open = client({ allowPrivateAddresses: true, retries: 2, retryDelayMs: 1 });
  const answer = await open.request(`${server.origin}/broken`);
  assert.deepEqual([answer.status, answer.attempts, server.requests.length], [502, 3, 3]);
  server.requests.length = 0;
  assert.equal((await open.request(`${server.origin}/missing`)).status, 404);
  assert.equal((await open.request(`${server.origin}/broken`, { method: 'POST', body: 'x' })).attempts, 1);
  assert.equal(server.requests.length, 2);
});

test('dropped connections and timeouts are retried; when they go on, the error says how many attempts were made', async () => {
  let drops = 1;
  let silences = 1;
  const server = await serve((request, response) => {
    if (request.url === '/always') return request.socket.destroy();
    if (drops-- > 0) return request.socket.destroy();
    if (silences-- > 0) return response.flushHeaders();
    response.end('finally');
  });
  const open = client({ allowPrivateAddresses: true, retryDelayMs: 1 });
  const retries: RetryEvent[] = [];
  const answer = await open.request(server.origin, { retries: 2, timeoutMs: 300, onRetry: (event) => retries.push(event) });
  assert.deepEqual([text(answer.body), answer.attempts], ['finally', 3]);
  assert.deepEqual(retries.map((r) => r.error?.code), ['network', 'timeout']);
  const error = await refused(open.request(`${server.origin}/always`, { retries: 2 }), 'network', /socket hang up/);
  assert.equal(error.attempts, 3);
});

test('Retry-After is honoured within its bound; a longer one ends the retries', { timeout: 10_000 }, async () => {
  const server = await serve((request, response) => {
    const after = request.url === '/soon' ? '1' : '120';
    if (request.url === '/soon' && server.requests.filter((r) => r.url === '/soon').length > 1) return response.end('ok');
    response.writeHead(429, { 'retry-after': after }).end();
  });
  const open = client({ allowPrivateAddresses: true, retries: 2, retryDelayMs: 1, maxRetryAfterMs: 2000 });
  const retries: RetryEvent[] = [];
  assert.equal(text((await open.request(`${server.origin}/soon`, { onRetry: (event) => retries.push(event) })).body), 'ok');
  assert.deepEqual(retries.map((r) => r.delayMs), [1000]);
  const answer = await open.request(`${server.origin}/later`);
  assert.deepEqual([answer.status, answer.attempts], [429, 1]);
  const now = Date.parse('2024-05-01T12:00:00Z');
  assert.equal(retryAfterMs('3', now), 3000);
  assert.equal(retryAfterMs('Wed, 01 May 2024 12:00:05 GMT', now), 5000);
  assert.equal(retryAfterMs('Wed, 01 May 2024 11:00:00 GMT', now), 0);
  assert.equal(retryAfterMs('soon', now), undefined);
  assert.equal(retryAfterMs(undefined, now), undefined);
});

test('an abort stops the request, also while it waits to retry', { timeout: 10_000 }, async () => {
  const server = await serve((_request, response) => response.writeHead(503).end());
  const controller = new AbortController();
  // A wait of days: only the abort can end it within the test's time.
  const days = 1_000_000_000;
  const open = client({ allowPrivateAddresses: true, retries: 5, retryDelayMs: days, maxRetryDelayMs: days });
  const pending = open.request(server.origin, { signal: controller.signal, onRetry: () => controller.abort() });
  await refused(pending, 'aborted');
  assert.equal(server.requests.length, 1);
});

test('a request on a kept-alive connection the server drops is sent again on a new one', async () => {
  let served = 0;
  const server = await serve((request, response) => {
    // The second request on a connection finds it closed, as when a server times it out.
    if ((request.socket as net.Socket & { served?: number }).served) return request.socket.destroy();
    (request.socket as net.Socket & { served?: number }).served = 1;
    response.end(String(++served));
  });
  const open = client({ allowPrivateAddresses: true });
  assert.equal(text((await open.request(server.origin)).body), '1');
  const second = await open.request(server.origin);
  assert.deepEqual([text(second.body), second.attempts, server.connections, server.requests.length], ['2', 1, 2, 3]);
});

// ---------------------------------------------------------------------------------------------
// Ranges, and looking at the answer before its body

test('range requests: the header, no compression, the Content-Range parsed; retries keep the range', async () => {
  const file = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));
  let fail = 0;
  const server = await serve((request, response) => {
    if (fail-- > 0) return response.writeHead(503).end();
    const match = /^bytes=(\d+)-(\d*)$/.exec(request.headers.range ?? '');
    if (!match) return response.end(file);
    const start = Number(match[1]);
    const end = Math.min(match[2] ? Number(match[2]) : file.length - 1, file.length - 1);
    if (start >= file.length) return response.writeHead(416, { 'content-range': `bytes */${file.length}` }).end();
    response.writeHead(206, { 'content-range': `bytes ${start}-${end}/${file.length}` }).end(file.subarray(start, end + 1));
  });
  const open = client({ allowPrivateAddresses: true, retryDelayMs: 1 });
  const middle = await open.request(server.origin, { range: { start: 100, end: 199 } });
  assert.equal(middle.status, 206);
  assert.ok(Buffer.from(middle.body).equals(file.subarray(100, 200)));
  assert.deepEqual(middle.contentRange, { start: 100, end: 199, size: 1000 });
  assert.deepEqual([server.requests[0]!.headers.range, server.requests[0]!.headers['accept-encoding']], ['bytes=100-199', 'identity']);
  const tail = await open.request(server.origin, { range: { start: 900 } });
  assert.deepEqual([tail.body.length, server.requests[1]!.headers.range], [100, 'bytes=900-']);
  const beyond = await open.request(server.origin, { range: { start: 5000 } });
  assert.deepEqual([beyond.status, beyond.contentRange], [416, { start: null, end: null, size: 1000 }]);
  fail = 1;
  server.requests.length = 0;
  const retried = await open.request(server.origin, { range: { start: 10, end: 19 }, retries: 1 });
  assert.deepEqual([retried.status, retried.attempts, server.requests.map((r) => r.headers.range)], [206, 2, ['bytes=10-19', 'bytes=10-19']]);
});

test('inspect sees the answer before its body: a throw is passed on as it is, false leaves the body unread', async () => {
  const server = await serve((_request, response) => response.writeHead(500, { 'content-type': 'text/html' }).end('<html>'));
  const open = client({ allowPrivateAddresses: true, retries: 0 });
  const mine = new Error('not for me');
  await assert.rejects(open.request(server.origin, { inspect: () => { throw mine; } }), (error) => error === mine);
  const unread = await open.request(server.origin, { inspect: (head) => (assert.equal(head.headers['content-type'], 'text/html'), false) });
  assert.deepEqual([unread.status, unread.body.length], [500, 0]);
});
