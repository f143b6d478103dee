/**
 * Point forecasts (`GET /weather/point/{lon},{lat}.json`): the values of the latest runs' variables
 * at one place, for every keyframe in a time window, interpolated bilinearly from each keyframe's
 * source grid (source-grid.ts), not from its quantised tiles.
 *
 * The work per keyframe is a position on the grid (a binary search on a cached geometry) and one
 * or two reads of a few bytes at computed offsets of a file kept open: cheap enough for the
 * serving thread, so nothing here goes to a worker pool.
 *
 * Choices the issue leaves open, written down in docs/weather.md:
 *  - a variable's values are interpolated on its grid in grid index space (regular and Gaussian
 *    grids: longitude and latitude; reduced grids: along each row, then between rows at the same
 *    longitude; projected grids: projected x and y), as the tiles are;
 *  - where one of the four neighbours has no value (a bitmap), the nearest neighbour decides, as
 *    in the tiles; no value there is `null`;
 *  - two-channel (`rg`) variables are vectors (eastward u, northward v): the answer carries u, v,
 *    the speed of the interpolated vector and the direction it blows from (degrees clockwise from
 *    north, the meteorological convention: 270 is a westerly wind);
 *  - without `variables`, every variable of the latest runs whose grid covers the point; a base id
 *    (`temperature-2m`) names every model's variable of that id, those whose grids cover the point;
 *    a variable named in full whose grid does not cover it, or a request nothing covers, is a 400;
 *  - keyframes ingested before source grids were kept have none and are left out.
 */

import path from 'node:path';
import { ApiError, NotFoundError } from '../../platform/errors.js';
import { Lru } from '../../platform/lru.js';
import { OpenFiles } from '../../platform/files/open-files.js';
import type { KeyframeRow } from '../catalog.js';
import type { CatalogMemory } from './catalog-memory.js';
import { gridGeometry, type Geometry } from '../grib/grid.js';
import { SourceGrid, sourceGridFile } from '../source-grid.js';

export interface PointQuery {
  lon: number;
  lat: number;
  /** Variable ids (`temperature-2m:gfs`) or base ids (`temperature-2m`: every model's); all when null. */
  variables: string[] | null;
  from: Date | null;
  to: Date | null;
}

/** One keyframe's value: `value` for one channel, or u, v, speed and direction for vectors. */
export type PointValue =
  | { timestamp: string; value: number | null }
  | { timestamp: string; u: number | null; v: number | null; speed: number | null; direction: number | null };

export interface PointVariable {
  variable_id: string;
  name: string;
  unit: string;
  model: string;
  attribution: string;
  /** The model run: its reference time. */
  release_timestamp: string;
  channels: 'r' | 'rg';
  values: PointValue[];
}

export interface PointForecast {
  lon: number;
  lat: number;
  variables: PointVariable[];
}

/** `{lon},{lat}` in degrees: longitude -180..180, latitude -90..90. */
export function parsePosition(text: string): { lon: number; lat: number } {
  const parts = text.split(',');
  const numbers = parts.map((part) => (/^\s*[-+]?(\d+\.?\d*|\.\d+)\s*$/.test(part) ? Number(part) : Number.NaN));
  if (parts.length !== 2 || numbers.some(Number.isNaN)) {
    throw new ApiError(`Invalid point "${text}": expected {lon},{lat} in decimal degrees`);
  }
  const [lon, lat] = numbers as [number, number];
  if (lon < -180 || lon > 180 || lat < -90 || lat > 90) {
    throw new ApiError(`Point ${lon},${lat} is out of bounds: longitude must be within -180..180, latitude within -90..90`);
  }
  return { lon, lat };
}

/** `a,b,c` into ids; absent means all. */
export function parseVariables(text: string | undefined): string[] | null {
  if (text === undefined) return null;
  const ids = text.split(',').map((id) => id.trim());
  if (ids.some((id) => id === '')) throw new ApiError(`Invalid variables "${text}": expected comma-separated variable ids`);
  return [...new Set(ids)];
}

/** The value indices around a point on a grid, with their bilinear weights. */
export interface Stencil {
  indices: number[];
  weights: number[];
}

/** Where a point falls on a grid, or null outside it. See grid.ts for what `locate` returns. */
export function stencil(geometry: Geometry, lon: number, lat: number): Stencil | null {
  const position = geometry.locate(lon, lat);
  if (!position) return null;
  const j0 = Math.floor(position.j);
  const fj = position.j - j0;
  const j1 = Math.min(j0 + 1, geometry.height - 1);
  const indices: number[] = [];
  const weights: number[] = [];
  const row = (j: number, i: number, weight: number) => {
    const length = geometry.rows ? geometry.rows[j]! : geometry.width;
    const floor = Math.floor(i);
    const fi = i - floor;
    const i0 = ((floor % length) + length) % length;
    const i1 = geometry.wraps ? (i0 + 1) % length : Math.min(i0 + 1, length - 1);
    indices.push(geometry.index(i0, j), geometry.index(i1, j));
    weights.push((1 - fi) * weight, fi * weight);
  };
  row(j0, position.i, 1 - fj);
  row(j1, position.iNextRow, fj);
  return { indices, weights };
}

/**
 * The interpolated value of each channel; `values[k * channels + c]` is channel c of the point
 * `indices[k]` of the stencil. A missing neighbour (NaN) that counts hands over to the nearest one.
 */
export function interpolate(stencil: Stencil, values: Float32Array, channels: number): (number | null)[] {
  const { weights } = stencil;
  let nearest = 0;
  for (let k = 1; k < weights.length; k++) if (weights[k]! > weights[nearest]!) nearest = k;
  return Array.from({ length: channels }, (_, c) => {
    let sum = 0;
    for (let k = 0; k < weights.length; k++) {
      if (weights[k] === 0) continue;
      sum += weights[k]! * values[k * channels + c]!;
    }
    const value = Number.isNaN(sum) ? values[nearest * channels + c]! : sum;
    return Number.isNaN(value) ? null : value;
  });
}

/** Speed and the direction a wind blows from, in degrees clockwise from north (0 when calm). */
export function vector(u: number, v: number): { speed: number; direction: number } {
  const speed = Math.hypot(u, v);
  if (speed === 0) return { speed, direction: 0 };
  const direction = (((270 - (Math.atan2(v, u) * 180) / Math.PI) % 360) + 360) % 360;
  return { speed, direction };
}

/** Source grids kept open between requests; a run of the GFS with seven variables has about 700 keyframes. */
const MAX_OPEN_GRIDS = 256;
/** Geometries kept, one per distinct grid (the keyframes of a model share one). */
const MAX_GEOMETRIES = 16;

interface WeatherVariableMeta {
  name: string;
  unit: string;
  attribution: string;
  variable_id: string;
  decoding: { channels: 'r' | 'rg' };
}

const metaOf = (row: KeyframeRow) => (row.layer.metadata as { weather_variable: WeatherVariableMeta }).weather_variable;

export class PointForecasts {
  // A file removed by retention, or never written (a keyframe from before source grids), is null.
  private readonly grids = new OpenFiles((file) => SourceGrid.open(path.join(this.directory, file)), MAX_OPEN_GRIDS);
  private readonly geometries = new Lru<string, Geometry>(MAX_GEOMETRIES);

  constructor(
    private readonly directory: string,
    private readonly memory: CatalogMemory,
  ) {}

  async forecast(query: PointQuery): Promise<PointForecast> {
    const { lon, lat, from, to } = query;
    if (from && to && from.getTime() > to.getTime()) {
      throw new ApiError(`from (${from.toISOString()}) is after to (${to.toISOString()})`);
    }
    const rows = await this.memory.latestKeyframes();
    if (rows.length === 0) throw new NotFoundError();
    const byVariable = new Map<string, KeyframeRow[]>();
    for (const row of rows) {
      const list = byVariable.get(row.variable_id) ?? [];
      list.push(row);
      byVariable.set(row.variable_id, list);
    }
    const known = [...byVariable.keys()];
    // Each request names a group: one variable, a base id's variables, or all of them.
    const groups = query.variables === null ? [{ name: null, ids: known }] : query.variables.map((name) => ({ name, ids: this.matching(name, known) }));

    const results = new Map<string, PointVariable | 'outside'>();
    for (const variableId of new Set(groups.flatMap((group) => group.ids))) {
      results.set(variableId, await this.variable(byVariable.get(variableId)!, lon, lat, from, to));
    }
    const variables: PointVariable[] = [];
    for (const { name, ids } of groups) {
      const inside = ids.filter((id) => results.get(id) !== 'outside');
      if (inside.length === 0) {
        const which = name === null ? 'every variable' : byVariable.has(name) ? name : `every ${name} variable`;
        throw new ApiError(`Point ${lon},${lat} is outside the grid of ${which}`);
      }
      for (const id of inside) {
        const result = results.get(id) as PointVariable;
        if (!variables.includes(result)) variables.push(result);
      }
    }
    return { lon, lat, variables };
  }

  /** Catalog ids a requested id names: itself, or every model's variable of a base id. */
  private matching(name: string, known: string[]): string[] {
    const ids = known.filter((variableId) => variableId === name || variableId.slice(0, variableId.indexOf(':')) === name);
    if (ids.length === 0) throw new ApiError(`Unknown variable "${name}"; the latest runs have ${known.join(', ')}`);
    return ids;
  }

  /** One variable's keyframes in the window at the point, or 'outside' when its grid does not cover it. */
  private async variable(all: KeyframeRow[], lon: number, lat: number, from: Date | null, to: Date | null): Promise<PointVariable | 'outside'> {
    const first = all[0]!;
    const meta = metaOf(first);
    const inWindow = all.filter((row) => (!from || row.valid_time >= from) && (!to || row.valid_time <= to));
    const samples = await Promise.all(inWindow.map((row) => this.sample(row, lon, lat)));
    // With no keyframe in the window, the first one still says whether the grid covers the point.
    const covered = inWindow.length > 0 ? samples : [await this.sample(first, lon, lat)];
    if (covered.includes('outside')) return 'outside';
    return {
      variable_id: first.variable_id,
      name: meta.name,
      unit: meta.unit,
      model: first.model,
      attribution: meta.attribution,
      release_timestamp: first.reference_time.toISOString(),
      channels: meta.decoding.channels,
      values: inWindow.flatMap((row, k): PointValue[] => {
        const channels = samples[k] as (number | null)[] | null;
        if (channels === null) return [];
        const timestamp = row.valid_time.toISOString();
        if (channels.length === 1) return [{ timestamp, value: channels[0]! }];
        const [u, v] = channels as [number | null, number | null];
        const { speed, direction } = u === null || v === null ? { speed: null, direction: null } : vector(u, v);
        return [{ timestamp, u, v, speed, direction }];
      }),
    };
  }

  /** A keyframe's channels at the point; 'outside' its grid; null when it has no source grid. */
  private async sample(row: KeyframeRow, lon: number, lat: number): Promise<(number | null)[] | 'outside' | null> {
    const file = sourceGridFile(row.archive);
    let grid = await this.grid(file);
    // The cache may have dropped (and closed) it meanwhile; from here on the reads start at once.
    while (grid?.closed) grid = await this.grid(file);
    if (!grid) return null;
    const source = grid;
    let geometry = this.geometries.get(source.gridKey);
    if (!geometry) {
      geometry = gridGeometry(source.header.grid);
      this.geometries.set(source.gridKey, geometry);
    }
    const around = stencil(geometry, lon, lat);
    if (!around) return 'outside';
    const channels = source.header.channels;
    // Neighbours next to each other in the file are read together: usually one read per grid row.
    const order = around.indices.map((index, k) => ({ index, k })).sort((a, b) => a.index - b.index);
    const spans: { start: number; end: number }[] = [];
    for (let m = 0; m < order.length; m++) {
      const last = spans[spans.length - 1];
      if (last && order[m]!.index - order[m - 1]!.index <= 1) last.end = m + 1;
      else spans.push({ start: m, end: m + 1 });
    }
    const reads = await Promise.all(spans.map(({ start, end }) => source.read(order[start]!.index, order[end - 1]!.index - order[start]!.index + 1)));
    const values = new Float32Array(around.indices.length * channels);
    spans.forEach(({ start, end }, s) => {
      const first = order[start]!.index;
      for (let m = start; m < end; m++) {
        const { index, k } = order[m]!;
        for (let c = 0; c < channels; c++) values[k * channels + c] = reads[s]![(index - first) * channels + c]!;
      }
    });
    return interpolate(around, values, channels);
  }

  private grid(file: string): Promise<SourceGrid | null> {
    return this.grids.get(file);
  }

  close(): Promise<void> {
    return this.grids.close();
  }
}
