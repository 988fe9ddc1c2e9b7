// The kurz HTTP API as the page uses it: JSON in and out, the bearer token on every call
// that needs it, and one error type carrying the server's own message, which the views
// show word for word.

const NETWORK_MESSAGE = 'Could not reach kurz. Check your connection and try again.';

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/**
 * token(): the current bearer token or null (always null in open mode).
 * onUnauthorized(): called when a call that carried the token gets 401.
 *
 * A call may bring a `bearer` of its own (open mode's admin token): it is sent instead of
 * the session's, and a 401 is then the caller's to handle, since the session is not at
 * stake.
 */
export function createApi({ token, onUnauthorized }) {
  async function send(method, path, { json, auth = true, bearer, as = 'json' } = {}) {
    const headers = {};
    if (json !== undefined) headers['content-type'] = 'application/json';
    const sessionCall = auth && bearer === undefined;
    const credential = sessionCall ? token() : bearer;
    if (credential) headers.authorization = `Bearer ${credential}`;
    let response;
    try {
      response = await fetch(path, {
        method,
        headers,
        body: json === undefined ? undefined : JSON.stringify(json),
      });
    } catch {
      throw new ApiError(0, NETWORK_MESSAGE);
    }
    if (!response.ok) {
      const error = new ApiError(response.status, await errorMessage(response));
      // A 401 on a protected call means the token is expired, signed with another
      // secret or its user is gone: whatever the cause, the session is over.
      if (response.status === 401 && sessionCall) onUnauthorized();
      throw error;
    }
    let body = null; // 204 No Content (a delete) has none
    if (response.status !== 204) {
      body = as === 'blob' ? await response.blob() : await response.json();
    }
    return { body, headers: response.headers };
  }

  return {
    get: (path, options) => send('GET', path, options),
    post: (path, json, options) => send('POST', path, { ...options, json }),
    patch: (path, json, options) => send('PATCH', path, { ...options, json }),
    delete: (path, options) => send('DELETE', path, options),
  };
}

/** The `error` of a `{"error": "..."}` body, or a plain description when there is none. */
async function errorMessage(response) {
  try {
    const body = await response.json();
    if (typeof body?.error === 'string') return body.error;
  } catch {
    // Not JSON (a proxy's error page, say): fall through to the status.
  }
  return `Request failed (HTTP ${response.status}).`;
}
