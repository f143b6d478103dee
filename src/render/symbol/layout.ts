/**
 * Symbol layout, as MapLibre GL JS's symbol_layout.ts does it per tile and layer at the tile's zoom:
 * text-field (tokens resolved when it is no expression, text-transform applied, `format` sections)
 * shaped in glyph units, the icon's box (fitted to the text with icon-text-fit) and its collision
 * box, anchors in the tile's 8192 extent (points, polygon poles, along lines every symbol-spacing
 * or at line-center, the lines of one text joined end to start first), anchors outside the tile
 * dropped (so a symbol lives in one tile only and the tiles' buffers never duplicate it), repeated
 * text of a line within half a spacing dropped. Collision boxes are sized at the layout text size
 * (text-size at tile zoom + 1), line anchors spaced at that of zoom 18, as MapLibre does.
 *
 * None of it depends on the view, so it is made once per decoded tile layer, style layer, sprite
 * images, fonts and tile zoom, and kept for as long as the source keeps the tile: a warm render
 * only projects, collides and draws (placement.ts).
 */

import { Formatted, ResolvedImage, type Feature, type ICanonicalTileID } from '@maplibre/maplibre-gl-style-spec';
import type { FontCatalog } from '../glyphs/catalog.js';
import { addDerivedBytes } from '../source/cache.js';
import { ringPoints, type TileFeature, type VectorTile } from '../source/source.js';
import type { ImageSet, SpriteImage as SymbolImage } from '../sprite/sprite.js';
import { layoutValue, type EvaluationZooms } from '../style/properties.js';
import type { RenderLayer } from '../style/style.js';
import { selectFeatures, type SourceLayerView, type VectorTileView } from '../tile/vector.js';
import type { LineAnchor, Point } from './anchor.js';
import { centerAnchor, clipLines, lineAnchors, poleOfInaccessibility } from './anchors.js';
import type { Box } from './collision-index.js';
import { applyTextFit } from './icon-quads.js';
import { mergeLines } from './merge-lines.js';
import {
  allowsLetterSpacing, anchorJustification, fitIconToText, ONE_EM, shapeIcon, shapeText,
  type PositionedIcon, type Shaping, type SymbolAnchor, type TextJustify, type TextSection,
} from './shaping.js';

export const EXTENT = 8192;
/** MapLibre's baseline shift of variable anchors at the top or bottom, glyph units. */
export const BASELINE_OFFSET = 7;

/** One label of a feature at one anchor, in the tile's 8192 extent; nothing in it depends on the view. */
export interface TileSymbol {
  readonly layer: RenderLayer;
  readonly text: string;
  readonly sections: readonly TextSection[];
  /** Shapings by justification (variable anchors) or the one shaping. */
  readonly shapings: Partial<Record<TextJustify, Shaping>>;
  readonly shaping: Shaping | null;
  readonly variableAnchors: readonly { anchor: SymbolAnchor; offset: [number, number] }[] | null;
  readonly iconName: string | null;
  readonly icon: PositionedIcon | null;
  readonly iconImage: SymbolImage | null;
  /** The icon's collision box around the anchor, CSS px, padding included. */
  readonly iconBox: Box | null;
  readonly iconTextFit: boolean;
  /** icon-rotate, degrees. */
  readonly iconRotate: number;
  /** Icons of line labels turn with the line. */
  readonly iconAlongLine: boolean;
  /** Tile extent units. */
  readonly anchor: Point;
  readonly lineAnchor: LineAnchor | null;
  /** The tile's line the label follows, tile extent units (shared by the line's anchors). */
  readonly line: readonly Point[] | null;
  readonly layoutScale: number;
  readonly iconScale: number;
  readonly textOffset: [number, number];
  readonly textRotate: number;
  readonly textPadding: number;
  readonly sortKey: number;
  readonly feature: Feature;
  readonly canonical: ICanonicalTileID;
  readonly alongLine: boolean;
  readonly keepUpright: boolean;
  /** The decoded tile the label comes from, which what placement keeps of the label is counted with. */
  readonly tile: VectorTile;
}

// What a label's layout occupies, measured on Node 20 over the world map's labels (heap and resident
// memory with and without its symbol layers): the object with its shapings and collision boxes, and
// a positioned glyph per character. They err on the high side, as the tile cache's estimates do.
const SYMBOL_BYTES = 1200;
const SYMBOL_CHAR_BYTES = 200;

/** What a tile's labels occupy, counted with the tile in its cache. */
export function symbolsBytes(symbols: readonly TileSymbol[]): number {
  let bytes = 64;
  for (const symbol of symbols) bytes += SYMBOL_BYTES + symbol.text.length * SYMBOL_CHAR_BYTES;
  return bytes;
}

function resolveTokens(properties: Record<string, unknown>, text: string): string {
  return text.replace(/{([^{}]+)}/g, (_, key: string) => (key in properties ? String(properties[key] ?? '') : ''));
}

function transformText(text: string, transform: string): string {
  if (transform === 'uppercase') return text.toLocaleUpperCase();
  if (transform === 'lowercase') return text.toLocaleLowerCase();
  return text;
}

function variableOffset(anchor: SymbolAnchor, offset: readonly [number, number], radial: boolean): [number, number] {
  let x = 0;
  let y = 0;
  if (radial) {
    const r = Math.max(0, offset[0]);
    const h = r / Math.SQRT2;
    if (anchor === 'top-right' || anchor === 'top-left') y = h - BASELINE_OFFSET;
    else if (anchor === 'bottom-right' || anchor === 'bottom-left') y = -h + BASELINE_OFFSET;
    else if (anchor === 'bottom') y = -r + BASELINE_OFFSET;
    else if (anchor === 'top') y = r - BASELINE_OFFSET;
    if (anchor === 'top-right' || anchor === 'bottom-right') x = -h;
    else if (anchor === 'top-left' || anchor === 'bottom-left') x = h;
    else if (anchor === 'left') x = r;
    else if (anchor === 'right') x = -r;
    return [x, y];
  }
  const ox = Math.abs(offset[0]);
  const oy = Math.abs(offset[1]);
  if (anchor.startsWith('top')) y = oy - BASELINE_OFFSET;
  else if (anchor.startsWith('bottom')) y = -oy + BASELINE_OFFSET;
  if (anchor.endsWith('right')) x = -ox;
  else if (anchor.endsWith('left')) x = ox;
  return [x, y];
}

/** The features of one source layer in MapLibre's 8192 extent. */
function extentGeometry(source: SourceLayerView, index: number): Point[][] {
  const scale = EXTENT / source.extent;
  return source.features[index]!.geometry.map((ring) => ringPoints(ring, scale));
}

function ringArea(ring: readonly Point[]): number {
  let sum = 0;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) sum += (ring[j]!.x - ring[i]!.x) * (ring[i]!.y + ring[j]!.y);
  return sum;
}

/** Polygons of a feature's rings: each outer ring (MapLibre's classifyRings) with its holes. */
function polygons(rings: readonly (readonly Point[])[]): (readonly Point[])[][] {
  const result: (readonly Point[])[][] = [];
  let current: (readonly Point[])[] | undefined;
  let ccw: boolean | undefined;
  for (const ring of rings) {
    const area = ringArea(ring);
    if (area === 0) continue;
    if (ccw === undefined) ccw = area < 0;
    if (ccw === area < 0) {
      current = [ring];
      result.push(current);
    } else current?.push(ring);
  }
  return result;
}

/**
 * The symbols of one style layer in one tile at its zoom: `tile` and `source` are this render's
 * views of the tile, whose decoded features key the cache.
 */
export function tileSymbols(catalog: FontCatalog, layer: RenderLayer, tile: VectorTileView, source: SourceLayerView, zooms: EvaluationZooms, images: ImageSet): TileSymbol[] {
  // A layer without icons lays out alike whatever the sprite (1x or @2x): one layout for all.
  const byZoom = cacheEntry(source.features, layer, layer.layoutGiven.has('icon-image') ? images : NO_ICONS, catalog);
  let symbols = byZoom.get(zooms.tileZoom);
  if (!symbols) {
    symbols = layoutTile(catalog, layer, tile, source, zooms, images);
    byZoom.set(zooms.tileZoom, symbols);
    // Kept as long as the tile: counted with it, so that the tile cache's bound covers labels too.
    addDerivedBytes(source.owner, symbolsBytes(symbols));
  }
  return symbols;
}

type Cache = WeakMap<readonly TileFeature[], WeakMap<RenderLayer, WeakMap<ImageSet, WeakMap<FontCatalog, Map<number, TileSymbol[]>>>>>;
/** Layouts by decoded tile layer (sources keep their decoded tiles), style layer, images, fonts and tile zoom. */
const cache: Cache = new WeakMap();
/** The images key of layers that draw no icon. */
const NO_ICONS: ImageSet = { image: () => undefined };

function cacheEntry(features: readonly TileFeature[], layer: RenderLayer, images: ImageSet, catalog: FontCatalog): Map<number, TileSymbol[]> {
  const child = <K extends object, V>(map: WeakMap<K, V>, key: K, make: () => V): V => {
    let value = map.get(key);
    if (value === undefined) map.set(key, (value = make()));
    return value;
  };
  const byLayer = child(cache, features, () => new WeakMap());
  const byImages = child(byLayer, layer, () => new WeakMap());
  const byCatalog = child(byImages, images, () => new WeakMap());
  return child(byCatalog, catalog, () => new Map());
}

function layoutTile(catalog: FontCatalog, layer: RenderLayer, tile: VectorTileView, source: SourceLayerView, zooms: EvaluationZooms, images: ImageSet): TileSymbol[] {
  const { layout } = layer;
  const symbols: TileSymbol[] = [];
  const canonical = tile.canonical;
  const value = <T>(name: string, feature?: Feature): T => layoutValue<T>(layout[name]!, zooms, feature, canonical);
  const placementMode = value<string>('symbol-placement');
  const selected = selectFeatures(layer, source, zooms, canonical, () => true, 'symbol-sort-key');
  const tilePixelRatio = EXTENT / (512 * 2 ** (zooms.tileZoom - tile.cover.z));
  const overscaling = 2 ** (zooms.tileZoom - tile.cover.z);
  const bucketTexts = new Map<string, Point[]>();
  const sectionsOf = new Map(selected.map((index) => [index, featureSections(layer, source.evaluationFeature(index), value)]));
  const geometryOf = new Map<number, readonly (readonly Point[])[] | null>(selected.map((index) => [index, extentGeometry(source, index)]));
  if (placementMode === 'line') {
    // In the tile's order, as MapLibre merges before it sorts by symbol-sort-key.
    const order = [...selected].sort((a, b) => a - b);
    const merged = mergeLines(order.map((index) => ({ text: sectionsOf.get(index)!.map((s) => s.text).join(''), geometry: geometryOf.get(index)! })));
    order.forEach((index, i) => geometryOf.set(index, merged[i]!));
  }
  for (const index of selected) {
    const geometry = geometryOf.get(index);
    if (!geometry) continue;
    const feature = source.evaluationFeature(index);
    const given = layer.layoutGiven;
    const sections = sectionsOf.get(index)!;
    const text = sections.map((s) => s.text).join('');

    let iconName: string | null = null;
    const iconValue = value<unknown>('icon-image', feature);
    if (iconValue instanceof ResolvedImage) iconName = iconValue.name;
    else if (typeof iconValue === 'string') iconName = iconValue;
    // Tokens of a plain string, as for the text.
    if (iconName !== null && layout['icon-image']!.kind === 'constant') iconName = resolveTokens((feature.properties ?? {}) as Record<string, unknown>, iconName);
    const iconImage = iconName ? (images.image(iconName) ?? null) : null;
    if (sections.length === 0 && !iconImage) continue;

    const alongLine = placementMode !== 'point' && value<string>('text-rotation-alignment') !== 'viewport';
    // icon-rotation-alignment "auto" is "map" along lines.
    const iconAlongLine = placementMode !== 'point' && value<string>('icon-rotation-alignment') !== 'viewport';
    const layoutSize = layoutValue<number>(layout['text-size']!, { ...zooms, tileZoom: zooms.tileZoom + 1 }, feature, canonical);
    const layoutScale = layoutSize / ONE_EM;
    const letterSpacing = value<number>('text-letter-spacing', feature) * ONE_EM;
    const spacing = allowsLetterSpacing(text) ? letterSpacing : 0;
    const lineHeight = value<number>('text-line-height', feature) * ONE_EM;
    const maxWidth = placementMode === 'point' ? value<number>('text-max-width', feature) * ONE_EM : Infinity;
    const textAnchor = value<SymbolAnchor>('text-anchor', feature);
    let justify = alongLine ? 'center' : value<TextJustify | 'auto'>('text-justify', feature);
    const radialGiven = given.has('text-radial-offset');
    const radial = value<number>('text-radial-offset', feature);
    const offsetEm = value<[number, number]>('text-offset', feature);

    let variableAnchors: { anchor: SymbolAnchor; offset: [number, number] }[] | null = null;
    const anchorOffsets = value<{ values: unknown[] } | undefined>('text-variable-anchor-offset', feature);
    const variableList = value<SymbolAnchor[] | undefined>('text-variable-anchor', feature);
    if (!alongLine && anchorOffsets && given.has('text-variable-anchor-offset')) {
      variableAnchors = [];
      for (let i = 0; i < anchorOffsets.values.length; i += 2) {
        const anchor = anchorOffsets.values[i] as SymbolAnchor;
        const offset = (anchorOffsets.values[i + 1] as [number, number]).map((t) => t * ONE_EM) as [number, number];
        if (anchor.startsWith('top')) offset[1] -= BASELINE_OFFSET;
        else if (anchor.startsWith('bottom')) offset[1] += BASELINE_OFFSET;
        variableAnchors.push({ anchor, offset });
      }
    } else if (!alongLine && variableList && given.has('text-variable-anchor')) {
      const base: [number, number] = radialGiven ? [radial * ONE_EM, 0] : [offsetEm[0] * ONE_EM, offsetEm[1] * ONE_EM];
      variableAnchors = variableList.map((anchor) => ({ anchor, offset: variableOffset(anchor, base, radialGiven) }));
    }

    const textOffset: [number, number] = !variableAnchors && radialGiven
      ? variableOffset(textAnchor, [radial * ONE_EM, 0], true)
      : variableAnchors ? [0, 0] : [offsetEm[0] * ONE_EM, offsetEm[1] * ONE_EM];
    const shapings: Partial<Record<TextJustify, Shaping>> = {};
    let shaping: Shaping | null = null;
    if (sections.length > 0) {
      if (variableAnchors) {
        const justifications = new Set<TextJustify>(justify === 'auto' ? variableAnchors.map((v) => anchorJustification(v.anchor)) : [justify]);
        for (const j of justifications) {
          const shaped = shapeText(catalog, sections, { maxWidth, lineHeight, anchor: 'center', justify: j, spacing, offset: textOffset });
          if (shaped) shapings[j] = shaped;
        }
        shaping = shapings.center ?? shapings.left ?? shapings.right ?? null;
      } else {
        if (justify === 'auto') justify = anchorJustification(textAnchor);
        shaping = shapeText(catalog, sections, { maxWidth, lineHeight, anchor: alongLine ? 'center' : textAnchor, justify, spacing, offset: textOffset });
        if (shaping) shapings[justify] = shaping;
      }
    }

    let icon: PositionedIcon | null = null;
    let iconBox: Box | null = null;
    let iconTextFit = false;
    const iconScale = iconImage ? layoutValue<number>(layout['icon-size']!, { ...zooms, tileZoom: zooms.tileZoom + 1 }, feature, canonical) : 1;
    const iconRotate = iconImage ? value<number>('icon-rotate', feature) : 0;
    if (iconImage) {
      const iconOffset = value<[number, number]>('icon-offset', feature);
      icon = shapeIcon(iconImage.width, iconImage.height, iconOffset, value<SymbolAnchor>('icon-anchor', feature));
      const fit = value<string>('icon-text-fit', feature);
      iconTextFit = fit !== 'none';
      let collisionPadding: [number, number, number, number] | null = null;
      if (iconTextFit && shaping) {
        icon = fitIconToText(icon, shaping, fit as 'width' | 'height' | 'both', value<[number, number, number, number]>('icon-text-fit-padding', feature), iconOffset, layoutScale);
        // The image's margins around its content lie outside the text, and collide.
        const content = iconImage.content;
        if (content) {
          const ratio = iconImage.pixelRatio;
          collisionPadding = [content[0] / ratio, content[1] / ratio, iconImage.width - content[2] / ratio, iconImage.height - content[3] / ratio];
        }
      }
      const iconPaddingValue = value<{ values: number[] } | number[] | number>('icon-padding', feature);
      const ip = typeof iconPaddingValue === 'number' ? [iconPaddingValue] : Array.isArray(iconPaddingValue) ? iconPaddingValue : iconPaddingValue.values;
      const padding: [number, number, number, number] = [ip[0]!, ip[1] ?? ip[0]!, ip[2] ?? ip[0]!, ip[3] ?? ip[1] ?? ip[0]!];
      iconBox = iconCollisionBox(icon, iconImage, iconTextFit, iconScale, padding, collisionPadding, iconRotate);
    }

    if (sections.length > 0 && !shaping && !iconImage) continue;
    const textLength = shaping ? shaping.right - shaping.left : null;
    const iconLength = icon ? icon.right - icon.left : null;
    // MapLibre spaces and bends-checks line anchors at the text size of zoom 18 (its textMaxSize).
    const maxSize = layoutValue<number | undefined>(layout['text-size']!, { ...zooms, tileZoom: 18 }, feature, canonical) ?? layoutSize;
    const extent = { textLength, iconLength, boxScale: (tilePixelRatio * maxSize) / ONE_EM };
    const sortKey = Number(value<number>('symbol-sort-key', feature) ?? 0);
    const common = {
      layer, text, sections, shapings, shaping, variableAnchors, iconName, icon, iconImage, iconBox, iconTextFit, iconRotate, iconAlongLine, layoutScale, iconScale,
      textOffset, textRotate: value<number>('text-rotate', feature), textPadding: value<number>('text-padding', feature), sortKey, feature,
      canonical, alongLine, keepUpright: value<boolean>('text-keep-upright', feature), tile: source.owner,
    };
    const add = (anchor: Point, lineAnchor: LineAnchor | null, line: readonly Point[] | null) => {
      if (anchor.x < 0 || anchor.x >= EXTENT || anchor.y < 0 || anchor.y >= EXTENT) return;
      symbols.push({ ...common, anchor, lineAnchor, line });
    };
    const type = source.features[index]!.type;
    const maxAngle = (value<number>('text-max-angle') / 180) * Math.PI;
    if (placementMode === 'line' && type !== 1) {
      const spacingTiles = tilePixelRatio * value<number>('symbol-spacing');
      for (const line of clipLines(geometry, 0, 0, EXTENT, EXTENT)) {
        for (const anchor of lineAnchors(line, spacingTiles, maxAngle, extent, overscaling, EXTENT)) {
          if (shaping && tooClose(bucketTexts, shaping.text, spacingTiles / 2, anchor)) continue;
          add(anchor, anchor, line);
        }
      }
    } else if (placementMode === 'line-center' && type !== 1) {
      for (const line of geometry) {
        if (line.length < 2) continue;
        const anchor = centerAnchor(line, maxAngle, extent);
        if (anchor) add(anchor, anchor, line);
      }
    } else if (type === 3) {
      for (const polygon of polygons(geometry)) add(poleOfInaccessibility(polygon, 16), null, null);
    } else if (type === 2) {
      for (const line of geometry) if (line.length > 0) add(line[0]!, null, null);
    } else {
      for (const points of geometry) for (const point of points) add(point, null, null);
    }
  }
  return symbols;
}

/** A feature's text-field as sections of text (tokens resolved for a plain string, text-transform applied), none when empty. */
function featureSections(layer: RenderLayer, feature: Feature, value: <T>(name: string, feature?: Feature) => T): TextSection[] {
  const textValue = value<unknown>('text-field', feature);
  const formatted = textValue instanceof Formatted ? textValue : textValue === undefined || textValue === null ? null : Formatted.fromString(String(textValue));
  if (!formatted) return [];
  const properties = (feature.properties ?? {}) as Record<string, unknown>;
  const fontstack = value<string[]>('text-font', feature);
  const transform = value<string>('text-transform', feature);
  const tokens = layer.layout['text-field']!.kind === 'constant';
  const sections: TextSection[] = [];
  for (const section of formatted.sections) {
    if (section.image) continue;
    const text = transformText(tokens ? resolveTokens(properties, section.text) : section.text, transform);
    if (text.length === 0) continue;
    sections.push({ text, fontstack: section.fontStack ? section.fontStack.split(',') : fontstack, scale: section.scale ?? 1, color: section.textColor ?? null });
  }
  return sections;
}

/** MapLibre's anchorIsTooClose: the same text already anchored within `repeatDistance` in this bucket. */
function tooClose(seen: Map<string, Point[]>, text: string, repeatDistance: number, anchor: Point): boolean {
  const anchors = seen.get(text);
  if (anchors) {
    for (const other of anchors) if (Math.hypot(other.x - anchor.x, other.y - anchor.y) < repeatDistance) return true;
    anchors.push(anchor);
  } else seen.set(text, [anchor]);
  return false;
}
/**
 * MapLibre's icon CollisionFeature: the icon's box (text-fitted to its content's aspect when the
 * image asks) at the layout icon size, grown by icon-padding and by the image's margins around its
 * content, then the bounds of that box turned by icon-rotate.
 */
function iconCollisionBox(
  icon: PositionedIcon, image: SymbolImage, textFit: boolean, scale: number, padding: readonly [number, number, number, number],
  collisionPadding: readonly [number, number, number, number] | null, rotate: number,
): Box {
  const fitted = textFit && image.content && (image.textFitWidth || image.textFitHeight)
    ? applyTextFit(icon, image)
    : { x1: icon.left, y1: icon.top, x2: icon.right, y2: icon.bottom };
  let x1 = fitted.x1 * scale - padding[3];
  let y1 = fitted.y1 * scale - padding[0];
  let x2 = fitted.x2 * scale + padding[1];
  let y2 = fitted.y2 * scale + padding[2];
  if (collisionPadding) {
    x1 -= collisionPadding[0] * scale;
    y1 -= collisionPadding[1] * scale;
    x2 += collisionPadding[2] * scale;
    y2 += collisionPadding[3] * scale;
  }
  if (!rotate) return { x1, y1, x2, y2 };
  const angle = (rotate * Math.PI) / 180;
  const cos = Math.cos(angle);
  const sin = Math.sin(angle);
  const xs: number[] = [];
  const ys: number[] = [];
  for (const [x, y] of [[x1, y1], [x2, y1], [x1, y2], [x2, y2]] as const) {
    xs.push(x * cos - y * sin);
    ys.push(x * sin + y * cos);
  }
  return { x1: Math.min(...xs), y1: Math.min(...ys), x2: Math.max(...xs), y2: Math.max(...ys) };
}
