import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { test } from 'node:test';
import { validateStyleMin, type StyleSpecification } from '@maplibre/maplibre-gl-style-spec';
import { defaultConfig } from '../../../src/config.js';
import { MapRegistry } from '../../../src/maps/registry.js';
import { FontCatalog } from '../../../src/render/glyphs/catalog.js';
import { compileStyle } from '../../../src/render/style/style.js';
import { STYLES, type StreetStyle } from '../../../src/tools/osm/sprite.js';
import { stylePath as worldStylePath } from '../../../src/tools/world/build.js';
import { colours, readStyle, renderPng, SAMPLES, writeStreetMaps, type Sample } from './street-maps.js';
import { tempDir } from '../../scratch.js';

const worldStyle = JSON.parse(readFileSync(worldStylePath, 'utf8')) as StyleSpecification;
const styles = Object.fromEntries(STYLES.map((name) => [name, readStyle(name)])) as Record<StreetStyle, StyleSpecification>;

test('each style is valid MapLibre v8 with the sources, sprite and glyphs the importer expects', () => {
  for (const name of STYLES) {
    const style = styles[name];
    assert.deepEqual(validateStyleMin(style), [], name);
    assert.deepEqual(style.sources, { openmaptiles: { type: 'vector', url: 'pmtiles://openmaptiles.pmtiles' }, world: { type: 'vector', url: 'pmtiles://world.pmtiles' } }, name);
    assert.equal(style.sprite, 'sprite', name);
    assert.equal(style.glyphs, worldStyle.glyphs, name);
  }
});

test('our renderer draws every property of every style, with fonts the catalog has', () => {
  const fonts = FontCatalog.default();
  for (const name of STYLES) {
    assert.deepEqual(compileStyle(styles[name]).warnings, [], name);
    for (const layer of styles[name].layers) {
      if (layer.type !== 'symbol' || layer.layout?.['text-font'] === undefined) continue;
      for (const font of layer.layout['text-font'] as string[]) assert.ok(fonts.has(font), `${name}/${layer.id}: no font "${font}"`);
    }
  }
});


const paint = (style: StyleSpecification, id: string, property: string) =>
  (style.layers.find((layer) => layer.id === id)!.paint as Record<string, unknown>)[property] as string;

for (const sample of ['oakland', 'kirchberg'] as const satisfies readonly Sample[]) {
  test(`the three styles render over ${sample} from the world to the street without a warning`, async () => {
    const { dir, definitions } = await writeStreetMaps(sample);
    const lines: string[] = [];
    const log = { warn: (line: string) => lines.push(line), error: (line: string) => lines.push(line) };
    const registry = await MapRegistry.open({ dataDir: tempDir(), maps: { ...defaultConfig.maps, definitions } }, { log });
    try {
      assert.deepEqual(registry.loadErrors(), []);
      const [lon, lat] = SAMPLES[sample].center;
      for (const name of STYLES) {
        const map = registry.get(name)!;
        const render = (zoom: number) => renderPng(map, [lon, lat], zoom);
        // Zoomed out, the world: its sea and its land in the style's colours.
        const world = await colours(await render(3));
        for (const colour of [paint(styles[name], 'background', 'background-color'), paint(styles[name], 'world-land', 'fill-color')]) {
          assert.ok((world.get(colour) ?? 0) > 1000, `${name} at zoom 3 over ${sample}: ${colour} covers ${world.get(colour) ?? 0} pixels`);
        }
        // At street zooms, the extract: streets in the minor road colour over the land.
        for (const zoom of [15, 17]) {
          const street = await colours(await render(zoom));
          const road = paint(styles[name], 'road-minor', 'line-color');
          assert.ok((street.get(road) ?? 0) > 200, `${name} at zoom ${zoom} over ${sample}: minor roads ${road} cover ${street.get(road) ?? 0} pixels`);
        }
      }
      assert.deepEqual(lines, []);
    } finally {
      await registry.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
