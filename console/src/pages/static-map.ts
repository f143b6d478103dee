/**
 * The static-map builder: an interactive map to choose the view and click markers and path points
 * on, the options of the static API, and side by side the resulting URL's image.
 */

import { Marker as MapMarker, type GeoJSONSource, type Map as MapLibreMap } from 'maplibre-gl';
import { apiBase, gatedError, type ApiKey } from '../api.js';
import { copyButton, debounce, field, fill, h, messageLine } from '../dom.js';
import { keyPicker } from '../key-picker.js';
import { createMap, listMaps, mapStyle, type MapSummary } from '../map-view.js';
import { staticUrl, type Marker, type PathStyle, type View } from '../static-url.js';
import { DEFAULT_PADDING, SINGLE_POINT_ZOOM } from '../../../src/maps/static/fit-defaults.js';

const emptyLine = { type: 'FeatureCollection' as const, features: [] };

export function renderStaticMap(main: HTMLElement): () => void {
  let alive = true;
  let key: ApiKey | null = null;
  let maps: MapSummary[] = [];
  let chosen: MapSummary | null = null;
  /** The map the frame shows, if any. */
  let shownMap: string | null = null;
  let map: MapLibreMap | null = null;
  const markers: Marker[] = [];
  const markerPins: MapMarker[] = [];
  const path: [number, number][] = [];

  const message = messageLine();
  const mapNotice = messageLine();
  const keySlot = h('div');
  const mapSelect = h('select', { name: 'map', onchange: () => chooseMap(mapSelect.value) });
  const mode = h('select', { name: 'mode', onchange: () => update() },
    h('option', { value: 'center' }, 'Centre and zoom of the view'),
    h('option', { value: 'bounds' }, 'Bounds of the view'),
    h('option', { value: 'auto' }, 'Auto: fit markers and path'),
  );
  const width = h('input', { type: 'number', name: 'width', min: 1, max: 2048, value: 600, onchange: () => resize() });
  const height = h('input', { type: 'number', name: 'height', min: 1, max: 2048, value: 400, onchange: () => resize() });
  const retina = h('input', { type: 'checkbox', name: 'retina', onchange: () => update() });
  const format = h('select', { name: 'format', onchange: () => update() });
  const tool = h('select', { name: 'tool' },
    h('option', { value: 'pan' }, 'Move the map'),
    h('option', { value: 'marker' }, 'Click to add markers'),
    h('option', { value: 'path' }, 'Click to add path points'),
  );
  const markerColor = h('input', { type: 'color', name: 'marker-color', value: '#e4572e' });
  const stroke = h('input', { type: 'color', name: 'stroke', value: '#1d4ed8', onchange: () => redrawPath() });
  const strokeWidth = h('input', { type: 'number', name: 'stroke-width', min: 1, max: 50, value: 3, onchange: () => redrawPath() });
  const closed = h('input', { type: 'checkbox', name: 'closed', onchange: () => redrawPath() });
  const fillColor = h('input', { type: 'color', name: 'fill', value: '#1d4ed8', onchange: () => redrawPath() });
  const overlayList = h('ul', { class: 'overlay-list' });
  const mapBox = h('div', { class: 'map-box', id: 'builder-map' });
  const image = h('img', { class: 'static-image', id: 'static-image', alt: 'Static map' });
  const imageStatus = h('p', { class: 'muted image-status' });
  const urlBox = h('input', { readOnly: true, class: 'url', name: 'static-url' });
  const openLink = h('a', { class: 'button secondary small', target: '_blank', rel: 'noopener' }, 'Open');

  const pathStyle = (): PathStyle => ({ stroke: stroke.value, width: Number(strokeWidth.value) || 1, closed: closed.checked, fill: `${fillColor.value}66` });

  function view(): View {
    if (mode.value === 'auto' || !map) return { mode: 'auto' };
    if (mode.value === 'bounds') {
      const b = map.getBounds();
      return { mode: 'bounds', west: b.getWest(), south: b.getSouth(), east: b.getEast(), north: b.getNorth() };
    }
    // Both zooms are of the 512-px pyramid: the image, `width` pixels wide, shows what the frame
    // shows when its zoom is the map's shifted by the ratio of the two widths (a 600-px image
    // beside a 528-px frame at the map's zoom showed 29% more area than the frame).
    const c = map.getCenter();
    const frameWidth = map.getContainer().clientWidth || size().width;
    return { mode: 'center', lon: c.lng, lat: c.lat, zoom: map.getZoom() + Math.log2(size().width / frameWidth) };
  }

  const size = () => ({ width: Math.min(2048, Math.max(1, Math.round(Number(width.value) || 600))), height: Math.min(2048, Math.max(1, Math.round(Number(height.value) || 400))) });

  /**
   * In Auto mode the frame moves to what the image will show: the server fits the markers and path
   * with `padding` (DEFAULT_PADDING of each side unless given, src/maps/static/fit-defaults.ts), and the frame has the
   * image's proportions, so the same box with the same share of padding is the same view; one point
   * alone is shown at the server's street-level zoom (SINGLE_POINT_ZOOM) in the image's pyramid.
   */
  function frameOverlays(): void {
    const points = [...markers.map((m): [number, number] => [m.lon, m.lat]), ...path];
    if (!map || points.length === 0) return;
    const lons = points.map((p) => p[0]);
    const lats = points.map((p) => p[1]);
    const [west, east, south, north] = [Math.min(...lons), Math.max(...lons), Math.min(...lats), Math.max(...lats)];
    const { clientWidth: frameWidth, clientHeight: frameHeight } = map.getContainer();
    if (west === east && south === north) {
      map.jumpTo({ center: [west, south], zoom: SINGLE_POINT_ZOOM - Math.log2(size().width / frameWidth) });
      return;
    }
    const [x, y] = [frameWidth * DEFAULT_PADDING, frameHeight * DEFAULT_PADDING];
    map.fitBounds([[west, south], [east, north]], { padding: { top: y, bottom: y, left: x, right: x }, animate: false });
  }

  let shownUrl = '';
  let started = 0;
  const update = debounce(() => {
    if (!alive || !key || !chosen) return;
    if (mode.value === 'auto') frameOverlays();
    const url = staticUrl(apiBase(), {
      mapId: chosen.id,
      key: key.token,
      view: view(),
      ...size(),
      retina: retina.checked,
      format: format.value,
      markers,
      path,
      pathStyle: pathStyle(),
    });
    urlBox.value = url;
    openLink.href = url;
    if (url === shownUrl) return;
    shownUrl = url;
    started = performance.now();
    image.dataset.state = 'loading';
    imageStatus.textContent = 'Rendering…';
    image.src = url;
  }, 350);

  image.addEventListener('load', () => {
    if (image.src !== shownUrl) return;
    image.hidden = false;
    image.dataset.state = 'loaded';
    imageStatus.textContent = `${image.naturalWidth} × ${image.naturalHeight} px ${format.value.toUpperCase()}, ${Math.round(performance.now() - started)} ms`;
  });
  image.addEventListener('error', async () => {
    if (image.src !== shownUrl) return;
    const failed = shownUrl;
    const reason = await gatedError(failed);
    if (failed !== shownUrl) return;
    // The reason in place of the browser's broken-image sign.
    image.hidden = true;
    image.dataset.state = 'error';
    imageStatus.textContent = `No image: ${reason}`;
  });

  function resize(): void {
    const { width: w, height: h } = size();
    mapBox.style.aspectRatio = `${w} / ${h}`;
    map?.resize();
    update();
  }

  function listOverlays(): void {
    const remove = (list: unknown[], index: number) => () => {
      list.splice(index, 1);
      redrawMarkers();
      redrawPath();
    };
    fill(
      overlayList,
      ...markers.map((m, i) =>
        h('li', {}, h('span', { class: 'swatch', style: `background:${m.color}` }), `Marker ${m.lon.toFixed(4)}, ${m.lat.toFixed(4)} `, h('button', { type: 'button', class: 'link', onclick: remove(markers, i) }, 'remove')),
      ),
      path.length ? h('li', {}, h('span', { class: 'swatch', style: `background:${stroke.value}` }), `Path of ${path.length} point${path.length === 1 ? '' : 's'}${path.length < 2 ? ' (needs 2)' : ''} `, h('button', { type: 'button', class: 'link', onclick: () => ((path.length = 0), redrawPath()) }, 'clear')) : null,
    );
  }

  function redrawMarkers(): void {
    for (const pin of markerPins.splice(0)) pin.remove();
    if (map) for (const m of markers) markerPins.push(new MapMarker({ color: m.color }).setLngLat([m.lon, m.lat]).addTo(map));
    listOverlays();
    update();
  }

  function redrawPath(): void {
    const source = map?.getSource<GeoJSONSource>('builder-path');
    if (source) {
      const ring = closed.checked && path.length >= 3 ? [...path, path[0]!] : path;
      source.setData(path.length >= 2 ? { type: 'Feature', properties: {}, geometry: closed.checked && path.length >= 3 ? { type: 'Polygon', coordinates: [ring] } : { type: 'LineString', coordinates: ring } } : emptyLine);
      map!.setPaintProperty('builder-path-line', 'line-color', stroke.value);
      map!.setPaintProperty('builder-path-line', 'line-width', Number(strokeWidth.value) || 1);
      map!.setPaintProperty('builder-path-fill', 'fill-color', fillColor.value);
    }
    listOverlays();
    update();
  }

  async function chooseMap(id: string): Promise<void> {
    chosen = maps.find((m) => m.id === id) ?? null;
    if (!chosen || !key) return;
    fill(format, ...chosen.formats.map((f) => h('option', { value: f }, f.toUpperCase())));
    // Another map opens where its data is (its centre and zoom, as `/maps` gives them); the same map
    // again (another key) keeps the reader's view.
    const previous =
      map && shownMap === chosen.id
        ? { center: map.getCenter().toArray() as [number, number], zoom: map.getZoom() }
        : { center: [chosen.center[0]!, chosen.center[1]!] as [number, number], zoom: chosen.center[2]! };
    shownMap = chosen.id;
    const { style, problem } = await mapStyle(chosen.id, key.token);
    if (!alive) return;
    if (problem) mapNotice.notice(problem);
    else mapNotice.clear();
    map?.remove();
    markerPins.length = 0;
    map = createMap(mapBox, style, { center: previous.center, zoom: Math.max(chosen.minzoom, Math.min(chosen.maxzoom, previous.zoom)) }, key.token);
    map.setMinZoom(chosen.minzoom);
    map.setMaxZoom(chosen.maxzoom);
    const current = map;
    current.on('load', () => {
      current.addSource('builder-path', { type: 'geojson', data: emptyLine });
      current.addLayer({ id: 'builder-path-fill', type: 'fill', source: 'builder-path', paint: { 'fill-color': fillColor.value, 'fill-opacity': 0.4 }, filter: ['==', ['geometry-type'], 'Polygon'] });
      current.addLayer({ id: 'builder-path-line', type: 'line', source: 'builder-path', paint: { 'line-color': stroke.value, 'line-width': 3 } });
      mapBox.dataset.ready = 'true';
      redrawPath();
    });
    current.on('moveend', () => mode.value !== 'auto' && update());
    current.on('click', (event) => {
      const { lng, lat } = event.lngLat.wrap();
      if (tool.value === 'marker') {
        markers.push({ lon: lng, lat, color: markerColor.value });
        redrawMarkers();
      } else if (tool.value === 'path') {
        path.push([lng, lat]);
        redrawPath();
      }
    });
    redrawMarkers();
  }

  async function useKey(chosenKey: ApiKey | null): Promise<void> {
    key = chosenKey;
    message.clear();
    // A key refused here would leave an empty map and a broken image: the picker says why instead.
    mapPane.hidden = imagePane.hidden = urlRow.hidden = key === null;
    if (!key) return;
    try {
      maps = await listMaps(key.token);
    } catch (error) {
      message.error(`Cannot list the maps with this key: ${(error as Error).message}`);
      return;
    }
    if (!alive) return;
    if (maps.length === 0) {
      message.notice('This server has no maps configured.');
      return;
    }
    const keep = chosen && maps.some((m) => m.id === chosen!.id) ? chosen.id : maps[0]!.id;
    fill(mapSelect, ...maps.map((m) => h('option', { value: m.id, selected: m.id === keep }, m.id)));
    await chooseMap(keep);
  }

  const mapPane = h('section', { class: 'card pane' }, h('h3', {}, 'Interactive map'), mapNotice.element, mapBox);
  const imagePane = h('section', { class: 'card pane' }, h('h3', {}, 'Static image'), h('div', { class: 'image-box' }, image), imageStatus);
  const builder = h(
    'div',
    { class: 'builder' },
    h(
      'aside',
      { class: 'card controls' },
      keySlot,
      field('Map', mapSelect),
      field('View', mode),
      h('div', { class: 'row' }, field('Width', width), field('Height', height)),
      h('div', { class: 'row' }, field('Format', format), h('label', { class: 'check' }, retina, ' @2x')),
      h('h3', {}, 'Markers and path'),
      field('Click on the map to', tool),
      h('div', { class: 'row' }, field('Marker', markerColor), field('Stroke', stroke), field('Width', strokeWidth)),
      h('div', { class: 'row' }, h('label', { class: 'check' }, closed, ' Closed, filled'), field('Fill', fillColor)),
      overlayList,
      h('button', { type: 'button', class: 'secondary small', onclick: () => ((markers.length = 0), (path.length = 0), redrawMarkers(), redrawPath()) }, 'Clear all'),
    ),
    mapPane,
    imagePane,
  );
  const urlRow = h('div', { class: 'card url-row' }, field('Static URL', urlBox), copyButton(() => urlBox.value, 'Copy URL'), openLink);
  // Nothing that needs a key shows before one is chosen: an account without keys sees what to do
  // (the picker's notice, and the line below) rather than an empty frame and a broken image.
  mapPane.hidden = imagePane.hidden = urlRow.hidden = true;
  const noKey = h(
    'p',
    { class: 'message notice no-key', role: 'status', hidden: true },
    'Static images are asked for with an API key, and this account has none yet: ',
    h('a', { href: '#/keys' }, 'create a key'),
    ', then come back to this page.',
  );
  main.append(h('h1', {}, 'Static maps'), message.element, noKey, builder, urlRow);
  resize();
  keyPicker((k) => void useKey(k))
    .then((picker) => {
      if (!alive) return;
      fill(keySlot, picker);
      // The picker is a notice instead of a select when the account has no key.
      noKey.hidden = picker.classList.contains('key-picker');
    })
    .catch((error: Error) => message.error(error.message));

  return () => {
    alive = false;
    map?.remove();
  };
}
