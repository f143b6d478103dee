/**
 * The static-map renderer: a compiled style drawn for one view onto a Skia canvas of
 * width × pixelRatio by height × pixelRatio pixels, layer by layer, as MapLibre GL JS draws a flat
 * (no pitch, no bearing) map once every tile has loaded and every fade has finished.
 *
 * Tiles: for each source used by a layer visible at this zoom, the tiles MapLibre would want
 * (`tile-cover.ts`) are fetched in parallel; a tile the source does not have (null) leaves its
 * square empty, where MapLibre might show a parent or child it happened to have loaded. A source
 * given no TileSource (an image or video source of the style) draws nothing. Errors of a source
 * reject the render.
 *
 * Symbol layers: once the tiles are loaded, one placement pass over every visible symbol layer
 * (symbol/placement.ts) decides the labels of the whole image; each symbol layer then
 * draws its own in style order. `options.signal` is checked after loading and
 * between layers; an aborted render rejects with the signal's reason.
 *
 * `options.beneathLabels`, an image of the canvas's size (weather on a static map), is drawn over
 * the layers before the first symbol layer, under every label; over all of them without one.
 *
 * `options.background` fills the canvas before anything is drawn (JPEG images, which have no alpha,
 * are drawn over white): every layer composites source-over, so this equals putting the finished
 * map over it, without a second pass over every pixel (10 ms at 1024x768@2x).
 */

import type { Canvas } from '@napi-rs/canvas';
import type { TileSource } from './source/source.js';
import { emptyImageSet, type ImageSet } from './sprite/sprite.js';
import type { Viewport } from './view/viewport.js';
import { releaseCanvas, takeCanvas } from './paint/canvas-pool.js';
import type { LoadedSource, RenderContext } from './paint/context.js';
import type { LoadedRasterTile } from './tile/raster.js';
import { drawBackground } from './layers/background.js';
import { drawCircle } from './layers/circle.js';
import { drawColorRelief } from './layers/color-relief.js';
import { drawFillExtrusion } from './layers/fill-extrusion.js';
import { drawFill } from './layers/fill.js';
import { drawHeatmap } from './layers/heatmap.js';
import { drawHillshade } from './layers/hillshade.js';
import { drawLine } from './layers/line.js';
import { drawRaster } from './layers/raster.js';
import { viewTransform } from './view/projection.js';
import type { CompiledStyle, RenderLayer, RenderLayerType } from './style/style.js';
import { coveringTiles } from './view/tile-cover.js';
import { VectorTileView } from './tile/vector.js';
import { FontCatalog } from './glyphs/catalog.js';
import { drawSymbol } from './symbol/draw.js';
import { placeSymbols, type PlacedLabel } from './symbol/placement.js';

const PAINTERS: Record<Exclude<RenderLayerType, 'symbol'>, (rc: RenderContext, layer: RenderLayer) => void> = {
  background: drawBackground,
  fill: drawFill,
  line: drawLine,
  circle: drawCircle,
  heatmap: drawHeatmap,
  'fill-extrusion': drawFillExtrusion,
  raster: drawRaster,
  hillshade: drawHillshade,
  'color-relief': drawColorRelief,
};

export async function renderMap(
  style: CompiledStyle,
  sources: ReadonlyMap<string, TileSource>,
  viewport: Viewport,
  options: { signal?: AbortSignal; images?: ImageSet; fonts?: FontCatalog; labels?: PlacedLabel[]; background?: string; beneathLabels?: Canvas } = {},
): Promise<Canvas> {
  const { signal, images = emptyImageSet } = options;
  signal?.throwIfAborted();
  const view = viewTransform(viewport);
  const alignedView = viewTransform(viewport, true);
  const zoom = viewport.zoom;
  // MapLibre's StyleLayer.isHidden at the view's zoom.
  const layers = style.layers.filter((layer) => !(layer.minzoom && zoom < layer.minzoom) && !(layer.maxzoom && zoom >= layer.maxzoom) && layer.visible());

  const loaded = new Map<string, LoadedSource>();
  const wanted = new Set(layers.map((layer) => layer.source).filter((id): id is string => id !== undefined && sources.has(id)));
  await Promise.all([...wanted].map(async (id) => loaded.set(id, await loadSource(sources.get(id)!, viewport, view))));
  signal?.throwIfAborted();

  const canvas = takeCanvas(view.width, view.height);
  const ctx = canvas.getContext('2d');
  if (options.background) {
    ctx.fillStyle = options.background;
    ctx.fillRect(0, 0, view.width, view.height);
  }
  const rc: RenderContext = {
    ctx,
    style,
    view,
    alignedView,
    zoom,
    pixelRatio: viewport.pixelRatio,
    images,
    source: (id) => (id === undefined ? undefined : loaded.get(id)),
    // Scratch canvases come from the thread's pool, so that a render does not make a new one.
    scratch: () => takeCanvas(view.width, view.height),
    release: releaseCanvas,
  };
  const symbolLayers = layers.filter((layer) => layer.type === 'symbol');
  const placement = symbolLayers.length > 0 ? placeSymbols(rc, options.fonts ?? FontCatalog.default(), symbolLayers) : undefined;
  if (placement) options.labels?.push(...placement.labels);
  let beneath = options.beneathLabels;
  const drawBeneath = () => {
    if (beneath) ctx.drawImage(beneath, 0, 0);
    beneath = undefined;
  };
  for (const layer of layers) {
    signal?.throwIfAborted();
    if (layer.type !== 'symbol') PAINTERS[layer.type](rc, layer);
    else {
      drawBeneath();
      if (placement) drawSymbol(rc, layer, placement);
    }
  }
  drawBeneath();
  signal?.throwIfAborted();
  return canvas;
}

async function loadSource(source: TileSource, viewport: Viewport, view: RenderContext['view']): Promise<LoadedSource> {
  const covered = coveringTiles(viewport, source);
  // World copies share their canonical tile: ask once.
  const requests = new Map<string, Promise<Awaited<ReturnType<TileSource['getTile']>>>>();
  const tiles = await Promise.all(
    covered.map((cover) => {
      const key = `${cover.z}/${cover.x}/${cover.y}`;
      let request = requests.get(key);
      if (!request) {
        request = source.getTile(cover.z, cover.x, cover.y);
        requests.set(key, request);
      }
      return request;
    }),
  );
  const vector: VectorTileView[] = [];
  const raster: LoadedRasterTile[] = [];
  covered.forEach((cover, i) => {
    const tile = tiles[i];
    if (!tile) return;
    if (tile.kind === 'vector') vector.push(new VectorTileView(cover, tile, view, source.kind === 'geojson'));
    else raster.push({ cover, tile });
  });
  return { source, vector, raster };
}
