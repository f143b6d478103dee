/**
 * Usage of the account's keys over the last 30 days (`GET /v1/usage`): the account's totals and a
 * chart of requests per day by area, then per key its chart, total, last use, rate limit and
 * monthly quota, and the server's rate limit of keys without one of their own.
 */

import { manage, type Schemas } from '../api.js';
import { fill, h, messageLine } from '../dom.js';
import { areaLegend, daysBetween, usageChart } from '../usage-chart.js';
import { limitsText } from './keys.js';

type AccountUsage = Schemas['AccountUsage'];

const periodDays = 30;

const when = (iso: string | null) => (iso ? `${iso.slice(0, 16).replace('T', ' ')} UTC` : 'never');

function rateLimitText(limit: AccountUsage['rate_limit']): string {
  if (limit.requests_per_second === 0) return "Server's rate limit: none (keys are limited only by limits of their own).";
  return `Server's rate limit, of every key without one of its own: ${limit.requests_per_second} requests a second, bursts of up to ${limit.burst}.`;
}

/** A key's limits, and how much of its quota this month used. */
function keyLimits(key: AccountUsage['keys'][number]): HTMLElement {
  if (key.name === null) return h('span', { class: 'muted' }, 'deleted key');
  const used = key.quota ? `${key.month_requests.toLocaleString('en')} of ${key.quota.requests_per_month.toLocaleString('en')} used this month` : `${key.month_requests.toLocaleString('en')} this month`;
  return h('span', {}, limitsText(key), h('div', { class: 'muted quota-used' }, used));
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
      h('table', { class: 'usage-keys' }, h('thead', {}, h('tr', {}, ...['Key', 'Requests', 'Last used', 'Limits', `Requests a day, last ${periodDays} days`].map((t) => h('th', {}, t)))), rows),
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
                h('td', { class: 'limits' }, keyLimits(key)),
                h('td', { class: 'chart-cell' }, key.total ? usageChart(days, key.days, { height: 40, barWidth: 10, label: `Requests of ${key.name ?? 'a deleted key'} per day` }) : h('span', { class: 'muted' }, 'no requests')),
              ),
            )
          : [h('tr', {}, h('td', { colSpan: 5, class: 'empty' }, 'No keys yet.'))]),
      );
    })
    .catch((error: Error) => message.error(error.message));
}
