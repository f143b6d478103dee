/**
 * The MapLibre peer over the quick start's maps: the `world` archive and the street map's archive
 * and sprite served to it, and both maps' styles rewritten to load them from it (tiles, sprite,
 * glyphs), their glyphs made beforehand. Shared by the benchmarks that render `world` and the
 * `west-oakland` streets style on both sides.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { openArchive } from '../src/platform/pmtiles.js';
import { MapLibrePeer } from './maplibre-peer.js';

export interface PeerMaps {
  peer: MapLibrePeer;
  /** The styles MapLibre renders, by the id of the map they are Meridian's style of. */
  styles: Record<string, unknown>;
  close(): Promise<void>;
}

/** Starts the peer over `mapsDir`'s `world` and the street map `streets` (world.ts's `streetMaps`). */
export async function startPeerMaps(mapsDir: string, streets: { id: string; style: string; folder: string }): Promise<PeerMaps> {
  const archive = await openArchive(path.join(mapsDir, 'world/world.pmtiles'));
  const streetArchive = await openArchive(path.join(streets.folder, 'openmaptiles.pmtiles'));
  const sprite = Object.fromEntries(['sprite.json', 'sprite.png', 'sprite@2x.json', 'sprite@2x.png'].map((name) => [name, path.join(streets.folder, name)]));
  const peer = await MapLibrePeer.start({ world: archive, openmaptiles: streetArchive }, sprite);
  const style = JSON.parse(readFileSync(path.join(mapsDir, 'world/style.json'), 'utf8'));
  style.sources.world = { type: 'vector', tiles: [peer.tiles('world')], minzoom: 0, maxzoom: archive.maxZoom };
  style.glyphs = peer.glyphs;
  peer.prepareGlyphs(style);
  const streetStyle = JSON.parse(readFileSync(streets.style, 'utf8'));
  streetStyle.sources.world = { ...streetStyle.sources.world, url: undefined, tiles: [peer.tiles('world')], minzoom: 0, maxzoom: archive.maxZoom };
  const { url: _, ...extract } = streetStyle.sources.openmaptiles;
  streetStyle.sources.openmaptiles = { ...extract, tiles: [peer.tiles('openmaptiles')] };
  streetStyle.sprite = peer.file('sprite');
  streetStyle.glyphs = peer.glyphs;
  peer.prepareGlyphs(streetStyle);
  return {
    peer,
    styles: { world: style, [streets.id]: streetStyle },
    async close() {
      await peer.close();
      await archive.close();
      await streetArchive.close();
    },
  };
}
