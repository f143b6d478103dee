import assert from 'node:assert/strict';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { loadMap } from '../../../src/maps/registry.js';
import { defaultSpriteLimits, loadSprite, spriteFiles } from '../../../src/render/sprite/sprite.js';
import { TileCache } from '../../../src/render/source/cache.js';
import { tempDir } from '../../scratch.js';
import { MemoryLog } from '../source/fixtures.js';
import { fixturesDir } from '../suite/cases.js';

const sprites = path.join(fixturesDir, '_data/sprites');
const base = path.join(sprites, 'sprite');

/** A folder holding copies of the fixture sprite's files; `only` picks which. */
function spriteCopy(only = ['sprite.json', 'sprite.png', 'sprite@2x.json', 'sprite@2x.png']): string {
  const dir = tempDir();
  for (const file of only) copyFileSync(path.join(sprites, file), path.join(dir, file));
  return dir;
}

function pixel(canvas: { getContext(type: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } } }, x: number, y: number): number[] {
  return [...canvas.getContext('2d').getImageData(x, y, 1, 1).data];
}

test('a sprite loads from a path: each image cut out at its size, with its index properties', async () => {
  const { images, errors } = await loadSprite(base, 1);
  assert.deepEqual(errors, []);
  const airport = images.image('airport')!;
  assert.equal(airport.id, 'airport');
  assert.deepEqual([airport.width, airport.height, airport.pixelRatio, airport.sdf], [15, 15, 1, false]);
  assert.deepEqual([airport.image.width, airport.image.height], [15, 15]);
  // The middle of the plane is ink, the corner is not.
  assert.equal(pixel(airport.image, 7, 7)[3], 255);
  assert.equal(pixel(airport.image, 0, 0)[3], 0);
  assert.equal(images.image('airport'), airport, 'cut once');
  const box = images.image('label-box')!;
  assert.deepEqual(box.stretchX, [[5, 19]]);
  assert.deepEqual(box.stretchY, [[5, 11]]);
  assert.deepEqual(box.content, [4, 4, 20, 12]);
  const star = images.image('star-sdf')!;
  assert.equal(star.sdf, true);
  // 15 px grown by 4 on each side for halos.
  assert.equal(star.width, 23);
  assert.equal(images.image('nothing'), undefined);
});

test('pixel ratio 2 reads the @2x files: twice the pixels, the same CSS size', async () => {
  const { images, errors } = await loadSprite(pathToFileURL(base).href, 2);
  assert.deepEqual(errors, []);
  const airport = images.image('airport')!;
  assert.deepEqual([airport.width, airport.height, airport.pixelRatio], [15, 15, 2]);
  assert.deepEqual([airport.image.width, airport.image.height], [30, 30]);
  assert.deepEqual(images.image('label-box')!.stretchX, [[10, 38]]);
});

test('without @2x files, pixel ratio 2 falls back to the 1x sprite', async () => {
  const dir = spriteCopy(['sprite.json', 'sprite.png']);
  const { images, errors } = await loadSprite(path.join(dir, 'sprite'), 2);
  assert.deepEqual(errors, []);
  assert.equal(images.image('airport')!.pixelRatio, 1);
});

test('the array form prefixes the images of every sprite but "default" with its id', async () => {
  const { images, errors } = await loadSprite(
    [
      { id: 'default', url: base },
      { id: 'extra', url: path.join(sprites, 'extra') },
    ],
    1,
  );
  assert.deepEqual(errors, []);
  assert.ok(images.image('checker'));
  assert.equal(images.image('extra:hatch')!.id, 'extra:hatch');
  assert.equal(images.image('hatch'), undefined);
  assert.equal(images.image('default:checker'), undefined);
});

test('a broken sprite of the array form is reported; the others still load', async () => {
  const { images, errors } = await loadSprite(
    [
      { id: 'default', url: base },
      { id: 'gone', url: path.join(tempDir(), 'sprite') },
    ],
    1,
  );
  assert.equal(errors.length, 1);
  assert.match(errors[0]!, /^sprite "gone" .*: sprite\.json not found$/);
  assert.ok(images.image('airport'));
});

test('an index that does not fit its sheet is an error naming the image and both sizes', async () => {
  const dir = spriteCopy(['sprite.png']);
  writeFileSync(path.join(dir, 'sprite.json'), JSON.stringify({ wide: { x: 40, y: 0, width: 100, height: 10 } }));
  const { images, errors } = await loadSprite(path.join(dir, 'sprite'), 1);
  assert.match(errors[0]!, /image "wide" \(x 40, y 0, 100 × 10\) lies outside sprite\.png \(\d+ × \d+\)/);
  assert.equal(images.image('wide'), undefined);
});

test('malformed index entries are errors saying what is wrong', async () => {
  const cases: [unknown, RegExp][] = [
    [[1, 2], /not a JSON object of images/],
    [{ a: { x: 0, y: 0, width: 0, height: 4 } }, /"a" needs whole x, y ≥ 0 and width, height > 0/],
    [{ a: { x: -1, y: 0, width: 4, height: 4 } }, /"a" needs whole x, y/],
    [{ a: { x: 0, y: 0, width: 4, height: 4, pixelRatio: 0 } }, /pixelRatio that is not a positive number/],
    [{ a: { x: 0, y: 0, width: 4, height: 4, stretchX: [[1]] } }, /stretchX that is not a list of \[from, to\] pairs/],
    [{ a: { x: 0, y: 0, width: 4, height: 4, content: [0, 0, 4] } }, /content that is not \[left, top, right, bottom\]/],
    [{ a: { x: 0, y: 0, width: 4, height: 4, sdf: 'yes' } }, /sdf that is not true or false/],
    [{ a: { x: 0, y: 0, width: 4, height: 4, textFitWidth: 'wide' } }, /textFitWidth other than/],
  ];
  for (const [index, message] of cases) {
    const dir = spriteCopy(['sprite.png']);
    writeFileSync(path.join(dir, 'sprite.json'), JSON.stringify(index));
    const { errors } = await loadSprite(path.join(dir, 'sprite'), 1);
    assert.match(errors[0] ?? '', message, JSON.stringify(index));
  }
});

test('files that are not JSON or not PNG, or missing, are clear errors', async () => {
  const notJson = spriteCopy(['sprite.png']);
  writeFileSync(path.join(notJson, 'sprite.json'), '{"a": ');
  assert.match((await loadSprite(path.join(notJson, 'sprite'), 1)).errors[0]!, /sprite\.json is not valid JSON/);

  const notPng = spriteCopy(['sprite.json']);
  writeFileSync(path.join(notPng, 'sprite.png'), 'GIF89a and more bytes than that');
  assert.match((await loadSprite(path.join(notPng, 'sprite'), 1)).errors[0]!, /sprite\.png is not a PNG image/);

  const noPng = spriteCopy(['sprite.json']);
  assert.match((await loadSprite(path.join(noPng, 'sprite'), 1)).errors[0]!, /sprite\.png not found/);

  assert.match((await loadSprite('mapbox://sprites/x', 1)).errors[0]!, /mapbox: URLs are not supported/);
});

test('size limits: bytes of each file and pixels a side of the sheet', async () => {
  const small = await loadSprite(base, 1, { ...defaultSpriteLimits, maxPngBytes: 100 });
  assert.match(small.errors[0]!, /sprite\.png is larger than 100 bytes/);
  const json = await loadSprite(base, 1, { ...defaultSpriteLimits, maxJsonBytes: 100 });
  assert.match(json.errors[0]!, /sprite\.json is larger than 100 bytes/);
  const side = await loadSprite(base, 1, { ...defaultSpriteLimits, maxSide: 16 });
  assert.match(side.errors[0]!, /sprite\.png is \d+ × \d+ pixels, more than 16 a side/);
});

test('sprite file names keep a query string after the suffix, as MapLibre makes them', () => {
  assert.deepEqual(spriteFiles('https://a.example/s/sprite?key=1', 2), { json: 'https://a.example/s/sprite@2x.json?key=1', png: 'https://a.example/s/sprite@2x.png?key=1' });
  assert.deepEqual(spriteFiles('/x/sprite', 1), { json: '/x/sprite.json', png: '/x/sprite.png' });
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; origin: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return { server, origin: `http://127.0.0.1:${address.port}` };
}

// A bound on the whole test: a time limit that is not applied shows as a failure, not as a longer wait.
test('over http: the @2x fallback on 404, the query string, a size limit on the body and a time limit', { timeout: 5_000 }, async () => {
  const requests: string[] = [];
  const { server, origin } = await serve((request, response) => {
    requests.push(request.url!);
    const url = new URL(request.url!, 'http://x');
    if (url.pathname === '/slow/sprite.json') return; // never answers
    if (url.pathname === '/big/sprite.png') {
      response.writeHead(200);
      response.write(Buffer.alloc(64 * 1024));
      response.end(Buffer.alloc(64 * 1024));
      return;
    }
    const name = path.basename(url.pathname);
    if (name.includes('@2x')) return void response.writeHead(404).end();
    response.writeHead(200).end(readFileSync(path.join(sprites, name)));
  });
  try {
    const { images, errors } = await loadSprite(`${origin}/ok/sprite?key=abc`, 2);
    assert.deepEqual(errors, []);
    assert.equal(images.image('airport')!.pixelRatio, 1);
    assert.ok(requests.includes('/ok/sprite@2x.json?key=abc') && requests.includes('/ok/sprite.png?key=abc'));

    const slow = await loadSprite(`${origin}/slow/sprite`, 1, { ...defaultSpriteLimits, timeoutMs: 200 });
    assert.match(slow.errors[0]!, /GET .*\/slow\/sprite\.json: timed out after 200 ms/);

    const big = await loadSprite(`${origin}/big/sprite`, 1, { ...defaultSpriteLimits, maxPngBytes: 100 * 1024 });
    assert.match(big.errors[0]!, /larger than 102400 bytes/);
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test('a map whose sprite is broken loads, logs one error, and renders without images', async () => {
  const dir = tempDir();
  writeFileSync(path.join(dir, 'style.json'), JSON.stringify({ version: 8, sprite: './missing/sprite', sources: {}, layers: [] }));
  const log = new MemoryLog();
  const map = await loadMap('broken', { style: 'style.json' }, dir, { cache: new TileCache(1024 * 1024), log });
  try {
    assert.equal(log.errors.length, 1);
    assert.match(log.errors[0]!, /^map "broken": sprite .*missing\/sprite: sprite\.json not found; drawn without its images$/);
    assert.equal((await map.images(1)).image('anything'), undefined);
    assert.equal(log.errors.length, 1, 'read once');
  } finally {
    await map.close();
  }
});

test('a map reads its sprite relative to its style, once per pixel ratio', async () => {
  const dir = spriteCopy();
  writeFileSync(path.join(dir, 'style.json'), JSON.stringify({ version: 8, sprite: 'sprite', sources: {}, layers: [] }));
  const map = await loadMap('sprited', { style: 'style.json' }, dir, { cache: new TileCache(1024 * 1024) });
  try {
    const one = await map.images(1);
    const two = await map.images(2);
    assert.equal(one.image('bus')!.pixelRatio, 1);
    assert.equal(two.image('bus')!.pixelRatio, 2);
    assert.equal(await map.images(2), two);
  } finally {
    await map.close();
  }
});
