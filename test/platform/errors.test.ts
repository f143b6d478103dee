import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import { ApiError, installErrorHandlers, NOT_FOUND, NotFoundError, type Failure } from '../../src/platform/errors.js';

test('each failure leaves with its status, its headers and the documented error body', async () => {
  const app = Fastify();
  installErrorHandlers(app);
  const cases: [Failure, number][] = [
    ['invalid', 400],
    ['unauthorized', 401],
    ['forbidden', 403],
    ['not-found', 404],
    ['uri-too-long', 414],
    ['rate-limited', 429],
    ['upstream', 502],
    ['unavailable', 503],
  ];
  app.get('/fail/:failure', async (request) => {
    throw new ApiError(`it is ${(request.params as { failure: string }).failure}`, (request.params as { failure: Failure }).failure, { 'retry-after': '7' });
  });
  app.get('/missing', async () => {
    throw new NotFoundError();
  });
  for (const [failure, status] of cases) {
    const response = await app.inject(`/fail/${failure}`);
    assert.equal(response.statusCode, status, failure);
    assert.equal(response.headers['retry-after'], '7');
    assert.deepEqual(response.json(), { errors: [{ message: `it is ${failure}` }] });
  }
  const missing = await app.inject('/missing');
  assert.equal(missing.statusCode, 404);
  assert.deepEqual(missing.json(), { errors: [{ message: NOT_FOUND }] });
  const unrouted = await app.inject('/nowhere');
  assert.deepEqual([unrouted.statusCode, unrouted.json()], [404, { errors: [{ message: NOT_FOUND }] }]);
  await app.close();
});
