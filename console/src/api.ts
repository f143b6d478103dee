/**
 * Calls to Meridian's API from the console. Key management carries the service token in
 * `Authorization: Token …`; the public areas carry an API key in `?key=`, as any client would.
 * Every failure becomes an ApiError with the message of the API's error body.
 *
 * The API's types come from api-types.ts, which `npm run build` generates from the server's
 * OpenAPI document (the route schemas) before it type-checks the console: a field renamed or
 * removed in a route's schema fails the console's build where the console reads it.
 */

import type { components, paths } from './api-types.js';
import { serviceToken, signOut } from './session.js';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The named schemas of the OpenAPI document. */
export type Schemas = components['schemas'];

/** The JSON body of the 200 response of an operation of the OpenAPI document. */
export type ResponseOf<Path extends keyof paths, Method extends 'get' | 'post' | 'delete' = 'get'> = paths[Path][Method] extends {
  responses: { 200: { content: { 'application/json': infer Body } } };
}
  ? Body
  : never;

export type ApiKey = Schemas['APIKey'];
export type ApiKeyPage = Schemas['APIKeyPage'];
export type ApiKeySettings = Schemas['APIKeySettings'];
export type ErrorBody = Schemas['ErrorBody'];

async function errorOf(response: Response): Promise<ApiError> {
  let message = `${response.status} ${response.statusText}`;
  try {
    const body = (await response.json()) as Partial<ErrorBody>;
    if (body.errors?.[0]?.message) message = body.errors[0].message;
  } catch {
    // Not the API's error body (a proxy's page, say): the status line says enough.
  }
  return new ApiError(response.status, message);
}

/** What the console says of a service token the server refused (the API's own words are for programs). */
export function refusedToken(status: number): string {
  return status === 401
    ? 'This service token was not accepted: it may be mistyped, or revoked. Paste a current one (`meridian accounts token ACCOUNT` makes a new one).'
    : `The server refused this service token (${status}): a proxy in front of Meridian may be blocking key management.`;
}

/**
 * A key-management call. A refused service token (401, or 403 from a proxy in front) ends the
 * session: the sign-in page shows why.
 */
export async function manage<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
  const token = serviceToken();
  if (!token) {
    signOut('Sign in with a service token first.');
    throw new ApiError(401, 'Not signed in');
  }
  const headers: Record<string, string> = { authorization: `Token ${token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'omit' });
  if (!response.ok) {
    const error = await errorOf(response);
    if (response.status === 401 || response.status === 403) signOut(refusedToken(response.status));
    throw error;
  }
  return (await response.json()) as T;
}

/**
 * The origin of the public API: this page's, unless the server says otherwise (the console served
 * on the admin listener, `admin.port`, calls the public listener: /console/settings.json).
 */
let apiOrigin = '';

export function apiBase(): string {
  return apiOrigin || location.origin;
}

/** Reads where the public API is; a server without the settings (an older one) means this origin. */
export async function loadApiSettings(): Promise<void> {
  try {
    const response = await fetch('/console/settings.json', { credentials: 'omit' });
    if (response.ok) apiOrigin = ((await response.json()) as { api: string | null }).api ?? '';
  } catch {
    // Same origin, as before the settings existed.
  }
}

/** The URL of a gated endpoint with its key (and other query parameters), on the public API. */
export function gatedUrl(path: string, key: string, query: Record<string, string | number | boolean> = {}): string {
  const params = new URLSearchParams({ ...Object.fromEntries(Object.entries(query).map(([k, v]) => [k, String(v)])), key });
  return `${apiOrigin}${path}?${params}`;
}

/** A GET of a gated JSON endpoint. A refused key is an error of the page, not of the session. */
export async function gated<T>(path: string, key: string, query: Record<string, string | number | boolean> = {}): Promise<T> {
  const response = await fetch(gatedUrl(path, key, query), { credentials: 'omit' });
  if (!response.ok) throw await errorOf(response);
  return (await response.json()) as T;
}

/** The error body of a failed gated request, for an image that did not load. */
export async function gatedError(url: string): Promise<string> {
  const response = await fetch(url, { credentials: 'omit' });
  return response.ok ? 'The image loaded on a second try' : (await errorOf(response)).message;
}
