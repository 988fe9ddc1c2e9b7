// The login view (accounts mode): one form, two submit buttons, since registering and
// logging in take the same two fields and answer with the same {token, user}.

import { byId } from './dom.js';

/**
 * onLoggedIn(token, user) is called after a successful login or registration. With
 * registration closed by the operator, the form offers only login.
 */
export function createAuth({ api, registration, onLoggedIn }) {
  const view = byId('auth-view');
  const form = byId('auth-form');
  const email = byId('auth-email');
  const password = byId('auth-password');
  const error = byId('auth-error');
  const notice = byId('auth-notice');
  let busy = false;
  if (registration === 'closed') {
    form.querySelector('button[value="register"]').remove();
    byId('auth-password-hint').textContent = 'New accounts are made by the operator.';
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault(); // the CSP forbids form submission; we send JSON instead
    if (busy) return;
    const action = event.submitter?.value === 'register' ? 'register' : 'login';
    busy = true;
    form.setAttribute('aria-busy', 'true');
    error.textContent = '';
    try {
      const { body } = await api.post(
        `/api/auth/${action}`,
        { email: email.value, password: password.value },
        { auth: false }, // a 401 here is "Invalid credentials", not an ended session
      );
      password.value = '';
      notice.textContent = '';
      view.hidden = true;
      onLoggedIn(body.token, body.user);
    } catch (e) {
      error.textContent = e.message;
    } finally {
      busy = false;
      form.removeAttribute('aria-busy');
    }
  });

  return {
    /** Shows the login form with an optional notice (why the person is here). */
    show(message = '', { focus = false } = {}) {
      notice.textContent = message;
      error.textContent = '';
      view.hidden = false;
      if (focus) email.focus();
    },
  };
}
