/**
 * The cases of the render-test suite: each folder of test/fixtures/render (but `_data`) holds a
 * style.json, a view.json and the reference expected.png that MapLibre GL JS rendered from them.
 * A case may draw a style it shares with others instead of its own style.json: view.json's `style`
 * is then that file's path, relative to the case folder (e.g. "../_data/town/protomaps-style.json"),
 * and the style's relative URLs resolve from the style's folder.
 */

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Viewport } from '../../../src/render/view/viewport.js';

/** Share of pixels that may differ beyond pixelmatch's threshold when view.json does not say. */
export const DEFAULT_MAX_DIFF = 0.01;

export interface RenderCase {
  name: string;
  /** Absolute path of the case folder: relative URLs of its style resolve from here. */
  dir: string;
  /** Absolute path of the style file: the case's style.json, or the shared style view.json names. */
  style: string;
  view: Viewport;
  /** Largest share of differing pixels that still passes. */
  maxDiff: number;
  /** The case has labels: compared by the labels placed, its pixel difference only reported. */
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
  const { center, zoom, width, height, pixelRatio = 1, maxDiff = DEFAULT_MAX_DIFF, style = 'style.json', text = false } = view;
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
    typeof maxDiff === 'number' &&
    typeof style === 'string' &&
    typeof text === 'boolean';
  if (!valid) {
    throw new Error(`${name}/view.json: want { center: [lon, lat], zoom, width, height, pixelRatio?: 1 | 2, maxDiff?, style?: "path", text?: boolean }`);
  }
  return {
    name,
    dir,
    style: path.resolve(dir, style as string),
    view: { center: [center[0], center[1]], zoom, width: width as number, height: height as number, pixelRatio },
    maxDiff,
    text: text as boolean,
  };
}
