// The shorten form and its result: the full short URL, a Copy button and the QR code
// (shown as SVG, downloadable as PNG). The list's QR buttons reuse the result panel.
// Behind a disclosure, the link's optional settings: expiry, click limit, password.

import { byId } from './dom.js';

export function createShortener({ api, shortUrlOf, onCreated }) {
  const form = byId('shorten-form');
  const url = byId('url');
  const customCode = byId('custom-code');
  const source = byId('source');
  const expires = byId('new-expires');
  const maxClicks = byId('new-max-clicks');
  const password = byId('new-password');
  const error = byId('shorten-error');
  const result = byId('result');
  const resultLink = byId('result-link');
  const resultTarget = byId('result-target');
  const status = byId('result-status');
  const qr = byId('qr');
  const download = byId('qr-download');
  const copyButton = byId('copy');
  let busy = false;
  let shown = 0; // bumps on every show, so a slow QR fetch cannot overwrite a newer one
  const objectUrls = [];

  form.addEventListener('submit', async (event) => {
    event.preventDefault(); // the CSP forbids form submission; we send JSON instead
    if (busy) return;
    error.textContent = '';
    // A number field holding what is no number reads as empty: say so, not "no limit".
    if (maxClicks.validity.badInput) {
      error.textContent = 'Max clicks must be a whole number, or empty.';
      return;
    }
    busy = true;
    form.setAttribute('aria-busy', 'true');
    // Optional fields left empty are left out, so the server generates a code.
    const body = { url: url.value.trim() };
    if (customCode.value.trim()) body.custom_code = customCode.value.trim();
    if (source.value.trim()) body.source = source.value.trim();
    // A datetime-local value has no zone: the browser reads it in the person's own.
    if (expires.value) body.expires_at = new Date(expires.value).toISOString();
    if (maxClicks.value.trim()) body.max_clicks = Number(maxClicks.value);
    if (password.value) body.password = password.value;
    try {
      const { body: link } = await api.post('/api/shorten', body);
      form.reset();
      show(link, 'Short link created');
      onCreated(link);
    } catch (e) {
      // A 401 already took the person to the login form; anything else is the
      // server's own message, shown next to the form and announced (role="alert").
      if (e.status !== 401) error.textContent = e.message;
    } finally {
      busy = false;
      form.removeAttribute('aria-busy');
    }
  });

  copyButton.addEventListener('click', async () => {
    const text = resultLink.textContent;
    try {
      // Missing outside secure contexts (plain http on a non-localhost address).
      if (!navigator.clipboard) throw new Error('no clipboard');
      await navigator.clipboard.writeText(text);
      status.textContent = `Copied ${text}`;
    } catch {
      // Select the link instead, so one keystroke copies it.
      getSelection()?.selectAllChildren(resultLink);
      status.textContent =
        'Copying is not available here. The link is selected: press Ctrl+C (⌘C on a Mac).';
    }
  });

  /** Shows a link in the result panel; `announcement` is read out with its URL. */
  function show(link, announcement) {
    const shortUrl = shortUrlOf(link.short_code);
    const turn = ++shown;
    resultLink.href = shortUrl;
    // On a narrow screen, break the line after the base URL's slash rather than mid-code.
    resultLink.replaceChildren(shortUrlOf(''), document.createElement('wbr'), link.short_code);
    resultTarget.textContent = link.original_url;
    resultTarget.title = link.original_url;
    status.textContent = `${announcement}: ${shortUrl}`;
    result.hidden = false;
    releaseImages();
    qr.alt = `QR code for ${shortUrl}`;
    download.download = `kurz-${link.short_code}.png`;
    loadQr(link.short_code, turn);
  }

  // The QR endpoints need the Authorization header in accounts mode, so an <img src>
  // cannot load them directly: fetch them and show blob: URLs (the CSP allows those).
  async function loadQr(code, turn) {
    const path = `/api/links/${encodeURIComponent(code)}/qr`;
    try {
      const [svg, png] = await Promise.all([
        api.get(`${path}.svg`, { as: 'blob' }),
        api.get(`${path}.png`, { as: 'blob' }),
      ]);
      if (turn !== shown) return;
      qr.src = remember(URL.createObjectURL(svg.body));
      download.href = remember(URL.createObjectURL(png.body));
    } catch (e) {
      if (turn === shown && e.status !== 401) {
        status.textContent = `The QR code could not be loaded: ${e.message}`;
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

  return {
    show,
    /** Forgets everything shown (on logout, so the next person sees none of it). */
    reset() {
      shown++;
      form.reset();
      error.textContent = '';
      status.textContent = '';
      result.hidden = true;
      releaseImages();
    },
  };
}
