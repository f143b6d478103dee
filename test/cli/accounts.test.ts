/**
 * `meridian accounts` and `meridian usage` without a server: accounts made, listed, renamed and
 * deleted, service tokens issued and revoked, on the embedded database (and on PostgreSQL on the
 * suite's second pass); JSON off a terminal, tables on one.
 */

import assert from 'node:assert/strict';
import path from 'node:path';
import { after, test } from 'node:test';
import { formatTable } from '../../src/cli/main.js';
import { cleanUp, onPostgres, testConfig } from '../helpers.js';
import { tempDir } from '../scratch.js';
import { cliOn } from './run-cli.js';

const config = testConfig();
const { run, runOnTerminal } = cliOn(config);
after(() => cleanUp(config));

test('accounts create, list, token and revoke-token work without a server', async () => {
  const created = await run(['accounts', 'create', 'Acme Maps']);
  assert.equal(created.code, 0, created.stderr);
  const account = JSON.parse(created.stdout);
  assert.match(account.account_id, /^[0-9a-f-]{36}$/);
  assert.match(account.service_token, /^mst_/);

  const listed = JSON.parse((await run(['accounts', 'list'])).stdout);
  assert.ok(listed.some((a: { account_id: string; name: string }) => a.account_id === account.account_id && a.name === 'Acme Maps'));

  const issued = await run(['accounts', 'token', account.account_id]);
  assert.equal(issued.code, 0, issued.stderr);
  const second = JSON.parse(issued.stdout).service_token;
  assert.notEqual(second, account.service_token);

  const revoked = await run(['accounts', 'revoke-token'], {}, `${second}\n`);
  assert.equal(revoked.code, 0, revoked.stderr);
  assert.equal(revoked.stderr, '', 'no warning for a token on standard input');
  const again = await run(['accounts', 'revoke-token', second]);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /visible to other users/);
  assert.match(again.stderr, /No such live service token/);
});

test('accounts rename and delete; delete asks for the account name on a terminal and needs --yes elsewhere', async () => {
  const { account_id: id } = JSON.parse((await run(['accounts', 'create', 'Old Name'])).stdout) as { account_id: string };
  const renamed = await run(['accounts', 'rename', id, 'New Name']);
  assert.equal(renamed.code, 0, renamed.stderr);
  assert.deepEqual(JSON.parse(renamed.stdout), { account_id: id, name: 'New Name' });
  const names = async () => (JSON.parse((await run(['accounts', 'list'])).stdout) as { account_id: string; name: string }[]).filter((a) => a.account_id === id).map((a) => a.name);
  assert.deepEqual(await names(), ['New Name']);
  assert.equal((await run(['accounts', 'rename', id, '  '])).code, 1, 'an empty name is refused');
  const noName = await run(['accounts', 'rename', id]);
  assert.equal(noName.code, 2);
  assert.match(noName.stderr, /accounts rename needs ACCOUNT and NAME/);

  const unconfirmed = await run(['accounts', 'delete', id]);
  assert.equal(unconfirmed.code, 2);
  assert.match(unconfirmed.stderr, /^meridian: accounts delete needs --yes when standard input is not a terminal/);
  const wrong = await runOnTerminal(['accounts', 'delete', id], 'Old Name');
  assert.match(wrong.output, /Delete account "New Name" \(.*\) with its 0 API keys and 1 service tokens\? This cannot be undone/);
  assert.match(wrong.output, /Not deleted/);
  assert.equal(wrong.code, 1);
  assert.deepEqual(await names(), ['New Name'], 'still there');
  const typed = await runOnTerminal(['accounts', 'delete', id], 'New Name');
  assert.equal(typed.code, 0, typed.output);
  assert.deepEqual(await names(), []);

  const { account_id: other } = JSON.parse((await run(['accounts', 'create', 'Scripted'])).stdout) as { account_id: string };
  const deleted = await run(['accounts', 'delete', other, '--yes']);
  assert.equal(deleted.code, 0, deleted.stderr);
  assert.deepEqual(JSON.parse(deleted.stdout), { account_id: other, deleted: true, api_keys: 0 });
  const gone = await run(['accounts', 'delete', other, '--yes']);
  assert.equal(gone.code, 1);
  assert.match(gone.stderr, /No account/);
});

test('accounts create on a new data directory says it is making the embedded database, and when it is done', { skip: onPostgres && 'PGlite only: the embedded database' }, async () => {
  const fresh = path.join(tempDir(), 'data');
  const created = await run(['accounts', 'create', 'First'], { DATABASE_URL: '' }, '', fresh);
  assert.equal(created.code, 0, created.stderr);
  assert.match(created.stderr, new RegExp(`^Making the embedded database of ${fresh} \\(its first use: seconds\\)…\nMaking the embedded database of ${fresh}: done in \\d+ s\n$`));
  assert.match(JSON.parse(created.stdout).service_token, /^mst_/);
});

test('usage and accounts list: JSON off a terminal and with --json; a table on one', async () => {
  const listed = await run(['accounts', 'list', '--json']);
  assert.equal(listed.code, 0, listed.stderr);
  assert.ok(Array.isArray(JSON.parse(listed.stdout)));
  const usage = await run(['usage']);
  assert.equal(usage.code, 0, usage.stderr);
  assert.ok(Array.isArray(JSON.parse(usage.stdout)), 'JSON when the output is not a terminal');
  assert.equal(
    formatTable([
      { account_id: 'a1', name: 'Acme Maps', api_keys: 12 },
      { account_id: 'b22', name: 'B', api_keys: 3 },
    ]),
    'account_id  name       api_keys\n----------  ---------  --------\na1          Acme Maps        12\nb22         B                 3\n',
  );
  assert.equal(formatTable([]), '(none)\n');
});
