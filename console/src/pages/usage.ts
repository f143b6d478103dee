/**
 * Usage of the account's keys over the last 30 days (`GET /v1/usage`): the account's totals and a
 * chart of requests per day by area, then per key its chart, total and last use, and the rate
 * limit every key has.
 */

import { manage, type Schemas } from '../api.js';
import { fill, h, messageLine } from '../dom.js';
import { areaLegend, daysBetween, usageChart } from '../usage-chart.js';

type AccountUsage = Schemas['AccountUsage'];

const periodDays = 30;

const when = (iso: string | null) => (iso ? `${iso.slice(0, 16).replace('T', ' ')} UTC` : 'never');

function rateLimitText(limit: AccountUsage['rate_limit']): string {
  if (limit.requests_per_second === 0) return 'Rate limit: none (the server does not limit keys).';
  return `Rate limit of every key: ${limit.requests_per_second} requests a second, bursts of up to ${limit.burst} (the server's setting; keys have no limits of their own).`;
}

export function renderUsage(main: HTMLElement): void {
  const message = messageLine();
  const summary = h('div', { class: 'usage-summary' });
  const rows = h('tbody');
  main.append(
    h('h1', {}, 'Usage'),
    message.element,
    h('section', { class: 'card' }, h('h2', {}, `Account, last ${periodDays} days`), summary),
    h(
      'section',
      { class: 'card' },
      h('h2', {}, 'Keys'),
      h('table', { class: 'usage-keys' }, h('thead', {}, h('tr', {}, ...['Key', 'Requests', 'Last used', `Requests a day, last ${periodDays} days`].map((t) => h('th', {}, t)))), rows),
    ),
  );

  void manage<AccountUsage>('GET', `/v1/usage?days=${periodDays}`)
    .then((usage) => {
      const days = daysBetween(usage.since, usage.until);
      fill(
        summary,
        h('p', { class: 'usage-total' }, h('strong', { 'data-total': usage.total }, usage.total.toLocaleString('en')), ` requests from ${usage.since} to ${usage.until} (UTC days), all keys together.`),
        areaLegend(usage.by_area),
        usageChart(days, usage.days, { height: 120, barWidth: 28, label: 'Requests of the account per day' }),
        h('p', { class: 'muted rate-limit' }, rateLimitText(usage.rate_limit)),
      );
      fill(
        rows,
        ...(usage.keys.length
          ? usage.keys.map((key) =>
              h(
                'tr',
                { 'data-key-id': key.id },
                h('td', {}, key.name === null ? h('span', { class: 'muted' }, 'deleted key') : h('strong', {}, key.name)),
                h('td', { class: 'number', 'data-total': key.total }, key.total.toLocaleString('en')),
                h('td', { class: 'nowrap last-used' }, when(key.last_used)),
                h('td', { class: 'chart-cell' }, key.total ? usageChart(days, key.days, { height: 40, barWidth: 10, label: `Requests of ${key.name ?? 'a deleted key'} per day` }) : h('span', { class: 'muted' }, 'no requests')),
              ),
            )
          : [h('tr', {}, h('td', { colSpan: 4, class: 'empty' }, 'No keys yet.'))]),
      );
    })
    .catch((error: Error) => message.error(error.message));
}
