/** The console's shell: header, navigation and hash routing to one page module per route. */

import './style.css';
import { loadApiSettings } from './api.js';
import { h, fill } from './dom.js';
import { renderCoordinates } from './pages/coordinates.js';
import { renderKeys } from './pages/keys.js';
import { renderSignIn } from './pages/signin.js';
import { renderStaticMap } from './pages/static-map.js';
import { renderUsage } from './pages/usage.js';
import { renderWeather } from './pages/weather.js';
import { serviceToken, signOut } from './session.js';

/** A page draws into `main` and may return what to undo when leaving it (maps to remove). */
export type Page = (main: HTMLElement) => void | (() => void);

const pages: Record<string, { title: string; render: Page }> = {
  keys: { title: 'API keys', render: renderKeys },
  usage: { title: 'Usage', render: renderUsage },
  static: { title: 'Static maps', render: renderStaticMap },
  weather: { title: 'Weather', render: renderWeather },
  coordinates: { title: 'Coordinates', render: renderCoordinates },
};

const app = document.getElementById('app')!;
const nav = h('nav', { class: 'nav' });
const main = h('main', { class: 'page' });
const signOutButton = h('button', { type: 'button', class: 'secondary small', onclick: () => signOut('Signed out.') }, 'Sign out');
app.append(h('header', { class: 'top' }, h('a', { class: 'brand', href: '#/keys' }, 'Meridian'), nav, signOutButton), main);

let leave: (() => void) | void;

function route(): void {
  const name = location.hash.replace(/^#\/?/, '').split(/[/?]/)[0] || 'keys';
  leave?.();
  leave = undefined;
  main.className = `page page-${name}`;
  if (serviceToken() === null) {
    if (name !== 'signin') {
      location.replace(`#/signin${pages[name] ? `?next=${name}` : ''}`);
      return;
    }
    nav.hidden = signOutButton.hidden = true;
    document.title = 'Sign in · Meridian console';
    fill(main);
    renderSignIn(main);
    return;
  }
  if (name === 'signin') {
    location.replace('#/keys');
    return;
  }
  const page = pages[name] ?? pages.keys!;
  nav.hidden = signOutButton.hidden = false;
  fill(nav, ...Object.entries(pages).map(([id, { title }]) => h('a', { href: `#/${id}`, class: pages[name] === pages[id] ? 'active' : '' }, title)));
  document.title = `${page.title} · Meridian console`;
  fill(main);
  leave = page.render(main);
}

window.addEventListener('hashchange', route);
void loadApiSettings().then(route);
