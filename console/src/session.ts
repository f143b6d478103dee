/**
 * The service token of the signed-in account. It lives in this tab's sessionStorage only: not a
 * cookie (which other sites could make the browser send), not localStorage (which outlives the
 * tab and is shared by every tab of the origin). Closing the tab signs out.
 */

const storageKey = 'meridian.console.serviceToken';
let notice: string | null = null;

export function serviceToken(): string | null {
  return sessionStorage.getItem(storageKey);
}

export function signIn(token: string): void {
  sessionStorage.setItem(storageKey, token);
}

/** Forgets the token; `message` is shown on the sign-in page (why the session ended). */
export function signOut(message: string | null = null): void {
  sessionStorage.removeItem(storageKey);
  notice = message;
  location.hash = '#/signin';
}

/** The message left by the last sign-out, once. */
export function takeSignOutNotice(): string | null {
  const message = notice;
  notice = null;
  return message;
}
