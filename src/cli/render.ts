/**
 * `meridian render`: one static image without a server, through the same request grammar, renderer
 * and encoder as the HTTP route, so that what it writes is byte for byte what the route would send.
 */

import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config.js';
import { IconLoader } from '../maps/static/icons.js';
import { MapRegistry } from '../maps/registry.js';
import { parseStaticRequest, type Query } from '../maps/static/request.js';
import { renderStaticImage } from '../maps/static/static-image.js';
import { RenderUsageError } from './usage.js';
import { ApiError } from '../platform/errors.js';

export interface RenderOptions {
  map: string;
  center?: string | undefined;
  bounds?: string | undefined;
  auto?: boolean | undefined;
  size: string;
  /** The image format; by default the output file's extension says it (PNG without one). */
  format?: string | undefined;
  path: string[];
  markers: string[];
  attribution?: string | undefined;
  padding?: string | undefined;
  language?: string | undefined;
  out: string;
}

const FORMAT_OF_EXTENSION: Record<string, string> = { '.png': 'png', '.jpg': 'jpg', '.jpeg': 'jpg', '.webp': 'webp' };

/** The format to write `out` in: `format` when given, else the extension's; a contradiction is refused. */
export function renderFormat(out: string, format: string | undefined): string {
  const extension = path.extname(out).toLowerCase();
  const implied = FORMAT_OF_EXTENSION[extension];
  if (format === undefined) {
    if (implied) return implied;
    if (extension === '') return 'png';
    throw new RenderUsageError(`cannot tell the image format from ${out}: name it .png, .jpg or .webp, or give --format`);
  }
  if (implied && implied !== format) throw new RenderUsageError(`--format ${format} contradicts ${out}, whose extension says ${implied}`);
  return format;
}

/** Renders the image and writes it to `options.out`; returns the number of bytes written. */
export async function renderToFile(config: Config, options: RenderOptions): Promise<number> {
  const areas = [options.center, options.bounds, options.auto ? 'auto' : undefined].filter((area) => area !== undefined);
  if (areas.length !== 1) throw new RenderUsageError('render needs exactly one of --center lon,lat,zoom, --bounds minx,miny,maxx,maxy and --auto');
  const format = renderFormat(options.out, options.format);
  const query: Query = { path: options.path, markers: options.markers };
  if (options.attribution !== undefined) query.attribution = options.attribution;
  if (options.padding !== undefined) query.padding = options.padding;
  if (options.language !== undefined) query.language = options.language;
  const spec = `${areas[0]}/${options.size}.${format}`;
  try {
    // Checked before the maps are opened: a malformed --center, --size, --path… is a mistake in the command, and its usage follows.
    parseStaticRequest(options.map, spec, query, 0);
  } catch (error) {
    if (error instanceof ApiError && error.failure === 'invalid') throw new RenderUsageError(error.message);
    throw error;
  }
  const log = { warn: (message: string) => process.stderr.write(`${message}\n`), error: (message: string) => process.stderr.write(`${message}\n`) };
  const registry = await MapRegistry.open(config, { log });
  try {
    const map = registry.get(options.map);
    if (!map) throw new Error(`No map "${options.map}" in ${MapRegistry.folderOf(config)} (maps.dir, MERIDIAN_MAPS_DIR) or maps.definitions; configured maps: ${registry.ids().join(', ') || 'none'}`);
    const request = parseStaticRequest(map.id, spec, query, 0, map.formats);
    const icons = await new IconLoader(config.maps.icons).load(request.markers.flatMap((group) => (group.icon ? [group.icon] : [])));
    // The command reads no weather catalog: it draws maps only (parseStaticRequest sees no weather here).
    const bytes = await renderStaticImage(map, { ...request, icons, weather: undefined });
    await writeFile(options.out, bytes);
    return bytes.length;
  } finally {
    await registry.close();
  }
}
