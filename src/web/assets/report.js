// The report form of a short link (GET /{code}+report): sends the reason and details to
// POST /api/reports as JSON and says thank you, or shows the server's own message. The
// page's policy lets only this script of kurz's own run, and only call kurz itself. Its
// texts are in the page's language: the page carries the messages i18n.js reads.

import { t } from './i18n.js';

const form = document.getElementById('report');
const error = document.getElementById('report-error');
const done = document.getElementById('report-done');
const button = form.querySelector('button[type="submit"]');

function showError(message) {
  error.textContent = message;
  error.hidden = false;
}

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  error.hidden = true;
  button.disabled = true;
  const details = form.elements.details.value;
  const body = {
    short_url: form.dataset.shortUrl,
    reason: form.elements.reason.value,
    ...(details.trim() === '' ? {} : { details }),
  };
  try {
    const response = await fetch('/api/reports', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (response.status === 201) {
      form.hidden = true;
      done.hidden = false;
      done.focus();
      return;
    }
    let message = t('report.failed', { status: String(response.status) });
    try {
      const answer = await response.json();
      if (typeof answer?.error === 'string') message = answer.error;
    } catch {
      // Not JSON: the status says enough.
    }
    showError(message);
  } catch {
    showError(t('report.network'));
  } finally {
    button.disabled = false;
  }
});
