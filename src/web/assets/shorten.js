// The shorten form and its result: the full short URL, a Copy button and the QR code
// (shown as SVG, downloadable as PNG). The list's QR buttons reuse the result panel.
// Two modes share the form: one link (with a custom code, a source, the UTM builder of
// utm.js and, behind a disclosure, expiry, click limit and password) or many pasted
// ones (paste-many.js). Both take the domain picker (shown only when there is a choice)
// and the tags (tag-input.js).

import { byId } from './dom.js';
import { t } from './i18n.js';
import { createPasteMany } from './paste-many.js';
import { createTagInput } from './tag-input.js';
import { createUtmBuilder } from './utm.js';

export function createShortener({ api, domains, onCreated }) {
  const form = byId('shorten-form');
  const url = byId('url');
  const customCode = byId('custom-code');
  const source = byId('source');
  const expires = byId('new-expires');
  const maxClicks = byId('new-max-clicks');
  const password = byId('new-password');
  const domainField = byId('domain-field');
  const domainSelect = byId('domain');
  const submit = byId('shorten-submit');
  const error = byId('shorten-error');
  const result = byId('result');
  const resultLink = byId('result-link');
  const resultTarget = byId('result-target');
  const status = byId('result-status');
  // Says that a link shared from elsewhere waits in the form (app.js's shortenShared).
  const sharedStatus = byId('shared-status');
  const qr = byId('qr');
  const download = byId('qr-download');
  const copyButton = byId('copy');
  const tags = createTagInput({
    input: byId('tags'),
    chips: byId('tags-chips'),
    error: byId('tags-error'),
    status: byId('tags-status'),
  });
  const utm = createUtmBuilder({ url });
  const many = createPasteMany({ api, domains, onCreated });
  let busy = false;
  let shown = 0; // bumps on every show, so a slow QR fetch cannot overwrite a newer one
  const objectUrls = [];

  const mode = () => form.querySelector('input[name="shorten-mode"]:checked')?.value ?? 'one';

  /** Shows the fields of the chosen mode; the domain and tags belong to both. */
  function showMode() {
    const chosen = mode();
    for (const part of form.querySelectorAll('[data-mode]')) {
      part.hidden = part.dataset.mode !== chosen;
    }
    submit.textContent = t(chosen === 'many' ? 'ui.shorten.submitAll' : 'ui.shorten.submit');
    domainField.hidden = !domains.several;
    // The pair of domain and custom code: nothing in it to show, no empty row.
    byId('code-pair').hidden = domainField.hidden && chosen === 'many';
  }
  form.addEventListener('change', (event) => {
    if (event.target.name !== 'shorten-mode') return;
    error.textContent = ''; // it was about the other mode's fields
    showMode();
  });
  domains.onChange(() => {
    domains.fill(domainSelect);
    showMode();
  });

  /** The chosen domain's host, or undefined for the default one (the server's when absent). */
  function chosenDomain() {
    const host = domainSelect.value;
    return domains.several && host && !domains.isDefault(host) ? host : undefined;
  }

  form.addEventListener('submit', (event) => {
    sharedStatus.textContent = '';
    event.preventDefault(); // the CSP forbids form submission; we send JSON instead
    send();
  });

  /** Sends the form; resolves to the link made (one-link mode), else to nothing. */
  async function send() {
    if (busy) return {};
    error.textContent = '';
    // A number field holding what is no number reads as empty: say so, not "no limit".
    if (mode() === 'one' && maxClicks.validity.badInput) {
      error.textContent = t('ui.shorten.maxClicksInvalid');
      return {};
    }
    const chosenTags = tags.take(); // a tag still being typed counts; a bad one is said there
    if (chosenTags === null) return {};
    busy = true;
    form.setAttribute('aria-busy', 'true');
    try {
      if (mode() === 'many') await sendMany(chosenTags);
      else return { link: await sendOne(chosenTags) };
    } catch (e) {
      // A 401 already took the person to the login form; anything else is the
      // server's own message, shown next to the form and announced (role="alert").
      if (e.status !== 401) error.textContent = e.message;
      return { unauthorized: e.status === 401 };
    } finally {
      busy = false;
      form.removeAttribute('aria-busy');
    }
    return {};
  }

  async function sendOne(chosenTags) {
    // Optional fields left empty are left out, so the server generates a code.
    const body = { url: utm.target() };
    if (customCode.value.trim()) body.custom_code = customCode.value.trim();
    if (source.value.trim()) body.source = source.value.trim();
    // A datetime-local value has no zone: the browser reads it in the person's own.
    if (expires.value) body.expires_at = new Date(expires.value).toISOString();
    if (maxClicks.value.trim()) body.max_clicks = Number(maxClicks.value);
    if (password.value) body.password = password.value;
    const domain = chosenDomain();
    if (domain !== undefined) body.domain = domain;
    if (chosenTags.length > 0) body.tags = chosenTags;
    const { body: link } = await api.post('/api/shorten', body);
    clearFields();
    many.hide();
    // The link object has no domain: it is the one chosen.
    show({ ...link, domain: domain ?? domains.all()[0]?.domain }, t('ui.result.created'));
    onCreated(link);
    return link;
  }

  async function sendMany(chosenTags) {
    const { refused, failed } = await many.send({ domain: chosenDomain(), tags: chosenTags });
    if (refused !== undefined) {
      error.textContent = refused;
      return;
    }
    result.hidden = true;
    // The refused lines stay in the box to be sent again: with the same tags, then.
    if (failed === 0) tags.reset();
  }

  /** Empties what was typed for the last link, keeping the mode and the domain chosen. */
  function clearFields() {
    const chosenMode = mode();
    const host = domainSelect.value;
    form.reset();
    form.querySelector(`input[name="shorten-mode"][value="${chosenMode}"]`).checked = true;
    domainSelect.value = host;
    tags.reset();
    utm.update();
  }

  /** Copies the short link shown; false when the browser does not let the page. */
  async function copyLink() {
    const text = resultLink.textContent;
    try {
      // Missing outside secure contexts (plain http on a non-localhost address).
      if (!navigator.clipboard) return false;
      await navigator.clipboard.writeText(text);
      status.textContent = t('ui.result.copied', { url: text });
      return true;
    } catch {
      return false; // no permission, or the window is not focused
    }
  }

  copyButton.addEventListener('click', async () => {
    if (!(await copyLink())) {
      // Select the link instead, so one keystroke copies it.
      getSelection()?.selectAllChildren(resultLink);
      status.textContent = t('ui.result.copySelected');
    }
  });

  /** Shows a link in the result panel; `announcement` is read out with its URL. */
  function show(link, announcement) {
    const shortUrl = domains.shortUrlOf(link);
    const turn = ++shown;
    resultLink.href = shortUrl;
    // On a narrow screen, break the line after the base URL's slash rather than mid-code.
    const base = shortUrl.slice(0, shortUrl.length - link.short_code.length);
    resultLink.replaceChildren(base, document.createElement('wbr'), link.short_code);
    resultTarget.textContent = link.original_url;
    resultTarget.title = link.original_url;
    status.textContent = t('ui.result.announce', { what: announcement, url: shortUrl });
    result.hidden = false;
    releaseImages();
    qr.alt = t('ui.row.qrFor', { url: shortUrl });
    download.download = `kurz-${domains.isDefault(link.domain) ? '' : `${link.domain}-`}${link.short_code}.png`;
    loadQr(link, turn);
  }

  // The QR endpoints need the Authorization header in accounts mode, so an <img src>
  // cannot load them directly: fetch them and show blob: URLs (the CSP allows those).
  async function loadQr(link, turn) {
    try {
      const [svg, png] = await Promise.all([
        api.get(domains.pathOf(link, '/qr.svg'), { as: 'blob' }),
        api.get(domains.pathOf(link, '/qr.png'), { as: 'blob' }),
      ]);
      if (turn !== shown) return;
      qr.src = remember(URL.createObjectURL(svg.body));
      download.href = remember(URL.createObjectURL(png.body));
    } catch (e) {
      if (turn === shown && e.status !== 401) {
        status.textContent = t('ui.result.qrFailed', { message: e.message });
      }
    }
  }

  function remember(objectUrl) {
    objectUrls.push(objectUrl);
    return objectUrl;
  }

  // Blob URLs hold their blob until revoked; drop the old QR codes when showing a new one.
  function releaseImages() {
    qr.removeAttribute('src'); // CSS hides the image until its new code arrives
    download.removeAttribute('href'); // not focusable or clickable until the PNG is ready
    for (const objectUrl of objectUrls.splice(0)) URL.revokeObjectURL(objectUrl);
  }

  showMode();

  return {
    show(link, announcement) {
      many.hide();
      show(link, announcement);
    },
    /**
     * Shortens a link shared from elsewhere (share target, bookmarklet) with the form's
     * defaults, then copies it where the browser allows (else the Copy button has focus).
     */
    async shortenShared(target) {
      this.offerShared(target);
      const outcome = await send();
      if (outcome.link !== undefined && !(await copyLink())) copyButton.focus();
      return outcome;
    },
    /**
     * Puts a shared link in the form and leaves making it to the person: the Shorten button
     * has the focus and the status says what came (a press, which also lets the page copy).
     */
    offerShared(target, { waits = false } = {}) {
      form.querySelector('input[name="shorten-mode"][value="one"]').checked = true;
      showMode();
      url.value = target;
      utm.update();
      if (!waits) return;
      sharedStatus.textContent = t('ui.shorten.sharedWaits', { url: target });
      submit.focus();
    },
    /** Forgets everything shown (on logout, so the next person sees none of it). */
    reset() {
      shown++;
      form.reset();
      tags.reset();
      utm.update();
      many.reset();
      showMode();
      error.textContent = '';
      status.textContent = '';
      sharedStatus.textContent = '';
      result.hidden = true;
      releaseImages();
    },
  };
}
