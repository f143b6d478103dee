import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newAccount, onPostgres, startTwoInstances } from '../helpers.js';

test(
  'a key deleted through one instance fails at the gate of another within a second',
  { skip: !onPostgres && 'needs PostgreSQL: two instances share one database server' },
  async () => {
    const instances = await startTwoInstances();
    const { first, second } = instances;
    try {
      const firstUrl = (await first.server.listen()).public;
      const secondUrl = (await second.server.listen()).public;
      const { accountId, auth } = await newAccount(first.meridian);
      const key = await first.meridian.keys.create(accountId, {});
      const ping = async (base: string) => (await fetch(`${base}/ping?key=${key.token}`)).status;
      // Both instances have verified, and so cached, the key.
      assert.equal(await ping(firstUrl), 200);
      assert.equal(await ping(secondUrl), 200);
      assert.equal(await ping(secondUrl), 200);

      const deleted = await fetch(`${firstUrl}/v1/api_keys/${key.id}`, { method: 'DELETE', headers: { authorization: auth } });
      assert.equal(deleted.status, 200);
      const start = Date.now();
      let status = 200;
      while (status === 200 && Date.now() - start < 1000) {
        status = await ping(secondUrl);
        if (status === 200) await new Promise((resolve) => setTimeout(resolve, 10));
      }
      assert.equal(status, 403, 'still admitted one second after the delete');
      assert.equal(await ping(firstUrl), 403);
    } finally {
      await instances.close();
    }
  },
);

test(
  'a changed origin rule reaches another instance, and the second instance sees keys created by the first',
  { skip: !onPostgres && 'needs PostgreSQL: two instances share one database server' },
  async () => {
    const instances = await startTwoInstances();
    const { first, second } = instances;
    try {
      const { accountId } = await newAccount(first.meridian);
      const key = await first.meridian.keys.create(accountId, {});
      const ping = async () =>
        (await second.server.public.inject({ method: 'GET', url: `/ping?key=${key.token}` })).statusCode;
      assert.equal(await ping(), 200);
      assert.deepEqual(await second.meridian.keys.get(accountId, key.id), await first.meridian.keys.get(accountId, key.id));
      await first.meridian.keys.update(accountId, key.id, { origins: ['example.com'] });
      const start = Date.now();
      let status = 200;
      while (status === 200 && Date.now() - start < 1000) {
        status = await ping();
        if (status === 200) await new Promise((resolve) => setTimeout(resolve, 10));
      }
      assert.equal(status, 403);
    } finally {
      await instances.close();
    }
  },
);
