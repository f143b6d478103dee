/**
 * The API key the map, weather and coordinates pages send: one of the signed-in account's keys,
 * chosen once and kept while the tab is open.
 */

import { manage, type ApiKey, type ApiKeyPage } from './api.js';
import { field, h } from './dom.js';

/** Enough for any account a person picks from; more would be a search, not a list. */
const maxKeys = 1000;
let chosenId: string | null = null;

export async function accountKeys(): Promise<ApiKey[]> {
  const keys: ApiKey[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
    const page: ApiKeyPage = await manage<ApiKeyPage>('GET', `/v1/api_keys?limit=100${query}`);
    keys.push(...page.items);
    cursor = page.cursor;
  } while (cursor && keys.length < maxKeys);
  return keys;
}

function originHint(key: ApiKey): string {
  if (key.origins.length === 0 && !key.user_agent) return 'Unrestricted key.';
  const parts = [];
  if (key.origins.length) parts.push(`origins ${key.origins.join(', ')} (this page is ${location.host})`);
  if (key.user_agent) parts.push(`user agents containing “${key.user_agent}”`);
  return `Restricted to ${parts.join(' and ')}.`;
}

/** A select of the account's keys; `onChange` gets the chosen key at once and on every change. */
export async function keyPicker(onChange: (key: ApiKey) => void): Promise<HTMLElement> {
  const keys = await accountKeys();
  if (keys.length === 0) {
    return h('p', { class: 'message notice' }, 'This account has no API key yet: ', h('a', { href: '#/keys' }, 'create one'), ' to use this page.');
  }
  const chosen = keys.find((key) => key.id === chosenId) ?? keys[0]!;
  const hint = h('small', { class: 'hint' }, originHint(chosen));
  const select = h(
    'select',
    {
      name: 'key',
      onchange: () => {
        const key = keys.find((k) => k.id === select.value)!;
        chosenId = key.id;
        hint.textContent = originHint(key);
        onChange(key);
      },
    },
    ...keys.map((key) => h('option', { value: key.id, selected: key.id === chosen.id }, key.description ? `${key.name} — ${key.description}` : key.name)),
  );
  chosenId = chosen.id;
  onChange(chosen);
  return h('div', { class: 'key-picker' }, field('API key', select), hint);
}
