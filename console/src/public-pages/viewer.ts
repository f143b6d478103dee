/**
 * `/maps/{id}/viewer`: one map in MapLibre GL JS (bundled by Vite from node_modules/maplibre-gl,
 * served by Meridian), opening on the map's data (its `center` from `/maps`; a `#zoom/lat/lon` hash
 * wins, and follows the view, as tileserver-gl's viewer does), a switch between the map's styles
 * (`X`, `X-light`, `X-dark`), a place search box (place-search.ts), and the URLs and snippets for
 * other clients, filled in for the map.
 * The key comes from viewer-key.ts; the page the server sends is the same for every map and reader.
 */

import '../style.css';
import './public-pages.css';
import { Map as MapLibreMap, NavigationControl, setWorkerUrl } from 'maplibre-gl';
import 'maplibre-gl/dist/maplibre-gl.css';
import workerUrl from 'maplibre-gl/dist/maplibre-gl-worker.mjs?url';
import { gated, gatedUrl, type ResponseOf } from '../api.js';
import { copyButton, fill, h } from '../dom.js';
import { copyItems, styleFamily } from './map-urls.js';
import { shell } from './page-shell.js';
import { area } from './catalog-area.js';
import { keyForm, storedKey } from './viewer-key.js';
import { placeSearch } from '../place-search.js';

setWorkerUrl(new URL(workerUrl, location.href).href);

type MapSummary = ResponseOf<'/maps'>['maps'][number];

declare global {
  interface Window {
    /** The MapLibre map, for tests and the browser's console. */
    meridianViewer?: MapLibreMap;
  }
}

const mapId = decodeURIComponent(/^\/maps\/([^/]+)\/viewer\/?$/.exec(location.pathname)?.[1] ?? '');
const { main } = shell(`${mapId} · Meridian`);

const styleUrl = (id: string, key: string) => gatedUrl(`/maps/${encodeURIComponent(id)}/style.json`, key);

async function show(key: string): Promise<void> {
  const status = h('p', { class: 'muted' }, 'Loading the map…');
  fill(main, h('h1', {}, mapId), status);
  let maps: MapSummary[];
  try {
    maps = (await gated<ResponseOf<'/maps'>>('/maps', key)).maps;
  } catch (error) {
    status.className = 'message error';
    status.textContent = `The maps cannot be listed with this key: ${(error as Error).message}`;
    return;
  }
  const summary = maps.find((m) => m.id === mapId);
  if (!summary) {
    status.className = 'message error';
    fill(status, `There is no map “${mapId}” on this server: see the `, h('a', { href: '/' }, 'list of maps'), '.');
    return;
  }
  let current = summary;
  document.title = `${summary.name} · Meridian`;
  const heading = h('h1', {}, summary.name);
  const facts = h('p', { class: 'muted map-facts' });
  const describe = () => (facts.textContent = `${current.id} · ${area(current.bounds)} · zooms ${current.minzoom}–${current.maxzoom} · ${current.attribution}`);
  describe();
  const container = h('div', { class: 'viewer-map', id: 'viewer-map' });
  const urls = h('div', { class: 'copy-list' });
  const family = styleFamily(mapId, maps.map((m) => m.id));
  const switcher = family.length
    ? h('div', { class: 'style-switch', role: 'group', 'aria-label': 'Style' }, ...family.map((member) => h('button', { type: 'button', name: `style-${member.label.toLowerCase()}`, 'data-map': member.id, class: member.id === mapId ? 'small' : 'small secondary', onclick: () => switchTo(member.id) }, member.label)))
    : null;
  fill(main, heading, facts, switcher, h('div', { class: 'viewer' }, container, h('aside', { class: 'card copy-panel' }, h('h2', {}, 'Use this map'), h('p', { class: 'hint' }, 'Copy puts your key after key=; the page shows YOUR_KEY in its place.'), urls)));

  const map = new MapLibreMap({
    container,
    style: styleUrl(mapId, key),
    center: [summary.center[0]!, summary.center[1]!],
    zoom: summary.center[2]!,
    hash: true,
    attributionControl: { compact: true },
    canvasContextAttributes: { preserveDrawingBuffer: true },
  });
  map.addControl(placeSearch(key), 'top-left');
  map.addControl(new NavigationControl(), 'top-right');
  window.meridianViewer = map;

  const listUrls = () => {
    const sources = Object.entries(map.getStyle()?.sources ?? {}).filter(([, source]) => source.type === 'vector').map(([name]) => name);
    const view = () => ({ lon: map.getCenter().lng, lat: map.getCenter().lat, zoom: map.getZoom() });
    fill(
      urls,
      ...copyItems(location.origin, current, sources, view).map((item) =>
        h(
          'div',
          { class: `copy-item copy-${item.kind}`, 'data-copy': item.name },
          h('div', { class: 'copy-head' }, h('span', { class: 'field-label' }, item.label), copyButton(() => item.text(key))),
          item.kind === 'url' ? h('code', { class: 'copy-text' }, item.text('YOUR_KEY')) : h('pre', { class: 'copy-text' }, item.text('YOUR_KEY')),
        ),
      ),
    );
  };
  map.on('style.load', listUrls);

  function switchTo(id: string): void {
    const next = maps.find((m) => m.id === id);
    if (!next || next.id === current.id) return;
    current = next;
    describe();
    heading.textContent = next.name;
    for (const button of switcher?.querySelectorAll('button') ?? []) button.className = button.dataset.map === id ? 'small' : 'small secondary';
    // The viewer's address follows the style, the view stays where the reader put it.
    history.replaceState(null, '', `/maps/${encodeURIComponent(id)}/viewer${location.hash}`);
    const camera = { center: map.getCenter(), zoom: map.getZoom(), bearing: map.getBearing(), pitch: map.getPitch() };
    map.setStyle(styleUrl(id, key));
    map.once('style.load', () => map.jumpTo(camera));
  }
}

const key = storedKey();
if (key) void show(key);
else fill(main, h('h1', {}, mapId), keyForm((chosen) => void show(chosen), 'This map’s viewer loads its style and tiles with an API key, as every map request carries one.'));
