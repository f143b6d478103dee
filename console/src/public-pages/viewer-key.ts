/**
 * The API key of the catalog (`/`) and the map viewers (`/maps/{id}/viewer`), asked for as the
 * console asks: paste a key, or sign in with a service token and pick one of the account's keys.
 * It lives in this tab's sessionStorage only (never a cookie, never the page the server sends):
 * closing the tab forgets it. A service token typed here is used once, to list the keys, and not kept.
 */

import { ApiError, gated, type ApiKey, type ApiKeyPage, type ErrorBody } from '../api.js';
import { field, fill, h, messageLine } from '../dom.js';

const storageKey = 'meridian.viewer.key';

export function storedKey(): string | null {
  return sessionStorage.getItem(storageKey);
}

export function forgetKey(): void {
  sessionStorage.removeItem(storageKey);
}

/** Whether the server takes `key` from this page: `/ping`, asked as the page's own requests are. */
async function check(key: string): Promise<void> {
  await gated('/ping', key);
}

/** The account's keys, with the service token; 404 means key management is on another listener. */
async function keysOf(token: string): Promise<ApiKey[]> {
  const response = await fetch('/v1/api_keys?limit=100', { headers: { authorization: `Token ${token}` }, credentials: 'omit' });
  if (response.status === 404) {
    throw new ApiError(404, 'Key management is not served on this address (the server sets admin.port): paste an API key instead, or sign in to the console where key management is served.');
  }
  if (!response.ok) {
    const body = (await response.json().catch(() => null)) as Partial<ErrorBody> | null;
    throw new ApiError(response.status, body?.errors?.[0]?.message ?? `${response.status} ${response.statusText}`);
  }
  return ((await response.json()) as ApiKeyPage).items;
}

/**
 * The two ways in. `onKey` is called once a key the server accepts from this page is kept.
 */
export function keyForm(onKey: (key: string) => void, why: string): HTMLElement {
  const message = messageLine();
  const keyInput = h('input', { type: 'password', name: 'api-key', autocomplete: 'off', spellcheck: false, placeholder: 'API key' });
  const tokenInput = h('input', { type: 'password', name: 'service-token', autocomplete: 'off', spellcheck: false, placeholder: 'mst_…' });
  const picker = h('div');
  const keep = async (key: string) => {
    message.clear();
    try {
      await check(key);
    } catch (error) {
      message.error(`The server refuses this key here: ${(error as Error).message}`);
      return;
    }
    sessionStorage.setItem(storageKey, key);
    onKey(key);
  };
  const pasteForm = h('form', { class: 'key-paste' }, field('API key', keyInput, 'Kept in this tab only.'), h('button', { type: 'submit' }, 'Use this key'));
  pasteForm.addEventListener('submit', (event) => {
    event.preventDefault();
    if (keyInput.value.trim()) void keep(keyInput.value.trim());
  });
  const signInForm = h('form', { class: 'key-signin' }, field('Service token', tokenInput, 'Lists your account’s keys; the token is not kept.'), h('button', { type: 'submit', class: 'secondary' }, 'Sign in'));
  signInForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    message.clear();
    try {
      const keys = await keysOf(tokenInput.value.trim());
      tokenInput.value = '';
      if (keys.length === 0) {
        message.error('This account has no API key yet: create one in the console (Keys) or with `meridian keys create`.');
        return;
      }
      const select = h('select', { name: 'account-key' }, ...keys.map((key) => h('option', { value: key.id }, key.description ? `${key.name} — ${key.description}` : key.name)));
      const use = h('button', { type: 'button' }, 'Use this key');
      use.addEventListener('click', () => void keep(keys.find((key) => key.id === select.value)!.token));
      fill(picker, field('Key', select), use);
    } catch (error) {
      message.error((error as Error).message);
    }
  });
  return h(
    'section',
    { class: 'card key-form' },
    h('h2', {}, 'An API key'),
    h('p', {}, why),
    h('div', { class: 'key-ways' }, pasteForm, h('div', {}, signInForm, picker)),
    message.element,
  );
}
