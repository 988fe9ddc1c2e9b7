// The session token (accounts mode) and the e-mail shown beside it, kept in localStorage
// (no cookies): they survive reloads and are sent only where the page puts them, in the
// Authorization header. app.js reads them; signed-in.js writes them after a sign-in
// through the identity provider, as the login form does after a password login.
// If localStorage is disabled (it throws), the session lasts for this page only.

const TOKEN_KEY = 'kurz.token';
const EMAIL_KEY = 'kurz.email';
const memory = new Map();

export const session = {
  get token() {
    return storage('getItem', TOKEN_KEY);
  },
  get email() {
    return storage('getItem', EMAIL_KEY) ?? '';
  },
  /** False when the browser keeps nothing for this site (the session would end with the page). */
  save(token, email) {
    storage('setItem', TOKEN_KEY, token);
    storage('setItem', EMAIL_KEY, email);
    return !memory.has(TOKEN_KEY);
  },
  clear() {
    storage('removeItem', TOKEN_KEY);
    storage('removeItem', EMAIL_KEY);
  },
};

function storage(method, key, value) {
  try {
    return localStorage[method](key, value);
  } catch {
    if (method === 'getItem') return memory.get(key) ?? null;
    if (method === 'setItem') memory.set(key, value);
    else memory.delete(key);
  }
}
