/**
 * `/`: the maps of this server, each with a thumbnail Meridian draws (the `/maps` list's thumbnail
 * URL, fetched with the key and shown from memory, so no key sits in the page), its name, area
 * (bounds), zooms and formats, and a link to its viewer. The list needs a key, as `/maps` does:
 * without one the page asks for it (viewer-key.ts) and shows nothing of the server's data.
 */

import '../style.css';
import './public-pages.css';
import { gated, type ResponseOf } from '../api.js';
import { fill, h } from '../dom.js';
import { area } from './catalog-area.js';
import { shell } from './page-shell.js';
import { keyForm, storedKey } from './viewer-key.js';

type MapSummary = ResponseOf<'/maps'>['maps'][number];

const { main } = shell('Maps · Meridian');


async function thumbnail(url: string, img: HTMLImageElement): Promise<void> {
  try {
    const response = await fetch(url, { credentials: 'omit' });
    if (!response.ok) throw new Error(`${response.status}`);
    img.src = URL.createObjectURL(await response.blob());
  } catch (error) {
    img.alt = `No thumbnail (${(error as Error).message})`;
    img.classList.add('failed');
  }
}

function card(map: MapSummary): HTMLElement {
  const img = h('img', { class: 'thumbnail', alt: `${map.name}`, width: 256, height: 192 });
  void thumbnail(map.thumbnail, img);
  const viewer = `/maps/${encodeURIComponent(map.id)}/viewer`;
  return h(
    'article',
    { class: 'card map-card', 'data-map': map.id },
    h('a', { href: viewer }, img),
    h('h2', {}, h('a', { href: viewer, class: 'map-name' }, map.name)),
    h(
      'dl',
      {},
      h('dt', {}, 'Id'),
      h('dd', {}, h('code', {}, map.id)),
      h('dt', {}, 'Area'),
      h('dd', { class: 'map-area' }, area(map.bounds)),
      h('dt', {}, 'Zooms'),
      h('dd', {}, `${map.minzoom}–${map.maxzoom}`),
      h('dt', {}, 'Formats'),
      h('dd', { class: 'map-formats' }, ['style.json (vector)', 'raster tiles', 'WMTS', ...map.formats.map((f) => f.toUpperCase())].join(', ')),
      map.schema ? h('dt', {}, 'Schema') : null,
      map.schema ? h('dd', {}, map.schema) : null,
    ),
    h('a', { class: 'button small', href: viewer }, 'Open the viewer'),
  );
}

async function show(key: string): Promise<void> {
  const status = h('p', { class: 'muted' }, 'Loading the maps…');
  fill(main, h('h1', {}, 'Maps'), status);
  try {
    const { maps } = await gated<ResponseOf<'/maps'>>('/maps', key);
    status.textContent = maps.length === 0 ? 'This server has no map yet: see `meridian maps import` in the maps guide.' : `${maps.length} map${maps.length === 1 ? '' : 's'}.`;
    main.append(h('div', { class: 'map-grid' }, ...maps.map(card)));
  } catch (error) {
    status.className = 'message error';
    status.textContent = `The maps cannot be listed with this key: ${(error as Error).message}`;
  }
}

const key = storedKey();
if (key) void show(key);
else {
  fill(
    main,
    h('h1', {}, 'Meridian'),
    h('p', {}, 'A self-hosted mapping platform: API keys, static and interactive maps, weather tiles, coordinates. The ', h('a', { href: '/api-reference/' }, 'API reference'), ' and the ', h('a', { href: '/console/' }, 'console'), ' need no key to open.'),
    keyForm((chosen) => void show(chosen), 'The maps of this server, their thumbnails and viewers are shown with an API key, as every map request carries one.'),
  );
}
