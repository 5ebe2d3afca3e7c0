// The public HTTP API (/api/v1, described in /openapi.yaml) and the session token.
// Nothing here knows about pages: a third-party client could start from this file.

const KEY = 'turnpost.token';

/** The bearer token: kept for the tab (sessionStorage) or, when asked, across visits. */
export function token() {
  return sessionStorage.getItem(KEY) || localStorage.getItem(KEY);
}

export function setToken(value, remember) {
  clearToken();
  (remember ? localStorage : sessionStorage).setItem(KEY, value);
}

export function clearToken() {
  sessionStorage.removeItem(KEY);
  localStorage.removeItem(KEY);
}

/** An RFC 9457 problem document the server answered with (or a network failure). */
export class ApiError extends Error {
  constructor(status, problem) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.status = status;
    this.code = problem.code || 'network';
    this.problem = problem;
  }
}

/** Called when the server says the token is no good (401): the app signs out. */
let onUnauthorized = () => {};
export function setUnauthorizedHandler(fn) {
  onUnauthorized = fn;
}

/**
 * One request. `body` is sent as JSON; `etag` as If-None-Match. Resolves to
 * `{status, data, etag}` (data is null for 204/304, text for non-JSON answers);
 * rejects with an ApiError for 4xx/5xx.
 */
export async function request(method, path, { body, etag, auth = true } = {}) {
  const headers = { accept: 'application/json' };
  const t = token();
  if (auth && t) headers.authorization = `Bearer ${t}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (etag) headers['if-none-match'] = etag;
  let resp;
  try {
    resp = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
    });
  } catch (e) {
    throw new ApiError(0, { detail: 'The server cannot be reached. Check the connection and try again.' });
  }
  const type = resp.headers.get('content-type') || '';
  let data = null;
  if (resp.status !== 204 && resp.status !== 304) {
    data = type.includes('json') ? await resp.json().catch(() => null) : await resp.text();
  }
  if (!resp.ok && resp.status !== 304) {
    const problem = data && typeof data === 'object' ? data : { detail: String(data || resp.statusText) };
    const err = new ApiError(resp.status, problem);
    if (resp.status === 401 && auth && t) onUnauthorized(err);
    throw err;
  }
  return { status: resp.status, data, etag: resp.headers.get('etag') };
}

export const get = (path, opts) => request('GET', path, opts).then((r) => r.data);
export const post = (path, body, opts) => request('POST', path, { ...opts, body }).then((r) => r.data);
export const patch = (path, body) => request('PATCH', path, { body }).then((r) => r.data);

/** Signs in and keeps the token. */
export async function signIn(email, password, remember) {
  const t = await post('/api/v1/auth/token', { email, password }, { auth: false });
  setToken(t.access_token, remember);
  return t;
}

/** Game types are fixed while the server runs: fetched once. */
let typesPromise = null;
export function gameTypes() {
  if (!typesPromise) {
    typesPromise = get('/api/v1/game-types').catch((e) => {
      typesPromise = null;
      throw e;
    });
  }
  return typesPromise;
}
