/**
 * The cases of the render-test suite: each folder of test/fixtures/render (but `_data`) holds a
 * style.json, a view.json and the reference expected.png that MapLibre GL JS rendered from them.
 * A case may draw a style it shares with others instead of its own style.json: view.json's `style`
 * is then that file's path, relative to the case folder (e.g. "../_data/town/protomaps-style.json"),
 * and the style's relative URLs resolve from the style's folder.
 *
 * A case with symbol layers also has labels.json, the labels MapLibre placed. A case in which
 * MapLibre shows text is a text case: glyph edges legitimately differ (MapLibre draws signed
 * distance fields, we draw vector outlines), so its pixels are held to the difference recorded in
 * text-baselines.json (text-baselines.ts) rather than to a maxDiff, which its view.json may not set.
 */

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PlacedLabel } from '../../../src/render/symbol/placement.js';
import type { Viewport } from '../../../src/render/view/viewport.js';

/** Share of pixels that may differ beyond pixelmatch's threshold when view.json does not say. */
export const DEFAULT_MAX_DIFF = 0.01;

/** A placed label of either side; MapLibre's labels.json records no anchor name. */
export type LabelLike = Omit<PlacedLabel, 'anchor'>;

export interface RenderCase {
  name: string;
  /** Absolute path of the case folder: relative URLs of its style resolve from here. */
  dir: string;
  /** Absolute path of the style file: the case's style.json, or the shared style view.json names. */
  style: string;
  view: Viewport;
  /** Largest share of differing pixels that still passes; not used for a text case. */
  maxDiff: number;
  /** The labels MapLibre placed (labels.json), for a case with symbol layers. */
  labels: LabelLike[] | undefined;
  /** MapLibre shows text in this case: its pixels are held to its recorded baseline. */
  text: boolean;
}

/** The repository root, found from this file whether it runs from test/ or from dist/test/. */
export const repoRoot = findRoot(path.dirname(fileURLToPath(import.meta.url)));
export const fixturesDir = path.join(repoRoot, 'test/fixtures/render');
/** Where a failing comparison leaves actual.png, expected.png and diff.png (git-ignored). */
export const artifactsDir = path.join(repoRoot, 'test-artifacts/render');

function findRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${start}`);
  }
}

/** Every case in name order, or only those named (an unknown name is an error, not a silent skip). */
export function listCases(names: readonly string[] = []): RenderCase[] {
  const all = readdirSync(fixturesDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('_'))
    .map((entry) => entry.name)
    .sort();
  const unknown = names.filter((name) => !all.includes(name));
  if (unknown.length > 0) throw new Error(`no render case named ${unknown.join(', ')}`);
  return (names.length > 0 ? names : all).map((name) => readCase(path.join(fixturesDir, name)));
}

/** The case in folder `dir`, named after the folder. */
export function readCase(dir: string): RenderCase {
  const name = path.basename(dir);
  const view = JSON.parse(readFileSync(path.join(dir, 'view.json'), 'utf8')) as Record<string, unknown>;
  const { center, zoom, width, height, pixelRatio = 1, maxDiff, style = 'style.json', ...rest } = view;
  const valid =
    Array.isArray(center) &&
    center.length === 2 &&
    center.every((value) => typeof value === 'number') &&
    typeof zoom === 'number' &&
    Number.isInteger(width) &&
    Number.isInteger(height) &&
    (width as number) > 0 &&
    (height as number) > 0 &&
    (pixelRatio === 1 || pixelRatio === 2) &&
    (maxDiff === undefined || typeof maxDiff === 'number') &&
    typeof style === 'string' &&
    Object.keys(rest).length === 0;
  if (!valid) {
    throw new Error(`${name}/view.json: want { center: [lon, lat], zoom, width, height, pixelRatio?: 1 | 2, maxDiff?, style?: "path" }`);
  }
  const labelsFile = path.join(dir, 'labels.json');
  const labels = existsSync(labelsFile) ? (JSON.parse(readFileSync(labelsFile, 'utf8')) as LabelLike[]) : undefined;
  const text = labels?.some((label) => label.textPlaced && label.text.length > 0) ?? false;
  if (text && maxDiff !== undefined) {
    throw new Error(`${name}/view.json: maxDiff does not apply to a case with text, whose pixels are held to text-baselines.json`);
  }
  return {
    name,
    dir,
    style: path.resolve(dir, style as string),
    view: { center: [center[0], center[1]], zoom, width: width as number, height: height as number, pixelRatio },
    maxDiff: (maxDiff as number | undefined) ?? DEFAULT_MAX_DIFF,
    labels,
    text,
  };
}
