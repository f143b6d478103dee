/** A thread of the world build: cuts one part of the pyramid into tiles. */

import type { Tile } from '../../platform/pmtiles.js';
import { cutPart, type LayerFeatures, type Part } from './tiles.js';

export interface PartTask {
  part: Part;
  layers: LayerFeatures[];
}

export default function cut(task: PartTask): Tile[] {
  return cutPart(task.layers, task.part);
}
