/**
 * Calls to Meridian's API from the console. Key management carries the service token in
 * `Authorization: Token …`; the public areas carry an API key in `?key=`, as any client would.
 * Every failure becomes an ApiError with the message of the API's error body.
 */

import { serviceToken, signOut } from './session.js';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface ApiKey {
  id: string;
  name: string;
  token: string;
  description: string | null;
  user_agent: string | null;
  origins: string[];
  created: string;
  changed: string;
}

export interface ApiKeyPage {
  cursor: string | null;
  total_count: number;
  items: ApiKey[];
}

export interface ApiKeySettings {
  name?: string;
  description?: string | null;
  user_agent?: string | null;
  origins?: string[];
}

async function errorOf(response: Response): Promise<ApiError> {
  let message = `${response.status} ${response.statusText}`;
  try {
    const body = (await response.json()) as { errors?: { message?: string }[] };
    if (body.errors?.[0]?.message) message = body.errors[0].message;
  } catch {
    // Not the API's error body (a proxy's page, say): the status line says enough.
  }
  return new ApiError(response.status, message);
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
    if (response.status === 401 || response.status === 403) signOut(error.message);
    throw error;
  }
  return (await response.json()) as T;
}

/** The URL of a gated endpoint with its key (and other query parameters). */
export function gatedUrl(path: string, key: string, query: Record<string, string | number | boolean> = {}): string {
  const params = new URLSearchParams({ ...Object.fromEntries(Object.entries(query).map(([k, v]) => [k, String(v)])), key });
  return `${path}?${params}`;
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
