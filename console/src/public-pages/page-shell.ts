/** The header the catalog and the viewers share: the brand (back to `/`), links, and forgetting the key. */

import { h } from '../dom.js';
import { forgetKey, storedKey } from './viewer-key.js';

export function shell(title: string): { main: HTMLElement } {
  document.title = title;
  const forget = h('button', { type: 'button', class: 'secondary small', name: 'forget-key', hidden: storedKey() === null }, 'Forget key');
  forget.addEventListener('click', () => {
    forgetKey();
    location.reload();
  });
  const main = h('main', { class: 'page' });
  document.getElementById('app')!.append(
    h(
      'header',
      { class: 'top' },
      h('a', { class: 'brand', href: '/' }, 'Meridian'),
      h(
        'nav',
        { class: 'nav' },
        h('a', { href: '/' }, 'Maps'),
        h('a', { href: '/console/' }, 'Console'),
        h('a', { href: '/api-reference/' }, 'API reference'),
        h('a', { href: '/openapi.json' }, 'OpenAPI'),
        h('a', { href: '/health' }, 'Health'),
      ),
      forget,
    ),
    main,
  );
  return { main };
}
