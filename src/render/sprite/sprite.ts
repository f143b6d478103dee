/**
 * A style's sprite: the images that `icon-image` and the `*-pattern` properties name, read from
 * MapLibre sprite files (an index `<base>.json` and a sheet `<base>.png`) as MapLibre GL JS reads
 * them: for a pixel ratio above 1 the `@2x` files (`<base>@2x.json`, before any query string), here
 * falling back to the 1x files when the `@2x` ones are not there; the array form `[{id, url}]` names
 * the images of each sprite but "default" `<id>:<name>`.
 *
 * The files come from disk (a path or `file:` URL) or http(s), within size limits and a time limit
 * (`read.ts`); the sheet's pixel size is checked in its PNG header before it is decoded. Each image
 * is cut out of the sheet into its own canvas the first time it is asked for.
 */

import { createCanvas, loadImage, type Canvas, type Image } from '@napi-rs/canvas';
import type { SpriteSpecification } from '@maplibre/maplibre-gl-style-spec';
import { redactUrl } from '../../platform/logging.js';
import { readLimited } from './read.js';

export type TextFit = 'stretchOrShrink' | 'stretchOnly' | 'proportional';

export interface SpriteImage {
  /** Name in the style: "<spriteId>:<name>" for the array form's non-default sprites. */
  readonly id: string;
  /** The icon's own pixels, width*pixelRatio × height*pixelRatio. */
  readonly image: Canvas;
  /** In CSS pixels (sprite pixels / pixelRatio). */
  readonly width: number;
  readonly height: number;
  readonly pixelRatio: number;
  readonly sdf: boolean;
  /** In sprite pixels, as the index gives them. */
  readonly stretchX?: [number, number][];
  readonly stretchY?: [number, number][];
  readonly content?: [number, number, number, number];
  readonly textFitWidth?: TextFit;
  readonly textFitHeight?: TextFit;
}

export interface ImageSet {
  image(id: string): SpriteImage | undefined;
}

export const emptyImageSet: ImageSet = { image: () => undefined };

export interface SpriteLimits {
  maxJsonBytes: number;
  maxPngBytes: number;
  /** Largest width or height of a sheet, in pixels. */
  maxSide: number;
  /** Time limit of one http(s) request, body included. */
  timeoutMs: number;
}

export const defaultSpriteLimits: SpriteLimits = { maxJsonBytes: 4 * 1024 * 1024, maxPngBytes: 16 * 1024 * 1024, maxSide: 8192, timeoutMs: 10_000 };

/** What the index says of one image, checked. */
interface IndexEntry {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
  readonly pixelRatio: number;
  readonly sdf: boolean;
  readonly stretchX?: [number, number][];
  readonly stretchY?: [number, number][];
  readonly content?: [number, number, number, number];
  readonly textFitWidth?: TextFit;
  readonly textFitHeight?: TextFit;
}

/** The files of a sprite base for a pixel ratio, as MapLibre's normalizeSpriteURL makes them. */
export function spriteFiles(base: string, pixelRatio: number): { json: string; png: string } {
  const format = pixelRatio > 1 ? '@2x' : '';
  const cut = base.search(/[?#]/);
  const [path, rest] = cut < 0 ? [base, ''] : [base.slice(0, cut), base.slice(cut)];
  return { json: `${path}${format}.json${rest}`, png: `${path}${format}.png${rest}` };
}

/** The sprite's entries as the array form has them; a single URL is the sprite "default". */
export function spriteEntries(sprite: SpriteSpecification): { id: string; url: string }[] {
  return typeof sprite === 'string' ? [{ id: 'default', url: sprite }] : sprite.map(({ id, url }) => ({ id, url }));
}

/**
 * Loads every sprite of the style's `sprite` for a pixel ratio. A sprite that cannot be used is left
 * out and its error listed; the images of the others are still there.
 */
export async function loadSprite(
  sprite: SpriteSpecification | undefined,
  pixelRatio: number,
  limits: SpriteLimits = defaultSpriteLimits,
): Promise<{ images: ImageSet; errors: string[] }> {
  if (sprite === undefined) return { images: emptyImageSet, errors: [] };
  const entries = spriteEntries(sprite);
  const results = await Promise.allSettled(entries.map(({ url }) => loadSheet(url, pixelRatio, limits)));
  const sheets: SpriteSheet[] = [];
  const errors: string[] = [];
  results.forEach((result, i) => {
    const { id, url } = entries[i]!;
    if (result.status === 'fulfilled') sheets.push(new SpriteSheet(id === 'default' ? '' : `${id}:`, result.value.image, result.value.index));
    else errors.push(`sprite ${entries.length > 1 ? `"${id}" ` : ''}${redactUrl(url)}: ${(result.reason as Error).message}`);
  });
  return { images: sheets.length === 0 ? emptyImageSet : combine(sheets), errors };
}

function combine(sets: readonly ImageSet[]): ImageSet {
  if (sets.length === 1) return sets[0]!;
  return {
    image(id) {
      for (const set of sets) {
        const found = set.image(id);
        if (found) return found;
      }
      return undefined;
    },
  };
}

/** Reads and checks one sprite's index and sheet; the @2x files fall back to the 1x ones. */
async function loadSheet(base: string, pixelRatio: number, limits: SpriteLimits): Promise<{ image: Image; index: Map<string, IndexEntry> }> {
  let files = spriteFiles(base, pixelRatio);
  const readBoth = () =>
    Promise.all([readLimited(files.json, limits.maxJsonBytes, limits.timeoutMs), readLimited(files.png, limits.maxPngBytes, limits.timeoutMs)]);
  let [json, png] = await readBoth();
  if ((!json || !png) && pixelRatio > 1) {
    files = spriteFiles(base, 1);
    [json, png] = await readBoth();
  }
  if (!json) throw new Error(`${shortName(files.json)} not found`);
  if (!png) throw new Error(`${shortName(files.png)} not found`);
  const size = pngSize(png);
  if (!size) throw new Error(`${shortName(files.png)} is not a PNG image`);
  if (size.width > limits.maxSide || size.height > limits.maxSide) {
    throw new Error(`${shortName(files.png)} is ${size.width} × ${size.height} pixels, more than ${limits.maxSide} a side`);
  }
  let document: unknown;
  try {
    document = JSON.parse(Buffer.from(json).toString('utf8'));
  } catch (error) {
    throw new Error(`${shortName(files.json)} is not valid JSON: ${(error as Error).message}`);
  }
  const index = parseIndex(document, size, shortName(files.json), shortName(files.png));
  let image: Image;
  try {
    image = await loadImage(Buffer.from(png.buffer, png.byteOffset, png.byteLength));
  } catch (error) {
    throw new Error(`${shortName(files.png)} cannot be decoded: ${(error as Error).message}`);
  }
  return { image, index };
}

/** The file name of a reference, for messages that already name the sprite. */
function shortName(reference: string): string {
  const bare = reference.split(/[?#]/)[0]!;
  return bare.slice(bare.lastIndexOf('/') + 1);
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** Width and height from a PNG's IHDR chunk; null when the bytes do not start as a PNG does. */
export function pngSize(bytes: Uint8Array): { width: number; height: number } | null {
  if (bytes.length < 24 || PNG_SIGNATURE.some((value, i) => bytes[i] !== value)) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(12) !== 0x49484452) return null;
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

const TEXT_FITS: ReadonlySet<string> = new Set(['stretchOrShrink', 'stretchOnly', 'proportional']);

function isCount(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 0;
}

function isNumbers(value: unknown, length: number): value is number[] {
  return Array.isArray(value) && value.length === length && value.every((item) => typeof item === 'number' && Number.isFinite(item));
}

/**
 * The index of a sprite checked against its sheet: every image an object with whole, non-negative
 * x, y and positive width, height inside the sheet, and optional pixelRatio, sdf, stretchX/Y,
 * content, textFitWidth/Height of the right shapes. Throws naming the first image that is not.
 */
export function parseIndex(document: unknown, sheet: { width: number; height: number }, jsonName = 'sprite.json', pngName = 'sprite.png'): Map<string, IndexEntry> {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) throw new Error(`${jsonName} is not a JSON object of images`);
  const index = new Map<string, IndexEntry>();
  for (const [name, value] of Object.entries(document as Record<string, unknown>)) {
    const fail = (why: string): never => {
      throw new Error(`${jsonName}: image "${name}" ${why}`);
    };
    if (typeof value !== 'object' || value === null) fail('is not an object');
    const entry = value as Record<string, unknown>;
    const { x, y, width, height } = entry;
    if (!isCount(x) || !isCount(y) || !isCount(width) || !isCount(height) || width === 0 || height === 0) {
      fail('needs whole x, y ≥ 0 and width, height > 0');
    }
    const [ix, iy, iw, ih] = [x as number, y as number, width as number, height as number];
    if (ix + iw > sheet.width || iy + ih > sheet.height) {
      fail(`(x ${ix}, y ${iy}, ${iw} × ${ih}) lies outside ${pngName} (${sheet.width} × ${sheet.height})`);
    }
    const pixelRatio = entry.pixelRatio ?? 1;
    if (typeof pixelRatio !== 'number' || !(pixelRatio > 0) || !Number.isFinite(pixelRatio)) fail('has a pixelRatio that is not a positive number');
    if (entry.sdf !== undefined && typeof entry.sdf !== 'boolean') fail('has an sdf that is not true or false');
    const stretches = (key: 'stretchX' | 'stretchY'): [number, number][] | undefined => {
      const stretch = entry[key];
      if (stretch === undefined) return undefined;
      if (!Array.isArray(stretch) || !stretch.every((pair) => isNumbers(pair, 2))) fail(`has a ${key} that is not a list of [from, to] pairs`);
      return (stretch as [number, number][]).map(([from, to]) => [from, to]);
    };
    const stretchX = stretches('stretchX');
    const stretchY = stretches('stretchY');
    if (entry.content !== undefined && !isNumbers(entry.content, 4)) fail('has a content that is not [left, top, right, bottom]');
    for (const key of ['textFitWidth', 'textFitHeight'] as const) {
      if (entry[key] !== undefined && !TEXT_FITS.has(entry[key] as string)) fail(`has a ${key} other than stretchOrShrink, stretchOnly and proportional`);
    }
    index.set(name, {
      x: ix,
      y: iy,
      width: iw,
      height: ih,
      pixelRatio: pixelRatio as number,
      sdf: entry.sdf === true,
      stretchX,
      stretchY,
      content: entry.content === undefined ? undefined : ([...(entry.content as number[])] as [number, number, number, number]),
      textFitWidth: entry.textFitWidth as TextFit | undefined,
      textFitHeight: entry.textFitHeight as TextFit | undefined,
    });
  }
  return index;
}

/** The images of one sheet, each cut out once, when first asked for. */
class SpriteSheet implements ImageSet {
  private readonly cut = new Map<string, SpriteImage>();

  constructor(
    /** '' for the default sprite, '<id>:' for the others of the array form. */
    private readonly prefix: string,
    private readonly sheet: Image,
    private readonly index: ReadonlyMap<string, IndexEntry>,
  ) {}

  image(id: string): SpriteImage | undefined {
    if (!id.startsWith(this.prefix)) return undefined;
    const name = id.slice(this.prefix.length);
    let image = this.cut.get(name);
    if (image) return image;
    const entry = this.index.get(name);
    if (!entry) return undefined;
    const canvas = createCanvas(entry.width, entry.height);
    const ctx = canvas.getContext('2d');
    // One sheet pixel to one image pixel: a copy, no resampling.
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(this.sheet, entry.x, entry.y, entry.width, entry.height, 0, 0, entry.width, entry.height);
    const { pixelRatio } = entry;
    image = {
      id,
      image: canvas,
      width: entry.width / pixelRatio,
      height: entry.height / pixelRatio,
      pixelRatio,
      sdf: entry.sdf,
      stretchX: entry.stretchX,
      stretchY: entry.stretchY,
      content: entry.content,
      textFitWidth: entry.textFitWidth,
      textFitHeight: entry.textFitHeight,
    };
    this.cut.set(name, image);
    return image;
  }
}
