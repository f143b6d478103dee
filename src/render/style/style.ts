/**
 * Compiles a MapLibre style document (v8) into render layers: the filter of each layer through the
 * style spec's `featureFilter`, and every paint and layout property of its type (the style's value,
 * or the spec's default) through `normalizePropertyExpression`, which gives constants, legacy
 * functions and expressions one shape (`createPropertyExpression` under the hood). Evaluating them
 * the way MapLibre does (which zoom, which feature) is `properties.ts`'s job.
 *
 * What we cannot draw is listed once in `warnings`, never thrown: `fill-extrusion-pattern`, line
 * gradients, layer blend modes (MapLibre GL JS does not draw them either), rounded extrusion
 * corners, image and video sources, and a `terrain` or non-mercator `projection` of the style.
 * Properties that only matter to an interactive map (`raster-fade-duration`, pitch alignments,
 * `fill-extrusion-vertical-gradient` of walls we never see from straight above) are not warned
 * about. Symbol properties the label renderer does not draw (SYMBOL_UNSUPPORTED) are listed too.
 */

import {
  createVisibilityExpression,
  featureFilter,
  latest,
  normalizePropertyExpression,
  validateStyleMin,
  type FeatureFilter,
  type LayerSpecification,
  type StylePropertyExpression,
  type StylePropertySpecification,
  type StyleSpecification,
} from '@maplibre/maplibre-gl-style-spec';

/** The layer types this renderer draws. */
export type RenderLayerType = 'background' | 'fill' | 'line' | 'circle' | 'heatmap' | 'fill-extrusion' | 'raster' | 'hillshade' | 'color-relief' | 'symbol';

const DRAWN_TYPES: ReadonlySet<string> = new Set<RenderLayerType>([
  'background', 'fill', 'line', 'circle', 'heatmap', 'fill-extrusion', 'raster', 'hillshade', 'color-relief', 'symbol',
]);

export interface RenderLayer {
  readonly id: string;
  readonly type: RenderLayerType;
  /** Source id; undefined for background layers. */
  readonly source: string | undefined;
  readonly sourceLayer: string | undefined;
  /** Drawn when minzoom <= view zoom < maxzoom. */
  readonly minzoom: number;
  readonly maxzoom: number;
  /** 'visible' or 'none' (a `global-state` expression may decide). */
  visible(): boolean;
  readonly filter: FeatureFilter;
  /** Every paint property of the layer's type, by name: the style's value or the spec's default. */
  readonly paint: Readonly<Record<string, StylePropertyExpression>>;
  /** Every layout property of the layer's type except `visibility`. */
  readonly layout: Readonly<Record<string, StylePropertyExpression>>;
  /** The layout properties the style sets (some symbol properties act only when set). */
  readonly layoutGiven: ReadonlySet<string>;
}

/** The style's `light` (for fill-extrusion), as expressions of the zoom. */
export interface LightProperties {
  readonly anchor: StylePropertyExpression;
  readonly position: StylePropertyExpression;
  readonly color: StylePropertyExpression;
  readonly intensity: StylePropertyExpression;
}

export interface CompiledStyle {
  readonly layers: readonly RenderLayer[];
  readonly light: LightProperties;
  /** Defaults of the style's `state`, the values `global-state` expressions read. */
  readonly globalState: Readonly<Record<string, unknown>>;
  /** Each unsupported property (or layer type, or style feature) once, in order of appearance. */
  readonly warnings: readonly string[];
}

/** Paint properties we do not draw; listed when a layer sets them. */
const UNSUPPORTED_PAINT: ReadonlySet<string> = new Set([
  'line-gradient', 'fill-extrusion-pattern',
]);
/**
 * Symbol properties the label renderer leaves out, listed when a layer sets them to anything but
 * their default: vertical writing and upright icons along lines. (Pitch and map alignments of a
 * tilted map are not among them: a flat map draws them alike; nor is symbol-avoid-edges, which
 * MapLibre GL JS ignores too, placing labels over the whole map rather than tile by tile.)
 */
const SYMBOL_UNSUPPORTED: Readonly<Record<string, unknown>> = {
  'text-writing-mode': undefined,
  'icon-keep-upright': false,
};
/** Blend modes MapLibre GL JS does not draw either (maplibre-gl-js#48); listed unless `normal`. */
const BLEND_PAINT: ReadonlySet<string> = new Set(['fill-layer-blend', 'line-layer-blend', 'raster-layer-blend']);

/**
 * Compiles a validated style. Throws an Error listing the validation errors when the document is not
 * a valid style (unknown layer types, properties of the wrong type, layers of missing sources, ...).
 */
export function compileStyle(style: StyleSpecification): CompiledStyle {
  if (typeof style !== 'object' || style === null) throw new Error('Invalid style: not an object');
  const errors = validateStyleMin(style);
  if (errors.length > 0) {
    const shown = errors.slice(0, 10).map((error) => error.message);
    const more = errors.length > shown.length ? ` (and ${errors.length - shown.length} more)` : '';
    throw new Error(`Invalid style: ${shown.join('; ')}${more}`);
  }
  const warnings = new Set<string>();
  const globalState: Record<string, unknown> = {};
  for (const [key, state] of Object.entries(style.state ?? {})) globalState[key] = (state as { default?: unknown }).default;

  const layers: RenderLayer[] = [];
  for (const layer of style.layers) {
    if (!DRAWN_TYPES.has(layer.type)) {
      warnings.add(layer.type);
      continue;
    }
    layers.push(compileLayer(layer, globalState, warnings));
  }

  for (const source of Object.values(style.sources)) {
    if (source.type === 'image' || source.type === 'video') warnings.add(`${source.type} source`);
  }
  if (style.terrain) warnings.add('terrain');
  const projection = style.projection?.type;
  if (projection !== undefined && projection !== 'mercator') warnings.add('projection');

  const lightSpec = latest.light as Record<string, StylePropertySpecification>;
  const light = style.light ?? {};
  const lightProperty = (name: 'anchor' | 'position' | 'color' | 'intensity'): StylePropertyExpression =>
    normalizePropertyExpression((light[name] ?? lightSpec[name]!.default) as never, `light.${name}`, lightSpec[name]!, globalState);
  return {
    layers,
    light: { anchor: lightProperty('anchor'), position: lightProperty('position'), color: lightProperty('color'), intensity: lightProperty('intensity') },
    globalState,
    warnings: [...warnings],
  };
}

function compileLayer(layer: LayerSpecification, globalState: Record<string, unknown>, warnings: Set<string>): RenderLayer {
  const type = layer.type as RenderLayerType;
  const paintSpec = (latest as unknown as Record<string, Record<string, StylePropertySpecification>>)[`paint_${type}`] ?? {};
  const layoutSpec = (latest as unknown as Record<string, Record<string, StylePropertySpecification>>)[`layout_${type}`] ?? {};
  const givenPaint = ('paint' in layer ? layer.paint : undefined) as Record<string, unknown> | undefined;
  const givenLayout = ('layout' in layer ? layer.layout : undefined) as Record<string, unknown> | undefined;

  const paint: Record<string, StylePropertyExpression> = {};
  for (const [name, spec] of Object.entries(paintSpec)) {
    const value = givenPaint?.[name];
    if (value !== undefined) {
      if (UNSUPPORTED_PAINT.has(name)) warnings.add(name);
      else if (name in SYMBOL_UNSUPPORTED && value !== SYMBOL_UNSUPPORTED[name]) warnings.add(name);
      else if (BLEND_PAINT.has(name) && value !== 'normal') warnings.add(name);
    }
    paint[name] = property(value, spec, `layers[${layer.id}].paint.${name}`, globalState);
  }
  // As MapLibre does: without its own colour, the outline drawn by fill-antialias takes the fill's.
  if (type === 'fill' && givenPaint?.['fill-outline-color'] === undefined) paint['fill-outline-color'] = paint['fill-color']!;
  const layout: Record<string, StylePropertyExpression> = {};
  for (const [name, spec] of Object.entries(layoutSpec)) {
    if (name === 'visibility') continue;
    const value = givenLayout?.[name];
    if (name === 'fill-extrusion-rounded-corner-distance' && typeof value === 'number' && value > 0) warnings.add(name);
    if (value !== undefined && name in SYMBOL_UNSUPPORTED && value !== SYMBOL_UNSUPPORTED[name]) warnings.add(name);
    layout[name] = property(value, spec, `layers[${layer.id}].layout.${name}`, globalState);
  }

  const visibility = createVisibilityExpression((givenLayout?.visibility ?? 'visible') as never, `layers[${layer.id}].layout.visibility`, globalState);
  const filter = featureFilter('filter' in layer ? layer.filter : undefined, `layers[${layer.id}].filter`, globalState);
  return {
    id: layer.id,
    type,
    source: 'source' in layer ? (layer.source as string | undefined) : undefined,
    sourceLayer: 'source-layer' in layer ? (layer['source-layer'] as string | undefined) : undefined,
    minzoom: layer.minzoom ?? 0,
    maxzoom: layer.maxzoom ?? 24,
    visible: () => visibility.evaluate() !== 'none',
    filter,
    paint,
    layout,
    layoutGiven: new Set(Object.keys(givenLayout ?? {})),
  };
}

function property(value: unknown, spec: StylePropertySpecification, key: string, globalState: Record<string, unknown>): StylePropertyExpression {
  // Properties without a default (fill-outline-color, line-dasharray, ...) evaluate to undefined.
  const given = value === undefined ? (spec as { default?: unknown }).default : value;
  return normalizePropertyExpression(given as never, key, spec, globalState);
}
