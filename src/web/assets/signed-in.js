// The page a sign-in through the identity provider ends on (auth/oidc-pages.ts): it keeps
// the token the server put in the page as a password login keeps it, then opens the web
// UI in place of this page, so that Back does not return to it.

import { t } from './i18n.js';
import { session } from './session.js';

const token = document.querySelector('meta[name="kurz-token"]')?.content ?? '';
const email = document.querySelector('meta[name="kurz-email"]')?.content ?? '';
const status = document.getElementById('signed-in-status');
/** The page's text of `key`, or English where the page carries no messages. */
const say = (key, english) => (t(key) === key ? english : t(key));

if (token === '') {
  status.textContent = say('ui.signedIn.none', 'Nothing to sign in with. Please sign in again.');
} else if (session.save(token, email)) {
  location.replace('/');
} else {
  status.textContent = say(
    'ui.signedIn.noStorage',
    'This browser keeps no data for this site, so your session cannot be kept. Allow site data, then sign in again.',
  );
}
