/**
 * `npm run bench:static`, labels: two labelled styles rendered with and without their symbol
 * layers, by a `meridian serve` process with one render thread (one core) through HTTP, and by
 * MapLibre GL JS in Chromium over the same tiles and fonts in the same run (see maplibre-peer.ts):
 *  - the `world` map at zooms 2 to 6, three centres;
 *  - the OpenMapTiles basic-preview style (npm tileserver-gl-styles) over the test town of the
 *    render tests at zooms 14 to 16 by halves, two centres.
 * Images 512x512 and 1024x768@2x, PNG. Each view is asked for once cold, then `repeat` times warm,
 * the three (ours labelled, ours unlabelled, MapLibre labelled) taking turns image by image, with a
 * pause before each (`afterPause`) so that none measures the trailing work of the one before.
 * MapLibre's warm figures are `pan` (a loaded view moved by a pixel: placed and drawn again) and
 * `redraw` (the same frame drawn again), as in static.ts.
 * Reported per style and size: what labels cost us (labelled ÷ unlabelled p50, target under 2×)
 * and how much faster than MapLibre GL JS the labelled render is (target at least 3×); cold, also
 * view by view (the p50 of each view's ratio, and the ratio of the totals), since the p50 of the
 * colds alone falls between views with new tiles and views whose tiles were read already.
 */

import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openArchive, type Archive } from '../src/platform/pmtiles.js';
import { afterPause, createKey, percentile, root, saveResults, startInstance, timedGet } from './instance.js';
import { MapLibrePeer, type PeerSize, type PeerView } from './maplibre-peer.js';
import { worldMaps } from './world.js';

const repeat = Number(process.env.MERIDIAN_BENCH_REPEAT ?? 5);
/** Runs only the styles whose id (`world`, `town`) holds this, for a quick look. */
const only = process.env.MERIDIAN_BENCH_LABELS_ONLY ?? '';
const sizes: (PeerSize & { name: string })[] = [
  { name: '512x512', width: 512, height: 512, pixelRatio: 1 },
  { name: '1024x768@2x', width: 1024, height: 768, pixelRatio: 2 },
];

interface Style {
  version: 8;
  sources: Record<string, Record<string, unknown>>;
  glyphs?: string;
  layers: { id: string; type: string; layout?: Record<string, unknown> }[];
}

interface Subject {
  /** Map id of the labelled style; `<id>-plain` is the same without its symbol layers. */
  id: string;
  /** The archive the style's only vector source reads. */
  archive: string;
  style: Style;
  source: string;
  views: PeerView[];
}

function views(centres: [number, number][], zooms: number[]): PeerView[] {
  return zooms.flatMap((zoom) => centres.map((center) => ({ center, zoom })));
}

const withoutLabels = (style: Style): Style => ({ ...style, layers: style.layers.filter((layer) => layer.type !== 'symbol') });

/** A maps folder with each subject twice: `<id>` as it is and `<id>-plain` without symbol layers. */
function mapsFolder(subjects: readonly Subject[]): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'meridian-bench-labels-'));
  for (const subject of subjects) {
    const folder = path.join(dir, subject.id);
    mkdirSync(folder);
    symlinkSync(subject.archive, path.join(folder, 'tiles.pmtiles'));
    const local = (style: Style): Style => ({ ...style, sources: { [subject.source]: { ...style.sources[subject.source], url: 'pmtiles://tiles.pmtiles' } } });
    writeFileSync(path.join(folder, 'style.json'), JSON.stringify(local(subject.style)));
    writeFileSync(path.join(folder, 'plain.json'), JSON.stringify(local(withoutLabels(subject.style))));
    writeFileSync(path.join(dir, `${subject.id}.json`), JSON.stringify({ style: `${subject.id}/style.json` }));
    writeFileSync(path.join(dir, `${subject.id}-plain.json`), JSON.stringify({ style: `${subject.id}/plain.json` }));
  }
  return dir;
}

interface Row {
  labelled: { cold: number[]; warm: number[] };
  unlabelled: { warm: number[] };
  maplibre: { cold: number[]; pan: number[]; redraw: number[] };
}

async function compare(subjects: readonly Subject[]): Promise<Record<string, Row>> {
  const dir = mapsFolder(subjects);
  const instance = await startInstance({ MERIDIAN_MAPS_DIR: dir, MERIDIAN_MAPS_WORKERS: '1' });
  const archives: Record<string, Archive> = {};
  for (const subject of subjects) archives[subject.id] = await openArchive(subject.archive);
  const peer = await MapLibrePeer.start(archives);
  const results: Record<string, Row> = {};
  try {
    const key = await createKey(instance);
    for (const subject of subjects) {
      const source = { type: 'vector', tiles: [peer.tiles(subject.id)], minzoom: archives[subject.id]!.minZoom, maxzoom: archives[subject.id]!.maxZoom };
      const style: Style = { ...subject.style, glyphs: peer.glyphs, sources: { [subject.source]: source } };
      peer.prepareGlyphs(style);
      for (const size of sizes) {
        const row: Row = { labelled: { cold: [], warm: [] }, unlabelled: { warm: [] }, maplibre: { cold: [], pan: [], redraw: [] } };
        results[`${subject.id} ${size.name}`] = row;
        const page = await peer.open(style, size);
        try {
          for (const view of subject.views) {
            const scale = size.pixelRatio === 2 ? '@2x' : '';
            const url = (id: string) => `${instance.base}/api/maps/${id}/static/${view.center[0]},${view.center[1]},${view.zoom}/${size.width}x${size.height}${scale}.png?key=${key}`;
            row.labelled.cold.push((await afterPause(() => timedGet(url(subject.id)))).ms);
            await timedGet(url(`${subject.id}-plain`));
            row.maplibre.cold.push((await afterPause(() => page.cold(view, 'png'))).ms);
            for (let i = 0; i < repeat; i++) {
              row.labelled.warm.push((await afterPause(() => timedGet(url(subject.id)))).ms);
              row.unlabelled.warm.push((await afterPause(() => timedGet(url(`${subject.id}-plain`)))).ms);
              row.maplibre.pan.push((await afterPause(() => page.pan(view, 'png'))).ms);
              row.maplibre.redraw.push((await afterPause(() => page.redraw('png'))).ms);
            }
          }
        } finally {
          await page.close();
        }
      }
    }
  } finally {
    await peer.close();
    for (const archive of Object.values(archives)) await archive.close();
    await instance.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}

const p50 = (values: number[]) => percentile(values, 50);
const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
const ms = (value: number) => value.toFixed(1).padStart(7);

const world = await worldMaps();
const townDir = path.join(root, 'test/fixtures/render/_data/town');
const subjects: Subject[] = [
  {
    id: 'world',
    archive: path.join(world.dir, 'world/world.pmtiles'),
    style: JSON.parse(readFileSync(path.join(world.dir, 'world/style.json'), 'utf8')) as Style,
    source: 'world',
    views: views([[10, 50], [-95, 38], [110, 15]], [2, 3, 4, 5, 6]),
  },
  {
    id: 'town',
    archive: path.join(townDir, 'openmaptiles.pmtiles'),
    style: JSON.parse(readFileSync(path.join(townDir, 'openmaptiles-style.json'), 'utf8')) as Style,
    source: 'openmaptiles',
    views: views([[8.3165, 47.2212], [8.325, 47.215]], [14, 14.5, 15, 15.5, 16]),
  },
];
try {
  const results = await compare(subjects.filter((subject) => subject.id.includes(only)));
  console.log(`labels: ${repeat} warm repeats per view, the sides taking turns; milliseconds, p50`);
  console.log('style  image        | Meridian labelled  unlabelled | label cost | MapLibre pan  redraw | vs pan  vs redraw | cold: Meridian  MapLibre  ratio | view by view: p50 ratio, total ratio');
  const rows = subjects.filter((subject) => subject.id.includes(only)).flatMap((subject) =>
    sizes.map((size) => {
      const result = results[`${subject.id} ${size.name}`]!;
      const row = {
        style: subject.id,
        image: size.name,
        labelled: p50(result.labelled.warm),
        unlabelled: p50(result.unlabelled.warm),
        maplibrePan: p50(result.maplibre.pan),
        maplibreRedraw: p50(result.maplibre.redraw),
        labelledCold: p50(result.labelled.cold),
        maplibreCold: p50(result.maplibre.cold),
        // Each view's cold image on both sides, paired: a view's first image costs what its tiles
        // cost, so the colds of a style fall in two groups (new tiles, tiles the view before had
        // read), and the p50 of ten lands on whichever side of the gap the fifth one does.
        coldRatios: result.labelled.cold.map((ours, i) => result.maplibre.cold[i]! / ours),
        coldSumRatio: sum(result.maplibre.cold) / sum(result.labelled.cold),
        // Each view's cold image, ms, ours and MapLibre's, in the order of the views.
        colds: { meridian: result.labelled.cold, maplibre: result.maplibre.cold },
      };
      const ratio = (theirs: number, ours: number) => `${(theirs / ours).toFixed(1).padStart(5)}x`;
      console.log(
        `${row.style.padEnd(6)} ${row.image.padEnd(12)} | ${ms(row.labelled)}           ${ms(row.unlabelled)} | ${(row.labelled / row.unlabelled).toFixed(2).padStart(6)}x    | ${ms(row.maplibrePan)} ${ms(row.maplibreRedraw)} | ${ratio(row.maplibrePan, row.labelled)}  ${ratio(row.maplibreRedraw, row.labelled)}   | ${ms(row.labelledCold)}  ${ms(row.maplibreCold)}  ${ratio(row.maplibreCold, row.labelledCold)} | ${p50(row.coldRatios).toFixed(1).padStart(5)}x  ${row.coldSumRatio.toFixed(1).padStart(5)}x`,
      );
      return row;
    }),
  );
  saveResults('static-labels', { repeat, rows });
} finally {
  if (world.temporary) rmSync(world.dir, { recursive: true, force: true });
}
