/**
 * `meridian maps build-sprite SVG_DIR OUT_BASE`: a MapLibre sprite (`OUT_BASE.json` + `.png` and
 * `OUT_BASE@2x.json` + `.png`) from a folder of SVG files, each an image named after its file
 * (`buildSprite`), or from a list of named SVGs (`writeSprite`, for tools that pick their icons). The
 * SVGs are rasterised by sharp (librsvg) at their own size times the pixel ratio and packed with
 * potpack, a pixel apart.
 *
 * An optional `<name>.json` next to `<name>.svg` gives what the SVG cannot say, in the SVG's own
 * pixels (scaled with the pixel ratio in the index): `{"sdf": true}` stores the image as a signed
 * distance field for `icon-color` and halos (grown by SDF_BUFFER pixels on each side), and
 * `stretchX`, `stretchY`, `content`, `textFitWidth`, `textFitHeight` go to the index as they are
 * for `icon-text-fit`.
 */

import { readdir, readFile, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import potpack from 'potpack';
import sharp, { type OutputInfo } from 'sharp';
import { signedDistanceField } from '../../render/sprite/sdf.js';
import { parseIndex } from '../../render/sprite/sprite.js';

/** Around an SDF image, in CSS pixels: room for a halo this wide. */
const SDF_BUFFER = 4;
/** Distance covered by the SDF's ramp, per CSS pixel (MapLibre's SDF_PX). */
const SDF_RADIUS = 8;
/** Largest side of one rasterised image, in pixels. */
const MAX_IMAGE_SIDE = 2048;
const RATIOS = [1, 2] as const;

export interface SpriteImageOptions {
  sdf?: boolean;
  stretchX?: [number, number][];
  stretchY?: [number, number][];
  content?: [number, number, number, number];
  textFitWidth?: string;
  textFitHeight?: string;
}

interface Raster {
  name: string;
  width: number;
  height: number;
  rgba: Buffer;
  options: SpriteImageOptions;
  /** Pixels added on each side (SDF images). */
  buffer: number;
}

export interface BuiltSprite {
  images: number;
  files: string[];
}

export async function buildSprite(svgDir: string, outBase: string): Promise<BuiltSprite> {
  let names: string[];
  try {
    names = (await readdir(svgDir)).filter((file) => file.endsWith('.svg')).map((file) => file.slice(0, -'.svg'.length)).sort();
  } catch (error) {
    throw new Error(`cannot read ${svgDir}: ${(error as Error).message}`);
  }
  if (names.length === 0) throw new Error(`${svgDir} has no .svg files`);
  const images = await Promise.all(
    names.map(async (name) => ({ name, svg: await readFile(path.join(svgDir, `${name}.svg`)), options: await readOptions(path.join(svgDir, `${name}.json`)) })),
  );
  return writeSprite(images, outBase);
}

/** One image of a sprite: its name in the index, its SVG, and what the SVG cannot say. */
export interface SpriteImage {
  name: string;
  svg: Buffer;
  options: SpriteImageOptions;
}

/** Writes the sprite of these images (names unique) at OUT_BASE, 1x and @2x. */
export async function writeSprite(images: readonly SpriteImage[], outBase: string): Promise<BuiltSprite> {
  if (images.length === 0) throw new Error('a sprite needs at least one image');
  const duplicate = images.find((image, i) => images.findIndex((other) => other.name === image.name) !== i);
  if (duplicate) throw new Error(`two images are named "${duplicate.name}"`);
  await mkdir(path.dirname(path.resolve(outBase)), { recursive: true });
  const files: string[] = [];
  for (const ratio of RATIOS) {
    const rasters = await Promise.all(images.map(({ name, svg, options }) => rasterise(name, svg, options, ratio)));
    const { png, index } = await pack(rasters, ratio);
    const suffix = ratio === 1 ? '' : `@${ratio}x`;
    await writeFile(`${outBase}${suffix}.png`, png);
    await writeFile(`${outBase}${suffix}.json`, `${JSON.stringify(index, null, 2)}\n`);
    files.push(`${outBase}${suffix}.json`, `${outBase}${suffix}.png`);
  }
  return { images: images.length, files };
}

async function readOptions(file: string): Promise<SpriteImageOptions> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new Error(`cannot read ${file}: ${(error as Error).message}`);
  }
  let options: unknown;
  try {
    options = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file} is not valid JSON: ${(error as Error).message}`);
  }
  const known = ['sdf', 'stretchX', 'stretchY', 'content', 'textFitWidth', 'textFitHeight'];
  if (typeof options !== 'object' || options === null || Array.isArray(options)) throw new Error(`${file} is not a JSON object`);
  const unknown = Object.keys(options).filter((key) => !known.includes(key));
  if (unknown.length > 0) throw new Error(`${file}: unknown ${unknown.join(', ')} (known: ${known.join(', ')})`);
  return options as SpriteImageOptions;
}

async function rasterise(name: string, svg: Buffer, options: SpriteImageOptions, ratio: number): Promise<Raster> {
  let raw: { data: Buffer; info: OutputInfo };
  try {
    raw = await sharp(svg, { density: 72 * ratio }).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  } catch (error) {
    throw new Error(`${name}.svg cannot be rasterised: ${(error as Error).message}`);
  }
  const { width, height } = raw.info;
  if (width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE) throw new Error(`${name}.svg is ${width} × ${height} pixels at @${ratio}x, more than ${MAX_IMAGE_SIDE} a side`);
  if (!options.sdf) return { name, width, height, rgba: raw.data, options, buffer: 0 };
  const alpha = new Uint8Array(width * height);
  for (let i = 0; i < alpha.length; i++) alpha[i] = raw.data[i * 4 + 3]!;
  const buffer = SDF_BUFFER * ratio;
  const field = signedDistanceField(alpha, width, height, buffer, SDF_RADIUS * ratio);
  // The distance lives in alpha, over black, as MapLibre's SDF sprites store it.
  const rgba = Buffer.alloc(field.width * field.height * 4);
  for (let i = 0; i < field.data.length; i++) rgba[i * 4 + 3] = field.data[i]!;
  return { name, width: field.width, height: field.height, rgba, options, buffer };
}

async function pack(rasters: readonly Raster[], ratio: number): Promise<{ png: Buffer; index: Record<string, unknown> }> {
  const boxes = rasters.map((raster) => ({ raster, w: raster.width + 1, h: raster.height + 1, x: 0, y: 0 }));
  const { w, h } = potpack(boxes);
  const png = await sharp({ create: { width: Math.max(1, w - 1), height: Math.max(1, h - 1), channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
    .composite(boxes.map(({ raster, x, y }) => ({ input: raster.rgba, raw: { width: raster.width, height: raster.height, channels: 4 as const }, left: x, top: y })))
    .png({ compressionLevel: 9, adaptiveFiltering: true })
    .toBuffer();
  const scaled = (value: number, buffer: number) => value * ratio + buffer;
  const index: Record<string, unknown> = {};
  for (const { raster, x, y } of [...boxes].sort((a, b) => (a.raster.name < b.raster.name ? -1 : 1))) {
    const { options, buffer } = raster;
    index[raster.name] = {
      width: raster.width,
      height: raster.height,
      x,
      y,
      pixelRatio: ratio,
      ...(options.sdf ? { sdf: true } : {}),
      ...(options.stretchX ? { stretchX: options.stretchX.map(([from, to]) => [scaled(from, buffer), scaled(to, buffer)]) } : {}),
      ...(options.stretchY ? { stretchY: options.stretchY.map(([from, to]) => [scaled(from, buffer), scaled(to, buffer)]) } : {}),
      ...(options.content ? { content: options.content.map((value) => scaled(value, buffer)) } : {}),
      ...(options.textFitWidth ? { textFitWidth: options.textFitWidth } : {}),
      ...(options.textFitHeight ? { textFitHeight: options.textFitHeight } : {}),
    };
  }
  // What MapLibre (and Meridian) will accept, checked before anything is written.
  parseIndex(index, { width: Math.max(1, w - 1), height: Math.max(1, h - 1) });
  return { png, index };
}
