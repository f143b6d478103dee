/** Sign-in: a service token, checked against the key-management API before it is kept. */

import { ApiError, refusedToken, type ErrorBody } from '../api.js';
import { field, h, messageLine } from '../dom.js';
import { signIn, signOutNotice } from '../session.js';

export function renderSignIn(main: HTMLElement): void {
  const message = messageLine();
  const notice = signOutNotice();
  if (notice) message.error(notice);
  const input = h('input', { type: 'password', name: 'token', autocomplete: 'off', required: true, placeholder: 'mst_…', spellcheck: false });
  const submit = h('button', { type: 'submit' }, 'Sign in');
  const form = h(
    'form',
    { class: 'card signin' },
    h('h1', {}, 'Meridian console'),
    h('p', {}, 'Sign in with a service token of your account (', h('code', {}, 'meridian accounts create NAME'), ' prints one). It is kept in this tab only.'),
    field('Service token', input),
    submit,
    message.element,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const token = input.value.trim();
    submit.disabled = true;
    message.clear();
    try {
      // A cheap authenticated call: the token is only kept if the API accepts it.
      const response = await fetch('/v1/api_keys?limit=10', { headers: { authorization: `Token ${token}` }, credentials: 'omit' });
      if (response.status === 401 || response.status === 403) throw new ApiError(response.status, refusedToken(response.status));
      if (!response.ok) {
        const body = (await response.json().catch(() => null)) as Partial<ErrorBody> | null;
        throw new ApiError(response.status, body?.errors?.[0]?.message ?? `${response.status} ${response.statusText}`);
      }
      signIn(token);
      // Back to the page that asked for a sign-in, if any.
      const next = /[?&]next=([a-z]+)/.exec(location.hash)?.[1] ?? 'keys';
      location.hash = `#/${next}`;
    } catch (error) {
      message.error((error as Error).message);
      submit.disabled = false;
    }
  });
  main.append(form);
  input.focus();
}
