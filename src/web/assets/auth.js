// The login view (accounts mode): one form, two submit buttons, since registering and
// logging in take the same two fields and answer with the same {token, user}; above it,
// the identity provider's button when the operator configured one (GET /api/auth/methods
// says so, and whether the password form is offered at all).

import { byId } from './dom.js';
import { t } from './i18n.js';

/** The server's answer to a registration when the operator has closed it */
const REGISTRATION_CLOSED = 'Registration is closed';

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
  const login = form.querySelector('button[value="login"]');
  let busy = false;
  if (registration === 'closed') closeRegistration();
  // Shown once the server said how people sign in here; without an answer, the form.
  const methods = api
    .get('/api/auth/methods', { auth: false })
    .then(({ body }) => offer(body))
    .catch(() => {});

  /** The provider's button, and the password form only when password sign-in is on. */
  function offer({ password, registration: now, oidc }) {
    if (now === 'closed') closeRegistration();
    if (oidc) {
      const block = document.createElement('div');
      block.className = 'auth-oidc';
      const button = document.createElement('a');
      button.className = 'button';
      button.id = 'auth-oidc-button';
      button.href = oidc.login_url;
      button.textContent = oidc.name;
      block.append(button);
      if (password) {
        const or = document.createElement('p');
        or.className = 'auth-or';
        or.textContent = t('ui.auth.or');
        block.append(or);
      }
      form.before(block);
    }
    if (!password) {
      form.hidden = true;
      byId('auth-lead').textContent = oidc ? t('ui.auth.oidcOnly') : t('ui.auth.off');
    }
  }

  /** Offers only login: the operator makes the accounts (kurz user add). */
  function closeRegistration() {
    form.querySelector('button[value="register"]')?.remove();
    byId('auth-lead').textContent = t('ui.auth.closed');
    // The password hint's rule is for new accounts (hidden text would still be read out
    // as a description, so the reference goes too).
    byId('auth-password-hint').hidden = true;
    password.removeAttribute('aria-describedby');
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
      // Closed by the operator after this page was loaded: the button that cannot work
      // goes, and focus (it was on that button) moves to the one that can.
      if (action === 'register' && e.status === 403 && e.message === REGISTRATION_CLOSED) {
        closeRegistration();
        login.focus();
      }
    } finally {
      busy = false;
      form.removeAttribute('aria-busy');
    }
  });

  return {
    /** Shows the login form with an optional notice (why the person is here). */
    async show(message = '', { focus = false } = {}) {
      notice.textContent = message;
      error.textContent = '';
      await methods;
      view.hidden = false;
      if (focus) (form.hidden ? byId('auth-oidc-button') : email)?.focus();
    },
  };
}
