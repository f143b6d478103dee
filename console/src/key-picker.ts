/**
 * The API key the map, weather and coordinates pages send: one of the signed-in account's keys,
 * chosen once and kept while the tab is open.
 */

import { gated, manage, type ApiKey, type ApiKeyPage } from './api.js';
import { field, fill, h } from './dom.js';

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

/**
 * Whether the server takes `key` from this page, asked the way the page's own requests ask
 * (`/ping`, with this page's origin as the browser sends it): the origin and user-agent rules are
 * the server's to apply, so the console does not guess them.
 */
async function refusal(key: ApiKey): Promise<string | null> {
  try {
    await gated('/ping', key.token);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

/**
 * What to do about a key the server refuses from this page: origins that leave this console out
 * can take its origin (a button does it); a user-agent rule this browser does not meet, or any
 * other refusal, leaves picking another key.
 */
function refusedNotice(key: ApiKey, reason: string, addOrigin: () => Promise<void>): HTMLElement {
  const here = location.origin;
  const box = h('div', { class: 'message error key-refused', role: 'alert' });
  const other = 'or pick another key above.';
  if (key.origins.length) {
    const add = h('button', { type: 'button', class: 'small', name: 'add-origin' }, `Add ${here} to ${key.name}`);
    add.addEventListener('click', async () => {
      add.disabled = true;
      try {
        await addOrigin();
      } catch (error) {
        add.disabled = false;
        box.append(h('div', {}, (error as Error).message));
      }
    });
    box.append(
      h('strong', {}, `${key.name} does not work on this page.`),
      ` It is restricted to the origins ${key.origins.join(', ')}, and this console is at ${here}, so its maps, images and searches would be refused (“${reason}”). `,
      'Add this console’s origin to the key ',
      add,
      ` ${other}`,
    );
  } else if (key.user_agent) {
    box.append(
      h('strong', {}, `${key.name} does not work on this page.`),
      ` It only accepts user agents containing “${key.user_agent}”, which this browser’s does not (“${reason}”). Edit the key on the `,
      h('a', { href: '#/keys' }, 'keys page'),
      ` ${other}`,
    );
  } else {
    box.append(h('strong', {}, `${key.name} does not work on this page`), ` (“${reason}”): pick another key above.`);
  }
  return box;
}

/**
 * A select of the account's keys. `onChange` gets the chosen key at once and on every change, or
 * null when the server refuses that key from this page (the picker then says why and what to do,
 * and the page shows nothing that would need the key).
 */
export async function keyPicker(onChange: (key: ApiKey | null) => void): Promise<HTMLElement> {
  const keys = await accountKeys();
  if (keys.length === 0) {
    return h('p', { class: 'message notice' }, 'This account has no API key yet: ', h('a', { href: '#/keys' }, 'create one'), ' to use this page.');
  }
  const chosen = keys.find((key) => key.id === chosenId) ?? keys[0]!;
  const hint = h('small', { class: 'hint' }, originHint(chosen));
  const problem = h('div');
  let asked = 0;
  const use = async (key: ApiKey): Promise<void> => {
    chosenId = key.id;
    hint.textContent = originHint(key);
    fill(problem);
    const ticket = ++asked;
    const reason = await refusal(key);
    if (ticket !== asked) return;
    if (reason === null) {
      onChange(key);
      return;
    }
    onChange(null);
    fill(
      problem,
      refusedNotice(key, reason, async () => {
        const changed = await manage<ApiKey>('POST', `/v1/api_keys/${key.id}/change_settings`, { origins: [...key.origins, location.origin] });
        keys[keys.indexOf(key)] = changed;
        await use(changed);
      }),
    );
  };
  const select = h(
    'select',
    { name: 'key', onchange: () => void use(keys.find((k) => k.id === select.value)!) },
    ...keys.map((key) => h('option', { value: key.id, selected: key.id === chosen.id }, key.description ? `${key.name} — ${key.description}` : key.name)),
  );
  void use(chosen);
  return h('div', { class: 'key-picker' }, field('API key', select), hint, problem);
}
