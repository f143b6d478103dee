import assert from 'node:assert/strict';
import { test } from 'node:test';
import { logStreamFor, terminalMessage, writesPretty } from '../../src/platform/log-format.js';
import { LogCapture, newAccount, startTestServer, testConfig } from '../helpers.js';

test('an access line reads as status, duration, size, method, URL, key id and client', () => {
  const line = terminalMessage({
    level: 30, time: 1, pid: 1, hostname: 'h', reqId: 'r1', msg: 'request completed',
    method: 'GET', route: '/x', url: '/x?key=REDACTED', status: 200, ms: 182.4, bytes: 48211, keyId: 'k1', client: '203.0.113.9', userAgent: 'curl',
  });
  assert.equal(line, '200 182.4ms 48.2kB GET /x?key=REDACTED key k1 from 203.0.113.9');
  assert.equal(terminalMessage({ msg: 'request completed', method: 'GET', url: '/health', status: 503, ms: 1, bytes: 12, keyId: null, client: '::1' }), '503 1ms 12B GET /health from ::1');
});

test('any other line reads as its message and its fields, an error with its stack below', () => {
  assert.equal(terminalMessage({ level: 40, time: 1, pid: 1, hostname: 'h', msg: 'rate limited', rateLimit: 'key', keyId: 'k1', count: 3 }), 'rate limited rateLimit=key keyId=k1 count=3');
  assert.equal(terminalMessage({ msg: 'maps reloaded', cause: 'a change in the folder', maps: ['a', 'b'] }), 'maps reloaded cause="a change in the folder" maps=["a","b"]');
  const error = new Error('boom');
  const text = terminalMessage({ msg: 'request failed', err: { type: 'Error', message: error.message, stack: error.stack } });
  assert.match(text, /^request failed err=boom\nError: boom\n {4}at /);
});

test('auto writes terminal lines only to a terminal; json never does', () => {
  assert.equal(writesPretty('auto', { isTTY: true }), true);
  assert.equal(writesPretty('auto', {}), false);
  assert.equal(writesPretty('json', { isTTY: true }), false);
  assert.equal(writesPretty('pretty', {}), true);
  assert.equal(logStreamFor('json', process.stdout), undefined);
});

test('a server logging in the pretty format writes one short line per request, with no key in it', async () => {
  const output = new LogCapture();
  const stream = logStreamFor('pretty', output as unknown as NodeJS.WriteStream);
  assert.ok(stream);
  const server = await startTestServer(testConfig({ logLevel: 'info' }), { logStream: stream as unknown as LogCapture });
  let token = '';
  try {
    const { accountId } = await newAccount(server.meridian);
    ({ token } = await server.meridian.keys.create(accountId, {}));
    assert.equal((await server.server.public.inject({ url: `/ping?key=${token}` })).statusCode, 200);
    assert.equal((await server.server.public.inject({ url: `/ping?api_key=${token}` })).statusCode, 403);
  } finally {
    await server.close();
  }
  const access = output.lines.filter((line) => line.includes(' GET /ping'));
  assert.equal(access.length, 2, output.text);
  // pino-pretty's head: the time, then the level; no colours on a stream that is not a terminal.
  assert.match(access[0]!, /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: 200 [\d.]+ms \d+B GET \/ping\?key=REDACTED key [0-9a-f-]{36} from 127\.0\.0\.1$/);
  assert.match(access[1]!, /INFO: 403 [\d.]+ms \d+B GET \/ping\?api_key=REDACTED from 127\.0\.0\.1$/);
  assert.ok(output.lines.some((line) => /INFO: key refused .*refusal=/.test(line)), 'other lines keep their fields');
  assert.ok(!output.text.includes(token), 'the key never reaches the log');
  assert.doesNotMatch(output.text, /\x1b\[/, 'no colour codes on a stream that is not a terminal');
});
