/**
 * Mapbox Vector Tile (spec 2.1) bytes straight into features whose geometry is TileRings.
 *
 * @mapbox/vector-tile reads the same format, but its geometry is arrays of Point objects: a town
 * tile's 20,000 points became 20,000 objects, and then Int32Arrays, and the garbage collector took
 * a quarter of a tile's decoding time. This reader walks the same protobuf messages with `pbf`,
 * writes each ring's coordinates into one reused buffer and copies out an Int32Array per ring.
 * It reads what that library reads and fails where it fails (unknown commands, values of no known
 * type, features without geometry), so tiles MapLibre draws are the tiles drawn here.
 */

import { PbfReader } from 'pbf';
import type { TileFeature, TileLayer, TileRing } from './source.js';

/** Which property becomes the feature id: one for every layer, or one per layer (MapLibre's promoteId). */
export type PromoteId = string | Record<string, string>;

type Value = string | number | boolean;

/** Coordinates of the ring being read, grown as needed and kept between tiles (one thread, synchronous). */
let scratch = new Int32Array(4096);

export function readMvt(bytes: Uint8Array, promoteId?: PromoteId): Map<string, TileLayer> {
  const pbf = new PbfReader(bytes);
  const layers = new Map<string, TileLayer>();
  while (pbf.pos < pbf.length) {
    const tag = pbf.readVarint();
    if (tag === 26) {
      const end = pbf.readVarint() + pbf.pos;
      const layer = readLayer(pbf, end, promoteId);
      pbf.pos = end;
      if (layer) layers.set(layer.name, layer.layer);
    } else pbf.skip(tag);
  }
  return layers;
}

/** A layer's features are read once its keys and values are known, which the format lets come after them. */
function readLayer(pbf: PbfReader, end: number, promoteId: PromoteId | undefined): { name: string; layer: TileLayer } | undefined {
  let name = '';
  let extent = 4096;
  const keys: string[] = [];
  const values: Value[] = [];
  const featureStarts: number[] = [];
  while (pbf.pos < end) {
    const tag = pbf.readVarint();
    if (tag === 10) name = pbf.readString();
    else if (tag === 18) {
      featureStarts.push(pbf.pos);
      pbf.skip(tag);
    } else if (tag === 26) keys.push(pbf.readString());
    else if (tag === 34) values.push(readValue(pbf));
    else if (tag === 40) extent = pbf.readVarint();
    else pbf.skip(tag);
  }
  // An empty layer is no layer, as in @mapbox/vector-tile.
  if (featureStarts.length === 0) return undefined;
  const idProperty = typeof promoteId === 'string' ? promoteId : promoteId?.[name];
  const features: TileFeature[] = [];
  for (const start of featureStarts) {
    pbf.pos = start;
    const feature = readFeature(pbf, pbf.readVarint() + pbf.pos, keys, values, idProperty);
    if (feature) features.push(feature);
  }
  return { name, layer: { extent, features } };
}

function readValue(pbf: PbfReader): Value {
  let value: Value | null = null;
  const end = pbf.readVarint() + pbf.pos;
  while (pbf.pos < end) {
    const tag = pbf.readVarint();
    value =
      tag === 10 ? pbf.readString()
      : tag === 21 ? pbf.readFloat()
      : tag === 25 ? pbf.readDouble()
      : tag === 32 ? pbf.readVarint(true)
      : tag === 40 ? pbf.readVarint()
      : tag === 48 ? pbf.readSVarint()
      : tag === 56 ? pbf.readBoolean()
      : (pbf.skip(tag), null);
  }
  if (value === null) throw new Error('unknown feature value');
  return value;
}

/** Undefined for geometry type 0 (unknown) and types the spec does not know, which MapLibre does not draw either. */
function readFeature(pbf: PbfReader, end: number, keys: string[], values: Value[], idProperty: string | undefined): TileFeature | undefined {
  // No prototype: a key such as `constructor` or `__proto__` is a property like any other.
  const properties: Record<string, Value> = Object.create(null) as Record<string, Value>;
  let id: number | undefined;
  let type = 0;
  let geometry = -1;
  while (pbf.pos < end) {
    const tag = pbf.readVarint();
    if (tag === 8) id = pbf.readVarint();
    else if (tag === 18) {
      const tagsEnd = pbf.readVarint() + pbf.pos;
      while (pbf.pos < tagsEnd) {
        const key = keys[pbf.readVarint()]!;
        properties[key] = values[pbf.readVarint()]!;
      }
    } else if (tag === 24) type = pbf.readVarint();
    else if (tag === 34) {
      geometry = pbf.pos;
      pbf.skip(tag);
    } else pbf.skip(tag);
  }
  if (type < 1 || type > 3) return undefined;
  if (geometry < 0) throw new Error('feature has no geometry');
  const promoted = idProperty === undefined ? undefined : properties[idProperty];
  const featureId = typeof promoted === 'number' || typeof promoted === 'string' ? promoted : id;
  const rings = readGeometry(pbf, geometry);
  return featureId === undefined
    ? { type: type as 1 | 2 | 3, properties, geometry: rings }
    : { id: featureId, type: type as 1 | 2 | 3, properties, geometry: rings };
}

/**
 * The command stream (MoveTo, LineTo, ClosePath) as rings: each MoveTo starts one, ClosePath
 * repeats its first point, as @mapbox/vector-tile's loadGeometry makes them.
 */
function readGeometry(pbf: PbfReader, start: number): TileRing[] {
  pbf.pos = start;
  const end = pbf.readVarint() + pbf.pos;
  const rings: TileRing[] = [];
  let n = -1; // ints written for the ring being read; -1 before the first MoveTo
  let command = 1;
  let count = 0;
  let x = 0;
  let y = 0;
  while (pbf.pos < end) {
    if (count <= 0) {
      const header = pbf.readVarint();
      command = header & 7;
      count = header >> 3;
      if (count === 0) continue;
    }
    count--;
    if (command === 1 || command === 2) {
      x += pbf.readSVarint();
      y += pbf.readSVarint();
      if (command === 1) {
        if (n >= 0) rings.push(scratch.slice(0, n));
        n = 0;
      } else if (n < 0) continue;
      if (n + 2 > scratch.length) scratch = grow(scratch, n);
      scratch[n++] = x;
      scratch[n++] = y;
    } else if (command === 7) {
      if (n < 0) continue;
      if (n + 2 > scratch.length) scratch = grow(scratch, n);
      scratch[n] = scratch[0]!;
      scratch[n + 1] = scratch[1]!;
      n += 2;
    } else {
      throw new Error(`unknown command ${command}`);
    }
  }
  if (n >= 0) rings.push(scratch.slice(0, n));
  return rings;
}

function grow(buffer: Int32Array<ArrayBuffer>, used: number): Int32Array<ArrayBuffer> {
  const bigger = new Int32Array(buffer.length * 2);
  bigger.set(buffer.subarray(0, used));
  return bigger;
}
