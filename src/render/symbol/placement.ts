/**
 * Symbol placement for one image, as MapLibre GL JS does it for a flat map once every tile has
 * loaded and every fade has finished: each tile's symbols (layout.ts, cached per tile) projected to
 * CSS pixels of the image, then ONE pass over every symbol layer of the image, top layer first,
 * each layer's tiles in MapLibre's order (bottom row first), its symbols in bucket order
 * (symbol-sort-key across tiles, or viewport-y): collision boxes of point labels and icons at the
 * layout text size, circles along the visible part of line labels, text-variable-anchor tried
 * anchor by anchor, allow-overlap, ignore-placement and optional as MapLibre combines them, boxes
 * moved by text-translate and icon-translate. What is placed is kept
 * per layer for drawing (glyph positions in CSS pixels at the paint text size of the view's zoom)
 * and listed as `PlacedLabel`s.
 */

import type { Color } from '@maplibre/maplibre-gl-style-spec';
import type { FontCatalog, FontGlyph } from '../glyphs/catalog.js';
import type { SpriteImage as SymbolImage } from '../sprite/sprite.js';
import type { RenderContext } from '../paint/context.js';
import { isFeatureConstant, layoutValue, paintValue, type EvaluationZooms } from '../style/properties.js';
import type { RenderLayer } from '../style/style.js';
import { builtAtTileZoom, type VectorTileView } from '../tile/vector.js';
import type { Point } from './anchor.js';
import { CollisionIndex, VIEWPORT_PADDING, type Box, type Circle, type OverlapMode } from './collision-index.js';
import { iconQuads, type IconQuad } from './icon-quads.js';
import { EXTENT, tileSymbols, type TileSymbol } from './layout.js';
import { labelPath, placeGlyphsAlongLine } from './line-glyphs.js';
import { Lru } from '../../platform/lru.js';
import { addDerivedBytes } from '../source/cache.js';
import { anchorAlignment, anchorJustification, ONE_EM, type SymbolAnchor, type TextJustify } from './shaping.js';

/** One glyph to draw: its outline at 24 px, placed by a CSS-pixel transform. */
export interface DrawnGlyph {
  readonly glyph: FontGlyph;
  /** Where the glyph's pen origin goes, CSS px, and the rotation around it. */
  readonly x: number;
  readonly y: number;
  readonly angle: number;
  /** CSS px per glyph-unit. */
  readonly scale: number;
  readonly color: Color | null;
}

export interface DrawnText {
  /** Where the glyphs are placed from: the label's anchor, CSS px. */
  readonly origin: Point;
  /** Glyph positions relative to `origin`; the same array in every render of the same label and size. */
  readonly glyphs: readonly DrawnGlyph[];
  readonly color: Color;
  readonly opacity: number;
  readonly haloColor: Color;
  readonly haloWidth: number;
  readonly haloBlur: number;
}

export interface DrawnIcon {
  readonly image: SymbolImage;
  /** The pieces of the image and where they go around the anchor, CSS px, before rotation. */
  readonly quads: readonly IconQuad[];
  readonly anchorX: number;
  readonly anchorY: number;
  /** Radians, clockwise. */
  readonly angle: number;
  /** icon-size at the view's zoom (SDF edges sharpen with it). */
  readonly size: number;
  /** Bilinear sampling; nearest when MapLibre would (unscaled, unrotated icons of the image's pixel ratio). */
  readonly smooth: boolean;
  readonly opacity: number;
  readonly color: Color;
  readonly haloColor: Color;
  readonly haloWidth: number;
  readonly haloBlur: number;
}

/** A label as the render tests compare them: what it says and where its anchor is, CSS px. */
export interface PlacedLabel {
  readonly layer: string;
  readonly text: string;
  readonly icon: string | null;
  readonly x: number;
  readonly y: number;
  readonly textPlaced: boolean;
  readonly iconPlaced: boolean;
  readonly anchor: string | null;
}

export interface SymbolPlacement {
  /** What each symbol layer draws, in drawing order. */
  readonly drawn: ReadonlyMap<string, { texts: DrawnText[]; icons: DrawnIcon[] }>;
  readonly labels: readonly PlacedLabel[];
}

/** MapLibre's tile order for placement (Style._updatePlacement): higher zooms first, then by wrap, x and y. */
function placementOrder(tiles: readonly VectorTileView[]): VectorTileView[] {
  return [...tiles].sort((a, b) => b.cover.overscaledZ - a.cover.overscaledZ || a.cover.wrap - b.cover.wrap || a.cover.x - b.cover.x || a.cover.y - b.cover.y);
}

/** A tile symbol in this image: its anchor in CSS px, its tile's scale, its text size at the view's zoom. */
interface SymbolInstance {
  readonly symbol: TileSymbol;
  readonly anchor: Point;
  /** CSS px per tile extent unit. */
  readonly unit: number;
  readonly paintScale: number;
  /** icon-size at the view's zoom. */
  readonly iconScale: number;
  readonly zooms: EvaluationZooms;
}

/** Every symbol of a layer in this image, tile by tile in placement order. */
function layerInstances(rc: RenderContext, catalog: FontCatalog, layer: RenderLayer): SymbolInstance[] {
  const loaded = rc.source(layer.source);
  if (!loaded) return [];
  const textSize = layer.layout['text-size']!;
  const iconSize = layer.layout['icon-size']!;
  const width = rc.view.width / rc.pixelRatio;
  const height = rc.view.height / rc.pixelRatio;
  const instances: SymbolInstance[] = [];
  for (const tile of placementOrder(loaded.vector)) {
    const source = tile.sourceLayer(layer.sourceLayer);
    if (!source) continue;
    const zooms = tile.zooms(rc.style.globalState);
    if (!builtAtTileZoom(layer, zooms.tileZoom)) continue;
    const symbols = tileSymbols(catalog, layer, tile, source, zooms, rc.images);
    if (symbols.length === 0) continue;
    const unit = tile.transform.scale / EXTENT / rc.pixelRatio;
    const ox = tile.transform.x / rc.pixelRatio;
    const oy = tile.transform.y / rc.pixelRatio;
    const constantSize = isFeatureConstant(textSize) ? paintValue<number>(textSize, zooms) : undefined;
    const constantIconSize = isFeatureConstant(iconSize) ? paintValue<number>(iconSize, zooms) : undefined;
    const translated = Math.max(
      ...(['text-translate', 'icon-translate'] as const).map((name) => paintValue<[number, number]>(layer.paint[name]!, zooms)).map(([x, y]) => Math.abs(x) + Math.abs(y)),
    );
    for (const symbol of symbols) {
      const anchor = { x: ox + symbol.anchor.x * unit, y: oy + symbol.anchor.y * unit };
      const paintScale = (constantSize ?? paintValue<number>(textSize, zooms, symbol.feature, symbol.canonical)) / ONE_EM;
      const iconScale = symbol.icon ? (constantIconSize ?? paintValue<number>(iconSize, zooms, symbol.feature, symbol.canonical)) : 1;
      // Symbols that cannot reach into the collision grid would not be placed.
      const margin = VIEWPORT_PADDING + translated + reach(symbol, paintScale, iconScale);
      if (anchor.x < -margin || anchor.y < -margin || anchor.x > width + margin || anchor.y > height + margin) continue;
      instances.push({ symbol, anchor, unit, paintScale, iconScale, zooms });
    }
  }
  return instances;
}

/**
 * How far from its anchor anything of a symbol may lie, CSS px, generously: its text (shaped box,
 * offsets, variable-anchor offsets, rotation, collision circles) and its icon.
 */
function reach(symbol: TileSymbol, paintScale: number, iconScale: number): number {
  let text = 0;
  const { shaping } = symbol;
  if (shaping) {
    const extent = Math.abs(shaping.left) + Math.abs(shaping.right) + Math.abs(shaping.top) + Math.abs(shaping.bottom);
    const offsets = Math.abs(symbol.textOffset[0]) + Math.abs(symbol.textOffset[1]);
    const variable = Math.max(0, ...(symbol.variableAnchors ?? []).map((v) => Math.abs(v.offset[0]) + Math.abs(v.offset[1])));
    text = (extent + offsets + variable + ONE_EM) * Math.max(paintScale, symbol.layoutScale) + symbol.textPadding;
  }
  let icon = 0;
  if (symbol.icon && symbol.iconBox) {
    const { x1, y1, x2, y2 } = symbol.iconBox;
    const drawn = symbol.icon;
    // The drawn icon may be larger than its box (icon-size grows with the zoom, text-fit margins).
    const size = (Math.abs(drawn.left) + Math.abs(drawn.right) + Math.abs(drawn.top) + Math.abs(drawn.bottom)) * Math.max(iconScale, symbol.iconScale);
    icon = Math.abs(x1) + Math.abs(x2) + Math.abs(y1) + Math.abs(y2) + size;
  }
  return Math.max(text, icon);
}

function overlapMode(layer: RenderLayer, zooms: EvaluationZooms, kind: 'text' | 'icon'): OverlapMode {
  const overlap = layer.layoutGiven.has(`${kind}-overlap`) ? layoutValue<string>(layer.layout[`${kind}-overlap`]!, zooms) : undefined;
  if (overlap === 'always' || overlap === 'cooperative' || overlap === 'never') return overlap;
  return layoutValue<boolean>(layer.layout[`${kind}-allow-overlap`]!, zooms) ? 'always' : 'never';
}

function boxAt(anchor: Point, shaping: { left: number; right: number; top: number; bottom: number }, scale: number, padding: readonly [number, number, number, number], shift: Point = { x: 0, y: 0 }): Box {
  return {
    x1: anchor.x + shift.x + shaping.left * scale - padding[3],
    y1: anchor.y + shift.y + shaping.top * scale - padding[0],
    x2: anchor.x + shift.x + shaping.right * scale + padding[1],
    y2: anchor.y + shift.y + shaping.bottom * scale + padding[2],
  };
}

/** The box of a rotated text-rotate label: the rotated corners' bounds (MapLibre rotates the box the same way). */
function rotatedBox(box: Box, anchor: Point, degrees: number): Box {
  if (!degrees) return box;
  const angle = (degrees * Math.PI) / 180;
  const cos = Math.cos(angle);
  const sin = Math.sin(angle);
  const corners = [[box.x1, box.y1], [box.x2, box.y1], [box.x1, box.y2], [box.x2, box.y2]].map(([x, y]) => {
    const dx = x! - anchor.x;
    const dy = y! - anchor.y;
    return [anchor.x + dx * cos - dy * sin, anchor.y + dx * sin + dy * cos];
  });
  return {
    x1: Math.min(...corners.map((c) => c[0]!)), y1: Math.min(...corners.map((c) => c[1]!)),
    x2: Math.max(...corners.map((c) => c[0]!)), y2: Math.max(...corners.map((c) => c[1]!)),
  };
}

/** Places every symbol layer's labels over the whole image, top layer first. */
export function placeSymbols(rc: RenderContext, catalog: FontCatalog, layers: readonly RenderLayer[]): SymbolPlacement {
  const collision = new CollisionIndex(rc.view.width / rc.pixelRatio, rc.view.height / rc.pixelRatio);
  const drawn = new Map<string, { texts: DrawnText[]; icons: DrawnIcon[] }>();
  const labels: PlacedLabel[] = [];
  for (let li = layers.length - 1; li >= 0; li--) {
    const layer = layers[li]!;
    const instances = layerInstances(rc, catalog, layer);
    const out = { texts: [] as DrawnText[], icons: [] as DrawnIcon[] };
    drawn.set(layer.id, out);
    if (instances.length === 0) continue;
    const zooms = instances[0]!.zooms;
    const paint = paintReader(layer, zooms);
    // Without bearing or pitch, a translate anchored to the map or to the viewport moves alike.
    const textTranslate = paintValue<[number, number]>(layer.paint['text-translate']!, zooms);
    const iconTranslate = paintValue<[number, number]>(layer.paint['icon-translate']!, zooms);
    const at = <T>(name: string): T => layoutValue<T>(layer.layout[name]!, zooms);
    const sortKeyed = layer.layout['symbol-sort-key']!.kind !== 'constant' && layer.layout['symbol-sort-key']!.kind !== 'camera';
    const textOverlap = overlapMode(layer, zooms, 'text');
    const iconOverlap = overlapMode(layer, zooms, 'icon');
    const textIgnore = at<boolean>('text-ignore-placement');
    const iconIgnore = at<boolean>('icon-ignore-placement');
    const textOptional = at<boolean>('text-optional');
    const iconOptional = at<boolean>('icon-optional');
    const zOrder = at<string>('symbol-z-order');
    const viewportY = zOrder === 'viewport-y' || (zOrder === 'auto' && !sortKeyed && (textOverlap !== 'never' || iconOverlap !== 'never' || textIgnore || iconIgnore));
    let order = instances;
    if (sortKeyed && zOrder !== 'viewport-y') order = [...instances].sort((a, b) => a.symbol.sortKey - b.symbol.sortKey);
    else if (viewportY) order = [...instances].sort((a, b) => b.anchor.y - a.anchor.y);
    const placedDraws: { instance: SymbolInstance; text: DrawnText | null; icon: DrawnIcon | null }[] = [];

    for (const instance of order) {
      const textAnchor = { x: instance.anchor.x + textTranslate[0], y: instance.anchor.y + textTranslate[1] };
      const iconAnchor = { x: instance.anchor.x + iconTranslate[0], y: instance.anchor.y + iconTranslate[1] };
      const hasText = instance.symbol.shaping !== null;
      const hasIcon = instance.symbol.icon !== null;
      let textBox: Box | null = null;
      let circles: Circle[] | null = null;
      let lineText: LineLabel | null = null;
      let chosenAnchor: SymbolAnchor | null = null;
      let shift: Point = { x: 0, y: 0 };
      let justification: TextJustify | null = null;
      const padding: [number, number, number, number] = [instance.symbol.textPadding, instance.symbol.textPadding, instance.symbol.textPadding, instance.symbol.textPadding];
      let placeText = false;
      if (hasText && instance.symbol.alongLine) {
        lineText = lineLabel(instance);
        if (lineText) {
          const { x, y } = textAnchor;
          circles = collision.circlesAlong(lineText.path.map((p) => ({ x: p.x + x, y: p.y + y })), lineText.radius);
          placeText = collision.placeCircles(circles, textOverlap);
        }
      } else if (hasText && instance.symbol.variableAnchors) {
        const base = instance.symbol.shaping!;
        const width = (base.right - base.left) * instance.symbol.layoutScale;
        const height = (base.bottom - base.top) * instance.symbol.layoutScale;
        const tries = instance.symbol.variableAnchors;
        for (const { anchor, offset } of tries) {
          const { horizontal, vertical } = anchorAlignment(anchor);
          const candidateShift = { x: -(horizontal - 0.5) * width + offset[0] * instance.symbol.layoutScale, y: -(vertical - 0.5) * height + offset[1] * instance.symbol.layoutScale };
          const box = rotatedBox(boxAt(textAnchor, base, instance.symbol.layoutScale, padding, candidateShift), textAnchor, instance.symbol.textRotate);
          if (collision.placeBox(box, textOverlap)) {
            textBox = box;
            chosenAnchor = anchor;
            shift = candidateShift;
            placeText = true;
            break;
          }
        }
        if (!placeText) chosenAnchor = tries[0]?.anchor ?? null;
        if (chosenAnchor) justification = anchorJustification(chosenAnchor);
      } else if (hasText) {
        textBox = rotatedBox(boxAt(textAnchor, instance.symbol.shaping!, instance.symbol.layoutScale, padding), textAnchor, instance.symbol.textRotate);
        placeText = collision.placeBox(textBox, textOverlap);
      }

      let iconBox: Box | null = null;
      let placeIcon = false;
      if (hasIcon) {
        const box = instance.symbol.iconBox!;
        const { x, y } = iconAnchor;
        iconBox = { x1: x + box.x1, y1: y + box.y1, x2: x + box.x2, y2: y + box.y2 };
        placeIcon = collision.placeBox(iconBox, iconOverlap);
      }
      // MapLibre's combination of the two.
      const iconWithoutText = !hasText || textOptional;
      const textWithoutIcon = !hasIcon || iconOptional;
      if (!iconWithoutText && !textWithoutIcon) placeIcon = placeText = placeIcon && placeText;
      else if (!textWithoutIcon) placeText = placeIcon && placeText;
      else if (!iconWithoutText) placeIcon = placeIcon && placeText;

      if (placeText) {
        if (!textIgnore) {
          if (circles) collision.insertCircles(circles, textOverlap);
          else if (textBox) collision.insertBox(textBox, textOverlap);
        }
      }
      if (placeIcon && iconBox && !iconIgnore) collision.insertBox(iconBox, iconOverlap);

      labels.push({
        layer: layer.id, text: instance.symbol.text, icon: instance.symbol.iconName, x: round2(instance.anchor.x), y: round2(instance.anchor.y),
        textPlaced: hasText && placeText, iconPlaced: hasIcon && placeIcon, anchor: chosenAnchor,
      });
      const text = hasText && placeText ? drawnText(instance, textAnchor, paint, lineText?.glyphs ?? null, shift, justification) : null;
      const icon = hasIcon && placeIcon ? drawnIcon(instance, iconAnchor, paint, rc) : null;
      if (text || icon) placedDraws.push({ instance, text, icon });
    }
    // Drawn in bucket order: placement order reversed for viewport-y puts the lowest label on top.
    const drawOrder = viewportY ? [...placedDraws].sort((a, b) => a.instance.anchor.y - b.instance.anchor.y) : placedDraws;
    for (const { text, icon } of drawOrder) {
      if (icon) out.icons.push(icon);
      if (text) out.texts.push(text);
    }
  }
  return { drawn, labels };
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

/** A line label at one size, relative to its anchor (CSS px): its glyphs, and the path and radius of its collision circles. */
interface LineLabel {
  readonly glyphs: readonly DrawnGlyph[];
  readonly path: readonly Point[];
  readonly radius: number;
}

/**
 * The last few line layouts of each line label, by what they depend on: the tile's scale and the
 * text size, not where the view puts the anchor, so that warm renders reuse them (and draw.ts their
 * paths).
 */
const lineLabelCache = new WeakMap<TileSymbol, Lru<string, LineLabel | null>>();

/** Layouts kept per label: a few zooms' worth, for traffic that moves between zooms. */
const LAYOUTS_PER_LABEL = 4;

// What a kept glyph layout occupies, measured as layout.ts's figures are: the array and its drawn
// glyphs, and the outline path draw.ts builds of them (in Skia's memory) for as long as they live.
const GLYPH_LAYOUT_BYTES = 500;
const DRAWN_GLYPH_BYTES = 300;

const glyphLayoutBytes = (glyphs: readonly DrawnGlyph[]): number => GLYPH_LAYOUT_BYTES + glyphs.length * DRAWN_GLYPH_BYTES;

/**
 * The label's recent layouts. They live as long as the label, so as long as its tile: each is
 * counted with the tile in its cache when kept and taken off when dropped, so that the tile cache's
 * bound covers them (a label seen at many zooms would otherwise hold memory nothing counts).
 */
function recent<V>(cache: WeakMap<TileSymbol, Lru<string, V>>, symbol: TileSymbol, glyphsOf: (value: V) => readonly DrawnGlyph[]): Lru<string, V> {
  let layouts = cache.get(symbol);
  if (!layouts) {
    layouts = new Lru(LAYOUTS_PER_LABEL, { onEvict: (value) => addDerivedBytes(symbol.tile, -glyphLayoutBytes(glyphsOf(value))) });
    cache.set(symbol, layouts);
  }
  return layouts;
}

/** Keeps a new layout of the label, counted with its tile (see recent). */
function keepLayout<V>(layouts: Lru<string, V>, symbol: TileSymbol, key: string, value: V, glyphs: readonly DrawnGlyph[]): V {
  addDerivedBytes(symbol.tile, glyphLayoutBytes(glyphs));
  return layouts.set(key, value);
}

const NO_GLYPHS: readonly DrawnGlyph[] = [];
const lineLabelGlyphs = (label: LineLabel | null): readonly DrawnGlyph[] => label?.glyphs ?? NO_GLYPHS;
const sameGlyphs = (glyphs: readonly DrawnGlyph[]): readonly DrawnGlyph[] => glyphs;

/** A line label's glyphs and circles relative to its anchor, or null when it does not fit on its line. */
function lineLabel(instance: SymbolInstance): LineLabel | null {
  const { symbol, unit } = instance;
  const key = `${unit} ${instance.paintScale}`;
  const layouts = recent(lineLabelCache, symbol, lineLabelGlyphs);
  const cached = layouts.get(key);
  if (cached !== undefined) return cached;
  const origin = symbol.anchor;
  const line = symbol.line!.map((p) => ({ x: (p.x - origin.x) * unit, y: (p.y - origin.y) * unit }));
  const label = layoutAlongLine(symbol, line, instance.paintScale);
  return keepLayout(layouts, symbol, key, label, lineLabelGlyphs(label));
}

/** Glyphs along `line` (CSS px, the anchor at 0, 0) at text scale `scale`, with the path of its collision circles. */
function layoutAlongLine(symbol: TileSymbol, line: readonly Point[], scale: number): LineLabel | null {
  const shaping = symbol.shaping!;
  const anchor = { x: 0, y: 0 };
  const segment = symbol.lineAnchor!.segment;
  const positioned = shaping.lines.flat();
  const offsets = positioned.map((g) => (g.x + (g.glyph.metrics.advance * g.scale) / 2) * scale);
  const lineOffset: [number, number] = [symbol.textOffset[0] * scale, symbol.textOffset[1] * scale];
  const places = placeGlyphsAlongLine(line, anchor, segment, offsets, lineOffset, symbol.keepUpright);
  if (!places) return null;
  const glyphs = positioned.map((g, i): DrawnGlyph => {
    const place = places[i]!;
    const cos = Math.cos(place.angle);
    const sin = Math.sin(place.angle);
    // The pen origin: half an advance back along the glyph's baseline, down by its line y and ascender.
    const localX = (-(g.glyph.metrics.advance * g.scale) / 2) * scale;
    const localY = (g.y + g.glyph.ascender * g.scale) * scale;
    return {
      glyph: g.glyph, x: place.x + localX * cos - localY * sin, y: place.y + localX * sin + localY * cos, angle: place.angle, scale: scale * g.scale,
      color: (symbol.sections[g.section]?.color as Color | null) ?? null,
    };
  });
  // MapLibre's circles: the label's height (at the layout size) across, along the path between its first and last glyphs.
  const height = Math.max(10, shaping.bottom - shaping.top) * symbol.layoutScale;
  const path = labelPath(line, anchor, segment, offsets[0]!, offsets[offsets.length - 1]!, lineOffset);
  if (!path) return null;
  return { glyphs, path, radius: height / 2 + symbol.textPadding };
}

type PaintReader = <T>(name: string, instance: SymbolInstance) => T;

/** A layer's paint properties in this render: the feature-constant ones evaluated once. */
function paintReader(layer: RenderLayer, zooms: EvaluationZooms): PaintReader {
  const constant = new Map<string, unknown>();
  return <T>(name: string, instance: SymbolInstance): T => {
    const expression = layer.paint[name]!;
    if (!isFeatureConstant(expression)) return paintValue<T>(expression, instance.zooms, instance.symbol.feature, instance.symbol.canonical);
    if (!constant.has(name)) constant.set(name, paintValue(expression, zooms));
    return constant.get(name) as T;
  };
}

function drawnText(instance: SymbolInstance, at: Point, read: PaintReader, lineGlyphsPlaced: readonly DrawnGlyph[] | null, shift: Point, justification: TextJustify | null): DrawnText {
  const paint = <T>(name: string): T => read<T>(name, instance);
  return {
    origin: at,
    glyphs: lineGlyphsPlaced ?? pointGlyphs(instance, shift, justification),
    color: paint<Color>('text-color'),
    opacity: paint<number>('text-opacity'),
    haloColor: paint<Color>('text-halo-color'),
    haloWidth: paint<number>('text-halo-width'),
    haloBlur: paint<number>('text-halo-blur'),
  };
}

/** The last few glyph layouts of each point label, by what they depend on, so that warm renders reuse them (and draw.ts their paths). */
const pointGlyphCache = new WeakMap<TileSymbol, Lru<string, readonly DrawnGlyph[]>>();

/** A point label's glyphs relative to its anchor, CSS px. */
function pointGlyphs(instance: SymbolInstance, shift: Point, justification: TextJustify | null): readonly DrawnGlyph[] {
  const { symbol } = instance;
  const scale = instance.paintScale;
  const key = `${scale} ${shift.x} ${shift.y} ${justification}`;
  const layouts = recent(pointGlyphCache, symbol, sameGlyphs);
  const cached = layouts.get(key);
  if (cached) return cached;
  const shaping = (justification ? symbol.shapings[justification] : null) ?? symbol.shaping!;
  const angle = (symbol.textRotate * Math.PI) / 180;
  const cos = Math.cos(angle);
  const sin = Math.sin(angle);
  // Variable-anchor shifts were computed at the layout size; MapLibre redoes them at the render size.
  const shiftScale = symbol.layoutScale > 0 ? scale / symbol.layoutScale : 1;
  const glyphs = shaping.lines.flat().map((g) => {
    const localX = (g.x + symbol.textOffset[0]) * scale;
    const localY = (g.y + symbol.textOffset[1] + g.glyph.ascender * g.scale) * scale;
    return {
      glyph: g.glyph,
      x: shift.x * shiftScale + localX * cos - localY * sin,
      y: shift.y * shiftScale + localX * sin + localY * cos,
      angle,
      scale: scale * g.scale,
      color: (symbol.sections[g.section]?.color as Color | null) ?? null,
    };
  });
  return keepLayout(layouts, symbol, key, glyphs, glyphs);
}

function drawnIcon(instance: SymbolInstance, at: Point, read: PaintReader, rc: RenderContext): DrawnIcon {
  const { symbol } = instance;
  const paint = <T>(name: string): T => read<T>(name, instance);
  const image = symbol.iconImage!;
  const lineAngle = symbol.iconAlongLine && symbol.lineAnchor ? symbol.lineAnchor.angle : 0;
  const { layout } = symbol.layer;
  const sizeOne = isFeatureConstant(layout['icon-size']!) && instance.iconScale === 1;
  const unrotated = isFeatureConstant(layout['icon-rotate']!) && symbol.iconRotate === 0;
  return {
    image,
    quads: iconQuads(symbol.icon!, image, symbol.iconTextFit, instance.iconScale),
    anchorX: at.x, anchorY: at.y,
    angle: (symbol.iconRotate * Math.PI) / 180 + lineAngle,
    size: instance.iconScale,
    smooth: image.sdf || !sizeOne || !unrotated || lineAngle !== 0 || image.pixelRatio !== rc.pixelRatio,
    opacity: paint<number>('icon-opacity'),
    color: paint<Color>('icon-color'),
    haloColor: paint<Color>('icon-halo-color'),
    haloWidth: paint<number>('icon-halo-width'),
    haloBlur: paint<number>('icon-halo-blur'),
  };
}
