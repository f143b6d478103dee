/**
 * Which styles fit an archive, from its tile type and the vector layers its metadata lists:
 *
 * - `openmaptiles`: the OpenMapTiles schema (tilemaker's, Planetiler's and OpenMapTiles' own
 *   archives, and `maps import`'s): it has `water`, `transportation` and `place`;
 * - `protomaps`: the Protomaps basemap schema, version 4 (the one @protomaps/basemaps 5 styles):
 *   it has `earth`, `water`, `roads` and `places`. Its archives say their version in the metadata's
 *   `version` (Planetiler writes the profile's, "4.8.2"); another major version is refused, since
 *   the styles would ask for layers and fields it lays out otherwise (version 3 has `natural`,
 *   `physical_line`…). An archive without a version is taken by its layers;
 * - `raster`: PNG, JPEG or WebP tiles.
 *
 * Any other vector schema is refused with the layers found: a generic style would show a map that
 * looks broken, and a style written for the schema can be added as a map definition by hand.
 */

import type { Schema } from '../../platform/map-names.js';
import type { AddedArchive } from './added-archive.js';
import { ArchiveError } from './added-archive.js';

export type { Schema };

export const OPENMAPTILES_LAYERS = ['water', 'transportation', 'place'] as const;
export const PROTOMAPS_LAYERS = ['earth', 'water', 'roads', 'places'] as const;
export const PROTOMAPS_VERSION = 4;

export function detectSchema(archive: Pick<AddedArchive, 'label' | 'tileType' | 'vectorLayers' | 'metadata'>): Schema {
  if (archive.tileType !== 'mvt') return 'raster';
  const has = (layers: readonly string[]) => layers.every((layer) => archive.vectorLayers.includes(layer));
  if (has(OPENMAPTILES_LAYERS)) return 'openmaptiles';
  if (has(PROTOMAPS_LAYERS)) {
    const version = archive.metadata.version;
    const major = typeof version === 'string' ? /^(\d+)\./.exec(version)?.[1] : undefined;
    if (major !== undefined && Number(major) !== PROTOMAPS_VERSION) {
      throw new ArchiveError(`${archive.label} is a Protomaps basemap of version ${String(version)}; the Protomaps styles draw version ${PROTOMAPS_VERSION}`);
    }
    return 'protomaps';
  }
  const found = archive.vectorLayers.length > 0 ? `its layers are ${archive.vectorLayers.join(', ')}` : 'its metadata lists no vector layers';
  throw new ArchiveError(
    `${archive.label}: no known schema (${found}); OpenMapTiles needs ${OPENMAPTILES_LAYERS.join(', ')}, Protomaps ${PROTOMAPS_LAYERS.join(', ')}`,
  );
}
