import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { gatedRoute, gatedUnavailable, keyParameter, type KeyGate } from '../../keys/gate.js';
import { defaulted, type TypeBoxTypeProvider } from '../../platform/http/typebox.js';
import { oneOf } from '../../platform/settings.js';
import { CONTENT_TYPES, IMAGE_CONTENT } from '../image-format.js';
import { outOfBounds, RENDER_UNAVAILABLE, valueOutside } from '../errors.js';
import { sendCached } from '../../platform/http/http-cache.js';
import type { IconLoader } from './icons.js';
import type { RenderPool } from '../render-pool.js';
import { compileStyle } from '../../render/style/style.js';
import type { MapRegistry, LoadedMap } from '../registry.js';
import { ATTRIBUTIONS } from './draw/attribution.js';
import { LANGUAGE_DESCRIPTION } from '../language.js';
import { DEFAULT_PADDING } from './fit-defaults.js';
import { IMAGE_FORM, LEGENDS, parseStaticRequest, type Query, type StaticRequest } from './request.js';
import type { StaticWeather } from './weather-layer.js';
import { rampOf } from '../../weather/ramps.js';
import type { Viewport } from '../../render/view/viewport.js';
import { ApiError, MAX_URI_BYTES, NotFoundError, URI_TOO_LONG } from '../../platform/errors.js';
import { Lru } from '../../platform/lru.js';
import type { TaskTiming } from '../../platform/worker-pool.js';
import { THUMBNAIL } from '../serve/links.js';

export interface StaticMapRouteOptions {
  gate: KeyGate;
  registry: MapRegistry;
  pool: RenderPool;
  icons: IconLoader;
  /** `Cache-Control: public, max-age=` of the images. */
  maxAgeSeconds: number;
  /** The weather moment a `weather=` request draws (the weather area's, wired by the composition). */
  weather: (variable: string, time: Date | null) => Promise<Omit<StaticWeather, 'ramp' | 'legend'>>;
}

/**
 * Thumbnails (the image `/maps` links for each map, shown by the catalog at `/`) are kept in memory,
 * by map, revision and format: a catalog opened by many readers draws each once per revision. At
 * most this many, and this many bytes (a 256x192 thumbnail is a few tens of kilobytes).
 */
const THUMBNAILS_KEPT = 512;
const THUMBNAIL_BYTES = 32 * 1024 * 1024;

/**
 * Whether a request is a map's thumbnail as `/maps` links it: the map's bounds at the thumbnail's
 * size, at 1x, with nothing but the key in the query (the attribution's default filled in by the schema).
 */
function isThumbnail(request: StaticRequest, query: Query, map: LoadedMap): boolean {
  const { viewport } = request;
  return (
    request.kind === 'bounds' &&
    request.bounds!.every((value, i) => value === map.bounds[i]) &&
    viewport.width === THUMBNAIL.width &&
    viewport.height === THUMBNAIL.height &&
    viewport.pixelRatio === 1 &&
    Object.entries(query).every(([name, value]) => name === 'key' || (name === 'attribution' && value === 'bottomright'))
  );
}

/** `Cache-Control: max-age` of images with weather: that of `/weather/latest.json`. */
const WEATHER_MAX_AGE_SECONDS = 60;

const text = (description: string) => Type.Optional(Type.String({ description }));
const repeated = (description: string) => Type.Optional(Type.Array(Type.String(), { description }));

/** The image's request parts, declared once: their types, validation and OpenAPI entries come from these. */
const params = Type.Object({
  mapId: Type.String({ description: 'Map identifier' }),
  area: Type.String({ description: 'lon,lat,zoom | minx,miny,maxx,maxy | auto' }),
  image: Type.String({ description: 'Image: size, scale and format. {width}x{height}[@2x].{format}, width and height 1..2048, format png, jpg or webp as the map allows' }),
});
const querystring = Type.Object({
  key: keyParameter,
  path: repeated('Path drawn on the map: [fill:C|][stroke:C|][width:N|][shortest:B|] then enc:POLYLINE or lon,lat|lon,lat…'),
  markers: repeated('Markers: [icon:URL|][anchor:A|][scale:N|] then lon,lat[,colour] entries separated by |'),
  attribution: defaulted(oneOf(ATTRIBUTIONS, { default: 'bottomright', description: 'Corner of the attribution, or false for none' })),
  shortest: text('true draws every path the short way across the antimeridian (default false)'),
  padding: text(`Margin around fitted bounds or features, as a fraction of the size on each side (default ${DEFAULT_PADDING})`),
  latlng: text('true reads every coordinate pair of path and markers as lat,lon (default false)'),
  language: text(LANGUAGE_DESCRIPTION),
  weather: text('A weather variable of the latest runs (`temperature-2m:gfs`, or a base id one model gives) drawn with its colour ramp under the labels'),
  time: text('The moment of the weather (RFC 3339), between the run\'s first and last keyframes, interpolated between the two around it; the first keyframe when absent'),
  legend: Type.Optional(oneOf(LEGENDS, { description: 'Corner of the weather legend, or false for none (the default); needs weather' })),
  fill: text('Deprecated: default fill colour of every path'),
  stroke: text('Deprecated: default stroke colour of every path'),
  width: text('Deprecated: default stroke width of every path, CSS pixels'),
  encodedpath: repeated('Deprecated: a path as an encoded polyline'),
});

/**
 * Static map images (spec 4.2): a map rendered by centre and zoom, by bounds, or fitted to the paths
 * and markers of the query, behind the API-key gate. A URI longer than 8192 bytes is refused with
 * 414 before anything else, the key included.
 */
export async function staticMapRoutes(app: FastifyInstance, options: StaticMapRouteOptions): Promise<void> {
  app.addHook('onRequest', async (request) => {
    if (Buffer.byteLength(request.raw.url ?? '') > MAX_URI_BYTES) throw new ApiError(URI_TOO_LONG, 'uri-too-long');
  });
  app.addHook('onRequest', options.gate.hookFor('maps'));
  for (const id of options.registry.ids()) {
    const { warnings } = compileStyle(options.registry.get(id)!.style);
    if (warnings.length > 0) app.log.warn({ map: id, unsupported: warnings }, 'map uses style properties that Meridian does not draw');
  }

  const response = {
    200: {
      description: 'The image',
      content: IMAGE_CONTENT,
    },
    304: { description: 'Not modified (If-None-Match)' },
    400: { $ref: 'ErrorBody#', description: 'Out of bounds, invalid format, invalid image size, invalid language, a malformed path or marker (a path needs two points), an area or image part missing a piece (the message names it: a zoom, the height, the format), an unknown weather variable, or a time that is malformed or outside its keyframes' },
    404: { $ref: 'ErrorBody#', description: 'No such map, or weather asked for before any run is published' },
    414: { $ref: 'ErrorBody#', description: URI_TOO_LONG },
    ...gatedRoute.response,
    503: gatedUnavailable(RENDER_UNAVAILABLE),
  };

  // The image part left out: a 400 saying so rather than the 404 of no route. Hidden: not an operation.
  app.get('/api/maps/:mapId/static/:area', { schema: { hide: true } }, async () => {
    throw new ApiError(`Missing image size and format after the area: ${IMAGE_FORM}`);
  });

  const thumbnailBytes = new Lru<string, Uint8Array>(THUMBNAILS_KEPT, { maxWeight: THUMBNAIL_BYTES, weigh: (bytes) => bytes.byteLength });
  /** Thumbnails being drawn: one per map, revision and format at most. */
  const thumbnails = new Map<string, Promise<Uint8Array>>();
  /** A thumbnail from memory, or drawn once however many ask for it meanwhile. */
  const thumbnail = async (map: LoadedMap, format: StaticRequest['format'], draw: () => Promise<Uint8Array>): Promise<{ bytes: Uint8Array; hit: boolean }> => {
    const id = `${map.id}\0${map.revision}\0${format}`;
    const kept = thumbnailBytes.get(id);
    if (kept) return { bytes: kept, hit: true };
    let drawing = thumbnails.get(id);
    if (!drawing) {
      drawing = draw();
      thumbnails.set(id, drawing);
      drawing.then(
        (bytes) => {
          thumbnails.delete(id);
          thumbnailBytes.set(id, bytes);
        },
        () => thumbnails.delete(id),
      );
    }
    return { bytes: await drawing, hit: false };
  };

  const schema = {
    tags: ['static maps'],
    summary: 'Static map image by centre and zoom ({lon},{lat},{zoom}), bounds ({minx},{miny},{maxx},{maxy}) or auto',
    security: gatedRoute.security,
    params,
    querystring,
    response,
  };
  const handler = async (request: FastifyRequest<{ Params: Static<typeof params>; Querystring: Static<typeof querystring> }>, reply: FastifyReply) => {
    const { mapId, area, image: imageSpec } = request.params;
    const map = options.registry.get(mapId);
    if (!map) throw new NotFoundError();
    const parsed = parseStaticRequest(mapId, `${area}/${imageSpec}`, request.query, Buffer.byteLength(request.raw.url ?? ''), map.formats);
    const viewport = withinMapZooms(parsed, map);
    const icons = await options.icons.load(parsed.markers.flatMap((group) => (group.icon === null ? [] : [group.icon])));
    const weather = parsed.weather ? await staticWeather(options, parsed.weather) : undefined;
    const render = (timing?: TaskTiming) => options.pool.render(map, { viewport, format: parsed.format, paths: parsed.paths, markers: parsed.markers, attribution: parsed.attribution, icons, language: parsed.language, weather }, timing);
    if (isThumbnail(parsed, request.query, map)) {
      const { bytes, hit } = await thumbnail(map, parsed.format, () => render());
      reply.header('x-cache', hit ? 'hit' : 'miss');
      return sendCached(request, reply, bytes, CONTENT_TYPES[parsed.format], options.maxAgeSeconds);
    }
    // A render answers where its time went; a thumbnail, drawn once for many, does not.
    const timing: TaskTiming = { waitMs: 0, runMs: 0 };
    const bytes = await render(timing);
    reply.header('server-timing', serverTiming(timing, reply.elapsedTime));
    // A weather image changes with the next run, as the catalog does: cached as long as the catalog.
    return sendCached(request, reply, bytes, CONTENT_TYPES[parsed.format], weather ? WEATHER_MAX_AGE_SECONDS : options.maxAgeSeconds);
  };
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  typed.get('/api/maps/:mapId/static/:area/:image', { schema }, handler);
  // MapTiler Cloud spells the same image without `/api` (api.maptiler.com/maps/{mapId}/static/…),
  // MapTiler Server with it: a client moving from either gets the same image. Hidden: one operation.
  typed.get('/maps/:mapId/static/:area/:image', { schema: { ...schema, hide: true } }, handler);
}

/**
 * Where a rendered image's time went in the server (W3C Server Timing, shown by browsers' developer
 * tools): waiting for a render thread, rendering on it, and everything from the request's arrival
 * until the image is ready to send (the key check, parsing, the hand-offs; a header is written
 * before the body, so the ETag and the sending are not in it). Milliseconds, to a hundredth.
 */
function serverTiming({ waitMs, runMs }: TaskTiming, totalMs: number): string {
  const ms = (value: number) => value.toFixed(2);
  return `queue;dur=${ms(waitMs)};desc="waiting for a render thread", render;dur=${ms(runMs)}, total;dur=${ms(totalMs)}`;
}

async function staticWeather(options: StaticMapRouteOptions, request: NonNullable<StaticRequest['weather']>): Promise<StaticWeather> {
  const moment = await options.weather(request.variable, request.time);
  return { ...moment, ramp: rampOf(moment.variableId, moment.decoding.min, moment.decoding.max), legend: request.legend };
}

/**
 * A centre request must ask for a zoom the map offers; a fitted view is brought into the map's
 * range instead, since the client did not choose its zoom.
 */
function withinMapZooms(request: StaticRequest, map: LoadedMap): Viewport {
  const { viewport } = request;
  if (request.kind === 'center') {
    if (viewport.zoom < map.minzoom || viewport.zoom > map.maxzoom) throw outOfBounds(valueOutside('zoom', viewport.zoom, map.minzoom, map.maxzoom, `(map "${map.id}" has zooms ${map.minzoom} to ${map.maxzoom})`));
    return viewport;
  }
  return { ...viewport, zoom: Math.min(map.maxzoom, Math.max(map.minzoom, viewport.zoom)) };
}
