// The page a sign-in through the identity provider ends on (auth/oidc-pages.ts): it keeps
// the token the server put in the page as a password login keeps it, then opens the web
// UI in place of this page, so that Back does not return to it. Its texts come with the
// page, in the page's language.

import { t } from './i18n.js';
import { session } from './session.js';

const token = document.querySelector('meta[name="kurz-token"]')?.content ?? '';
const email = document.querySelector('meta[name="kurz-email"]')?.content ?? '';
const status = document.getElementById('signed-in-status');

if (token === '') {
  status.textContent = t('oidc.signedIn.noToken');
} else if (session.save(token, email)) {
  location.replace('/');
} else {
  status.textContent = t('oidc.signedIn.noStorage');
}
