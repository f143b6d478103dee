/**
 * API keys of the signed-in account: a page of the list at a time (the API's cursor forward, the
 * cursors seen so far backward), create, change settings (rate limit and monthly quota included),
 * delete after a confirmation, copy a token.
 */

import { ApiError, manage, type ApiKey, type ApiKeyPage, type ApiKeySettings } from '../api.js';
import { copyButton, field, fill, h, messageLine } from '../dom.js';

const pageSizes = [10, 25, 50, 100];

/** A key's rate limit and quota in words, for the list. */
export function limitsText(key: Pick<ApiKey, 'rate_limit' | 'quota'>): string {
  const rate = key.rate_limit ? `${key.rate_limit.requests_per_second}/s, burst ${key.rate_limit.burst}` : "server's rate limit";
  const quota = key.quota ? `${key.quota.requests_per_month.toLocaleString('en')} a month` : 'no quota';
  return `${rate}; ${quota}`;
}

/** The form's limit fields as settings: both rate fields or neither; empty means the server's limit, or no quota. */
function limitsFrom(rate: HTMLInputElement, burst: HTMLInputElement, quota: HTMLInputElement): Pick<ApiKeySettings, 'rate_limit' | 'quota'> | string {
  if ((rate.value.trim() === '') !== (burst.value.trim() === '')) return 'Give both the requests a second and the burst, or neither (the server\'s limit).';
  return {
    rate_limit: rate.value.trim() === '' ? null : { requests_per_second: Number(rate.value), burst: Number(burst.value) },
    quota: quota.value.trim() === '' ? null : { requests_per_month: Number(quota.value) },
  };
}

/** The settings form, for a new key or an existing one. */
function settingsForm(key: ApiKey | null, submitLabel: string, onSubmit: (settings: ApiKeySettings) => Promise<void>): HTMLFormElement {
  const name = h('input', { name: 'name', maxLength: 128, value: key?.name ?? '', placeholder: key ? '' : 'generated when empty' });
  const description = h('input', { name: 'description', maxLength: 1024, value: key?.description ?? '' });
  const userAgent = h('input', { name: 'user_agent', maxLength: 512, value: key?.user_agent ?? '' });
  const origins = h('textarea', { name: 'origins', rows: 3, value: key?.origins.join('\n') ?? '', placeholder: 'example.com\n*.example.com' });
  const rate = h('input', { name: 'requests_per_second', type: 'number', min: 0, step: 'any', value: key?.rate_limit?.requests_per_second ?? '', placeholder: "server's" });
  const burst = h('input', { name: 'burst', type: 'number', min: 1, step: 1, value: key?.rate_limit?.burst ?? '', placeholder: "server's" });
  const quota = h('input', { name: 'requests_per_month', type: 'number', min: 1, step: 1, value: key?.quota?.requests_per_month ?? '', placeholder: 'no quota' });
  const message = messageLine();
  const submit = h('button', { type: 'submit' }, submitLabel);
  const form = h(
    'form',
    { class: 'settings-form' },
    field('Name', name),
    field('Description', description),
    field('User agent', userAgent, 'Requests must send a User-Agent containing this text; empty for any.'),
    field('Origins', origins, 'One rule a line: example.com, *.example.com, https://example.com:8080. Empty for any origin.'),
    field('Requests a second', rate, "The key's own rate limit, at most the server's; empty for the server's."),
    field('Burst', burst, 'Requests the key may make at once before the rate applies.'),
    field('Monthly quota', quota, 'Requests a UTC calendar month; beyond, requests get 429 until the month ends. Empty for none.'),
    h('div', { class: 'actions' }, submit),
    message.element,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    message.clear();
    const limits = limitsFrom(rate, burst, quota);
    if (typeof limits === 'string') {
      message.error(limits);
      return;
    }
    const settings: ApiKeySettings = {
      description: description.value.trim() || null,
      user_agent: userAgent.value.trim() || null,
      origins: origins.value.split(/[\s,]+/).map((rule) => rule.trim()).filter(Boolean),
      ...limits,
    };
    if (name.value.trim()) settings.name = name.value.trim();
    submit.disabled = true;
    try {
      await onSubmit(settings);
    } catch (error) {
      if (error instanceof ApiError && (error.status === 401 || error.status === 403)) return;
      message.error((error as Error).message);
    } finally {
      submit.disabled = false;
    }
  });
  return form;
}

/** A modal dialog holding `content`; resolves when closed. */
function openDialog(title: string, content: (close: () => void) => HTMLElement): void {
  const dialog = h('dialog', { class: 'dialog' });
  const close = () => dialog.close();
  dialog.append(h('h2', {}, title), content(close), h('button', { type: 'button', class: 'close secondary small', 'aria-label': 'Close', onclick: close }, '×'));
  dialog.addEventListener('close', () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
}

export function renderKeys(main: HTMLElement): void {
  let limit = 10;
  /** Cursors of the pages before the current one; `null` is the first page. */
  const previous: (string | null)[] = [];
  let current: string | null = null;
  let page: ApiKeyPage | null = null;

  const message = messageLine();
  const table = h('tbody');
  const summary = h('span', { class: 'summary' });
  const back = h('button', { type: 'button', class: 'secondary small', onclick: () => void load(previous.pop() ?? null) }, '← Previous');
  const next = h('button', { type: 'button', class: 'secondary small', onclick: () => void forward() }, 'Next →');
  const size = h(
    'select',
    { name: 'limit', onchange: () => ((limit = Number(size.value)), (previous.length = 0), void load(null)) },
    ...pageSizes.map((n) => h('option', { value: n, selected: n === limit }, `${n} a page`)),
  );

  async function load(cursor: string | null): Promise<void> {
    try {
      const query = `limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      page = await manage<ApiKeyPage>('GET', `/v1/api_keys?${query}`);
      current = cursor;
    } catch (error) {
      message.error((error as Error).message);
      return;
    }
    fill(table, ...(page.items.length ? page.items.map(row) : [h('tr', {}, h('td', { colSpan: 7, class: 'empty' }, 'No keys yet.'))]));
    const first = previous.length * limit;
    summary.textContent = page.total_count === 0 ? '0 keys' : `${first + 1}–${first + page.items.length} of ${page.total_count}`;
    back.disabled = previous.length === 0;
    next.disabled = page.cursor === null;
  }

  async function forward(): Promise<void> {
    if (!page?.cursor) return;
    previous.push(current);
    await load(page.cursor);
  }

  function row(key: ApiKey): HTMLTableRowElement {
    const masked = `${key.token.slice(0, 6)}…`;
    const token = h('code', { class: 'token', title: 'Click to show' }, masked);
    token.addEventListener('click', () => (token.textContent = token.textContent === masked ? key.token : masked));
    return h(
      'tr',
      { 'data-key-id': key.id },
      h('td', {}, h('strong', {}, key.name), key.description ? h('div', { class: 'muted' }, key.description) : null),
      h('td', { class: 'nowrap' }, token, ' ', copyButton(() => key.token, 'Copy token')),
      h('td', {}, key.origins.length ? key.origins.join(', ') : h('span', { class: 'muted' }, 'any')),
      h('td', {}, key.user_agent || h('span', { class: 'muted' }, 'any')),
      h('td', { class: 'limits' }, limitsText(key)),
      h('td', { class: 'nowrap', title: `changed ${new Date(key.changed).toLocaleString()}` }, new Date(key.created).toLocaleDateString()),
      h(
        'td',
        { class: 'nowrap' },
        h('button', { type: 'button', class: 'secondary small', onclick: () => edit(key) }, 'Edit'),
        ' ',
        h('button', { type: 'button', class: 'danger small', onclick: () => remove(key) }, 'Delete'),
      ),
    );
  }

  function edit(key: ApiKey): void {
    openDialog(`Edit ${key.name}`, (close) =>
      settingsForm(key, 'Save', async (settings) => {
        await manage<ApiKey>('POST', `/v1/api_keys/${key.id}/change_settings`, settings);
        close();
        message.notice(`Saved ${settings.name ?? key.name}.`);
        await load(current);
      }),
    );
  }

  function remove(key: ApiKey): void {
    openDialog('Delete key', (close) => {
      const confirm = h('button', { type: 'button', class: 'danger' }, `Delete ${key.name}`);
      const failure = messageLine();
      confirm.addEventListener('click', async () => {
        confirm.disabled = true;
        try {
          await manage('DELETE', `/v1/api_keys/${key.id}`);
          close();
          message.notice(`Deleted ${key.name}.`);
          // The page may now be empty: step back if so.
          await load(current);
          if (page && page.items.length === 0 && previous.length) await load(previous.pop() ?? null);
        } catch (error) {
          failure.error((error as Error).message);
          confirm.disabled = false;
        }
      });
      return h(
        'div',
        {},
        h('p', {}, 'Requests with ', h('strong', {}, key.name), ' stop working at once, on every instance. This cannot be undone.'),
        h('div', { class: 'actions' }, h('button', { type: 'button', class: 'secondary', onclick: close }, 'Cancel'), ' ', confirm),
        failure.element,
      );
    });
  }

  const create = settingsForm(null, 'Create key', async (settings) => {
    const key = await manage<ApiKey>('POST', '/v1/api_keys', settings);
    create.reset();
    message.notice(`Created ${key.name}.`);
    previous.length = 0;
    await load(null);
  });

  main.append(
    h('h1', {}, 'API keys'),
    message.element,
    h(
      'section',
      { class: 'card' },
      h('div', { class: 'toolbar' }, summary, h('span', { class: 'grow' }), size, back, next),
      h(
        'table',
        { class: 'keys' },
        h('thead', {}, h('tr', {}, ...['Key', 'Token', 'Origins', 'User agent', 'Limits', 'Created', ''].map((title) => h('th', {}, title)))),
        table,
      ),
    ),
    h('section', { class: 'card' }, h('h2', {}, 'New key'), create),
  );
  void load(null);
}
