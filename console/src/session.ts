/**
 * The service token of the signed-in account. It lives in this tab's sessionStorage only: not a
 * cookie (which other sites could make the browser send), not localStorage (which outlives the
 * tab and is shared by every tab of the origin). Closing the tab signs out.
 */

const storageKey = 'meridian.console.serviceToken';
/**
 * Why the last session ended, kept beside the token until the next sign-in: the sign-in page is
 * drawn again by a reload, and a request of a page being left can end the session just before a
 * new page load; a message held in the page's memory would be lost with it.
 */
const noticeKey = 'meridian.console.signOutNotice';

export function serviceToken(): string | null {
  return sessionStorage.getItem(storageKey);
}

export function signIn(token: string): void {
  sessionStorage.setItem(storageKey, token);
  sessionStorage.removeItem(noticeKey);
}

/** Forgets the token; `message` is shown on the sign-in page (why the session ended). */
export function signOut(message: string | null = null): void {
  sessionStorage.removeItem(storageKey);
  if (message === null) sessionStorage.removeItem(noticeKey);
  else sessionStorage.setItem(noticeKey, message);
  location.hash = '#/signin';
}

/** The message left by the last sign-out, until the next sign-in. */
export function signOutNotice(): string | null {
  return sessionStorage.getItem(noticeKey);
}
