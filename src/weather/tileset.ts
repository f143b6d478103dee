import { randomUUID } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { NewKeyframe } from './catalog.js';
import { buildLayer, variableId, type LayerInput } from './layer.js';
import { writeArchive } from '../platform/pmtiles.js';
import { sourceGridFile } from './source-grid.js';
import { tilePyramid, type GriddedField } from './tiler.js';

/**
 * One keyframe: a field tiled from zoom 0 to `maxZoom` into its own PMTiles archive, named after
 * the keyframe's UUID, with the catalog entry that describes it. Nothing is published here.
 */
export async function buildKeyframe(directory: string, field: GriddedField, input: Omit<LayerInput, 'bounds'>): Promise<NewKeyframe> {
  const id = randomUUID();
  const { variable, maxZoom, format } = input;
  const tiles = await tilePyramid(field, { min: variable.min, max: variable.max }, maxZoom, format);
  const layer = buildLayer({ ...input, bounds: field.bounds });
  const archive = `${id}.pmtiles`;
  await mkdir(directory, { recursive: true });
  await writeArchive(path.join(directory, archive), tiles, {
    tileType: format,
    minZoom: 0,
    maxZoom,
    bounds: [field.bounds.west, field.bounds.south, field.bounds.east, field.bounds.north],
    center: layer.metadata.center as [number, number, number],
    metadata: layer,
  });
  return { id, variableId: variableId(variable, input.model), validTime: input.validTime, archive, layer };
}

/** Removes a keyframe's files: its archive and the source grid beside it (source-grid.ts). */
export async function removeKeyframeFiles(directory: string, archive: string): Promise<void> {
  await Promise.all([archive, sourceGridFile(archive)].map((file) => rm(path.join(directory, file), { force: true })));
}
