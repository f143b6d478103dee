/**
 * The raster tiles `bench:tiles` asks for: per map, tile size and zoom, a few whole metatiles
 * around a centre (the one holding it, then its neighbours), each listed in the server's own order
 * (src/maps/raster/metatile.ts), so that the first tile of a metatile is the one that renders it and
 * the others are answered from what that render cached. Also where MapLibre looks to draw each
 * tile: the tile's centre, on a canvas of the tile's size, at the zoom whose world is the tile
 * pyramid's (a 256-px tile at z is MapLibre's z - 1).
 */
import { metatileOf, tilesOf, viewZoom, type Metatile, type RasterTileSize } from '../src/maps/raster/metatile.js';
import { project, unproject, type LonLat } from '../src/platform/web-mercator.js';
import type { PeerView } from './maplibre-peer.js';

export interface BenchTile {
  z: number;
  x: number;
  y: number;
  size: RasterTileSize;
}

/** The neighbours tried after the metatile holding the centre, in this order. */
const NEIGHBOURS: [number, number][] = [[1, 0], [0, 1], [1, 1], [-1, 0], [0, -1], [-1, -1], [1, -1], [-1, 1]];

/** Up to `count` metatiles at zoom z around `center`, each as its tiles in render order. */
export function metatilesAround(center: LonLat, z: number, size: RasterTileSize, count: number): BenchTile[][] {
  const [px, py] = project(center[0], center[1], 2 ** z);
  const home = metatileOf({ z, x: Math.floor(px), y: Math.floor(py), size, pixelRatio: 1 });
  const blocks = 2 ** z / home.span;
  const picked: Metatile[] = [];
  for (const [dx, dy] of [[0, 0], ...NEIGHBOURS]) {
    const bx = home.x0 / home.span + dx!;
    const by = home.y0 / home.span + dy!;
    if (picked.length === count || bx < 0 || by < 0 || bx >= blocks || by >= blocks) continue;
    picked.push({ ...home, x0: bx * home.span, y0: by * home.span });
  }
  return picked.map((meta) => tilesOf(meta).map(({ x, y }) => ({ z, x, y, size })));
}

/** What MapLibre is shown to draw a tile: its centre, at the zoom of its pyramid. */
export function tileView(tile: BenchTile): PeerView {
  return { center: unproject(tile.x + 0.5, tile.y + 0.5, 2 ** tile.z), zoom: viewZoom(tile.z, tile.size) };
}

/** The tile's path under a map, as raster-routes.ts serves it. */
export function tilePath(mapId: string, tile: BenchTile): string {
  return `/maps/${mapId}${tile.size === 256 ? '/256' : ''}/${tile.z}/${tile.x}/${tile.y}.png`;
}
