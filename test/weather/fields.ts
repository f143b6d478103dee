import type { GriddedField } from '../../src/weather/tiler.js';

type Value = (lon: number, lat: number) => number;

/**
 * A regular global lat/lon grid of `step` degrees from 0°E, 90°N (as GFS lays its grids out),
 * one channel per function, each giving the value at a grid point's lon (0..360) and lat.
 */
export function globalField(step: number, ...channels: Value[]): GriddedField {
  const width = Math.round(360 / step);
  const height = Math.round(180 / step) + 1;
  const make = (value: Value) => {
    const channel = new Float32Array(width * height);
    for (let j = 0; j < height; j++) for (let i = 0; i < width; i++) channel[j * width + i] = value(i * step, 90 - j * step);
    return channel;
  };
  const column = (lon: number) => (((lon % 360) + 360) % 360) / step;
  const row = (lat: number) => (90 - lat) / step;
  return {
    width,
    height,
    channels: channels.map(make),
    wrapsI: true,
    bounds: { west: -180, south: -90, east: 180, north: 90 },
    separable: { column, row },
    locate: (lon, lat) => ({ i: column(lon), j: row(lat) }),
  };
}
