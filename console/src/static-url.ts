/** The static-map URL of the builder's choices, in the grammar of `/api/maps/{mapId}/static/...`. */

export type View =
  | { mode: 'center'; lon: number; lat: number; zoom: number }
  | { mode: 'bounds'; west: number; south: number; east: number; north: number }
  | { mode: 'auto' };

export interface Marker {
  lon: number;
  lat: number;
  color: string;
}

export interface PathStyle {
  stroke: string;
  width: number;
  /** A closed path ends where it starts and is filled. */
  closed: boolean;
  fill: string;
}

export interface StaticRequest {
  mapId: string;
  key: string;
  view: View;
  width: number;
  height: number;
  retina: boolean;
  format: string;
  markers: Marker[];
  path: [number, number][];
  pathStyle: PathStyle;
}

/** Web Mercator's latitude limit and the zoom range, which the API enforces. */
const maxLatitude = 85.0511;
const minZoom = 0;
const maxZoom = 22;

/** Five decimals of a degree are about a metre: finer only lengthens the URL. */
export const degrees = (value: number): string => String(Number(value.toFixed(5)));

export function wrapLongitude(lon: number): number {
  const wrapped = ((((lon + 180) % 360) + 360) % 360) - 180;
  return wrapped === -180 && lon > 0 ? 180 : wrapped;
}

const clampLatitude = (lat: number) => Math.max(-maxLatitude, Math.min(maxLatitude, lat));

/** The view part of the path: `lon,lat,zoom`, `west,south,east,north` or `auto`. */
export function viewPart(view: View): string {
  switch (view.mode) {
    case 'center':
      // Four decimals of a zoom level are a scale within 0.01%: the image matches the frame.
      return `${degrees(wrapLongitude(view.lon))},${degrees(clampLatitude(view.lat))},${Number(Math.max(minZoom, Math.min(maxZoom, view.zoom)).toFixed(4))}`;
    case 'bounds': {
      // A view wider than the world asks for all of it; otherwise the API takes west > east as
      // crossing the antimeridian.
      const whole = view.east - view.west >= 360;
      const west = whole ? -180 : wrapLongitude(view.west);
      const east = whole ? 180 : wrapLongitude(view.east);
      return [west, clampLatitude(view.south), east, clampLatitude(view.north)].map(degrees).join(',');
    }
    case 'auto':
      return 'auto';
  }
}

const pair = ([lon, lat]: [number, number]) => `${degrees(wrapLongitude(lon))},${degrees(clampLatitude(lat))}`;

export function staticUrl(origin: string, request: StaticRequest): string {
  const size = `${request.width}x${request.height}${request.retina ? '@2x' : ''}`;
  const query = new URLSearchParams();
  if (request.markers.length) query.append('markers', request.markers.map((m) => `${pair([m.lon, m.lat])},${m.color}`).join('|'));
  if (request.path.length >= 2) {
    const { stroke, width, closed, fill } = request.pathStyle;
    const points = closed ? [...request.path, request.path[0]!] : request.path;
    query.append('path', [`stroke:${stroke}`, `width:${width}`, ...(closed ? [`fill:${fill}`] : []), ...points.map(pair)].join('|'));
  }
  // The API pads fitted bounds by default (10% a side); the builder's bounds are the frame itself.
  if (request.view.mode === 'bounds') query.append('padding', '0');
  query.append('key', request.key);
  return `${origin}/api/maps/${encodeURIComponent(request.mapId)}/static/${viewPart(request.view)}/${size}.${request.format}?${query}`;
}
