import assert from 'node:assert/strict';
import { test } from 'node:test';
import { differenceFromShown, examplesOf, mapsNamed } from './examples.js';

/** What test/docs/examples.test.ts reads out of a doc, on a page written for the purpose. */
const page = [
  'Serves http://127.0.0.1:8080, with the console at <http://127.0.0.1:8080/console/>.',
  '',
  '```sh',
  'TOKEN=mst_…',
  'AUTH="Authorization: Token $TOKEN"',
  'curl -s -X POST http://127.0.0.1:8080/v1/api_keys -H "$AUTH" \\',
  "  -d '{\"description\": \"Website\"}'",
  '# {"id": "…", "description": "Website",',
  '#  "origins": []}',
  'KEY_ID=…   # its id',
  'curl -o route.webp "http://127.0.0.1:8080/api/maps/world/static/auto/600x400.webp?key=$KEY\\',
  '&path=stroke:red|width:3|2.35,48.85|13.4,52.52"',
  '# a comment, not a response',
  'curl -s "http://127.0.0.1:8080/weather/latest.json?key=$KEY" \\',
  "  | jq '.variables[0]'",
  '```',
  '',
  '```js',
  "L.tileLayer('http://127.0.0.1:8080/maps/west-oakland/256/{z}/{x}/{y}{r}.png?key=YOUR_KEY');",
  '```',
  'For 512-px tiles use `/maps/streets/{z}/{x}/{y}.png`; the code is in src/maps/static/.',
].join('\n');

test('curl commands with their continuation lines, assignments, pipes, the response shown and what is taken from it; the other URLs', () => {
  const examples = examplesOf('page.md', page);
  assert.deepEqual(
    examples.map((example) => [example.line, example.kind === 'curl' ? example.command : example.url]),
    [
      [1, 'http://127.0.0.1:8080'],
      [1, 'http://127.0.0.1:8080/console/'],
      [6, 'curl -s -X POST http://127.0.0.1:8080/v1/api_keys -H "$AUTH" \\\n  -d \'{"description": "Website"}\''],
      [11, 'curl -o route.webp "http://127.0.0.1:8080/api/maps/world/static/auto/600x400.webp?key=$KEY\\\n&path=stroke:red|width:3|2.35,48.85|13.4,52.52"'],
      [14, 'curl -s "http://127.0.0.1:8080/weather/latest.json?key=$KEY" \\\n  | jq \'.variables[0]\''],
      [19, 'http://127.0.0.1:8080/maps/west-oakland/256/{z}/{x}/{y}{r}.png?key=YOUR_KEY'],
    ],
  );
  const [, , create, route, catalog] = examples as [unknown, unknown, Record<string, unknown>, Record<string, unknown>, Record<string, unknown>];
  assert.deepEqual(create.assignments, [
    { name: 'TOKEN', line: 'TOKEN=mst_…' },
    { name: 'AUTH', line: 'AUTH="Authorization: Token $TOKEN"' },
  ]);
  assert.deepEqual(create.shown, { id: '…', description: 'Website', origins: [] });
  assert.equal(create.piped, false);
  // KEY_ID=… after a response showing "id": "…" takes the real response's id.
  assert.deepEqual(create.captures, [{ name: 'KEY_ID', field: 'id' }]);
  assert.deepEqual(route.captures, []);
  // A | inside quotes is no pipe; a comment that is not JSON shows no response.
  assert.equal(route.piped, false);
  assert.equal(route.shown, undefined);
  assert.equal(catalog.piped, true);
});

test('a response shown that is not JSON is an error naming the line', () => {
  assert.throws(() => examplesOf('bad.md', '```sh\ncurl -s http://127.0.0.1:8080/ping\n# {"status": ok}\n```'), /bad\.md:2: the response shown/);
});

test('the maps that URLs and paths name, not folders of the source', () => {
  assert.deepEqual(mapsNamed(page), [
    { id: 'world', line: 11 },
    { id: 'west-oakland', line: 19 },
    { id: 'streets', line: 21 },
  ]);
});

test('a response has what the doc shows: the fields shown with their values, … for any string', () => {
  const actual = { id: 'b2c', name: 'key-b2c', description: 'Website', origins: ['example.com'], user_agent: null, extra: 1 };
  assert.equal(differenceFromShown(actual, { id: '…', description: 'Website', origins: ['example.com'], user_agent: null }), null);
  assert.equal(differenceFromShown(actual, { description: 'Shop' }), '$.description should be "Shop", is "Website"');
  assert.equal(differenceFromShown(actual, { token: '…' }), '$.token is missing');
  assert.equal(differenceFromShown(actual, { origins: [] }), '$.origins should be an array of 0, is ["example.com"]');
  assert.equal(differenceFromShown(actual, { user_agent: '…' }), '$.user_agent should be a string, is null');
});
