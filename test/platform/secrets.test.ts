import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { MasterKeyMismatchError, openMeridian } from '../../src/meridian.js';
import { hashToken, loadMasterKey, masterKeyFile, newToken, sameHash, TokenCipher } from '../../src/platform/secrets.js';
import { cleanUp, testConfig } from '../helpers.js';
import { tempDir } from '../scratch.js';

test('tokens carry the requested randomness', () => {
  const token = newToken(24);
  assert.equal(Buffer.from(token, 'base64url').length, 24);
  assert.match(newToken(32, 'mst_'), /^mst_[A-Za-z0-9_-]{43}$/);
  assert.notEqual(newToken(24), newToken(24));
});

test('sealed tokens open with the same key only', () => {
  const cipher = new TokenCipher(randomBytes(32));
  const sealed = cipher.encrypt('secret-token');
  assert.ok(!sealed.toString('utf8').includes('secret-token'));
  assert.equal(cipher.decrypt(sealed), 'secret-token');
  assert.notDeepEqual(cipher.encrypt('secret-token'), sealed, 'a fresh IV every time');
  assert.throws(() => new TokenCipher(randomBytes(32)).decrypt(sealed));
  const tampered = Buffer.from(sealed);
  tampered[tampered.length - 1]! ^= 1;
  assert.throws(() => cipher.decrypt(tampered));
});

test('hashes compare in constant time and by value', () => {
  assert.ok(sameHash(hashToken('a'), hashToken('a')));
  assert.ok(!sameHash(hashToken('a'), hashToken('b')));
  assert.ok(!sameHash(hashToken('a'), Buffer.alloc(3)));
});

test('a master key is generated into the data directory with mode 0600 and reused', () => {
  const dir = tempDir();
  const key = loadMasterKey(null, dir);
  assert.equal(key.length, 32);
  assert.equal(statSync(path.join(dir, masterKeyFile)).mode & 0o777, 0o600);
  assert.deepEqual(loadMasterKey(null, dir), key);
  const configured = randomBytes(32);
  assert.deepEqual(loadMasterKey(configured.toString('base64'), dir), configured);
});

test('API key tokens are not stored in the clear', async () => {
  const config = testConfig();
  const meridian = await openMeridian(config);
  try {
    const { account_id } = await meridian.accounts.create('a');
    const key = await meridian.keys.create(account_id, {});
    const rows = await meridian.db.query<Record<string, unknown>>('SELECT * FROM api_keys');
    const dump = JSON.stringify(rows, (_k, v) => (v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : v));
    assert.ok(!dump.includes(key.token));
  } finally {
    await meridian.close();
    await cleanUp(config);
  }
});

test('a different master key on the same database stops start-up', async () => {
  const config = testConfig({ masterKey: randomBytes(32).toString('base64') });
  await (await openMeridian(config)).close();
  try {
    await assert.rejects(openMeridian({ ...config, masterKey: randomBytes(32).toString('base64') }), MasterKeyMismatchError);
    await (await openMeridian(config)).close();
  } finally {
    await cleanUp(config);
  }
});
