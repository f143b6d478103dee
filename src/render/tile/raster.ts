/** A raster tile of a source as the view covers it: where it goes, and its decoded image. */

import type { RasterTile } from '../source/source.js';
import type { CoveredTile } from '../view/tile-cover.js';

export interface LoadedRasterTile {
  readonly cover: CoveredTile;
  readonly tile: RasterTile;
}
