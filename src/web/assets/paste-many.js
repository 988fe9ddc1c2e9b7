// "Paste many": one URL a line, up to 1,000, shortened in one call (POST /api/links/bulk)
// on the chosen domain with the chosen tags, and each line's answer listed: its short
// URL with a Copy button, or the server's reason it was refused. The refused lines are
// left in the box, to be corrected and sent again.

import { byId } from './dom.js';
import { t } from './i18n.js';

export const MAX_LINES = 1000;

export function createPasteMany({ api, domains, onCreated }) {
  const lines = byId('bulk-urls');
  const count = byId('bulk-count');
  const result = byId('bulk-result');
  const summary = byId('bulk-summary');
  const list = byId('bulk-lines');
  const status = byId('bulk-status');
  const copyAll = byId('bulk-copy-all');
  let created = []; // the short URLs of the last answer, in order

  /** The URLs to send with their line numbers (1-based, blank lines skipped). */
  function entries() {
    return lines.value
      .split(/\r?\n/)
      .map((text, index) => ({ url: text.trim(), line: index + 1 }))
      .filter((entry) => entry.url !== '');
  }

  function showCount() {
    const n = entries().length;
    count.textContent =
      n === 0 ? '' : t(n > MAX_LINES ? 'ui.bulk.tooMany' : 'ui.bulk.count', { count: n });
  }
  lines.addEventListener('input', showCount);

  /**
   * Sends the lines; `domain` (a host or undefined) and `tags` go with each. Returns
   * `{ refused }`, a message for the form, when nothing was sent; else `{ failed }`, how
   * many lines the server refused.
   */
  async function send({ domain, tags }) {
    const wanted = entries();
    if (wanted.length === 0) return { refused: t('ui.bulk.none') };
    if (wanted.length > MAX_LINES) {
      return {
        refused: t('ui.bulk.atMost', { max: MAX_LINES, count: wanted.length }),
      };
    }
    const links = wanted.map(({ url }) => {
      const link = { url };
      if (domain !== undefined) link.domain = domain;
      if (tags.length > 0) link.tags = tags;
      return link;
    });
    const { body } = await api.post('/api/links/bulk', { links });
    const results = Array.isArray(body?.results) ? body.results : [];
    const failed = show(wanted, results, domain);
    if (failed < wanted.length) onCreated();
    return { failed };
  }

  function show(wanted, results, domain) {
    created = [];
    const failed = [];
    const items = wanted.map((entry, index) => {
      const answer = results[index] ?? { status: 0, body: { error: t('ui.bulk.noAnswer') } };
      const item = document.createElement('li');
      item.value = entry.line;
      const target = document.createElement('span');
      target.className = 'bulk-target';
      target.textContent = entry.url;
      target.title = entry.url;
      if (answer.status === 201 && answer.body) {
        const link = { ...answer.body, domain: answer.body.domain ?? domain };
        const shortUrl = answer.short_url ?? domains.shortUrlOf(link);
        created.push(shortUrl);
        item.className = 'bulk-line bulk-ok';
        item.append(shortLinkOf(shortUrl), copyButton(shortUrl), target);
      } else {
        failed.push(entry.url);
        item.className = 'bulk-line bulk-failed';
        const reason = document.createElement('span');
        reason.className = 'bulk-error';
        reason.textContent =
          answer.body?.error ?? t('ui.bulk.refused', { status: String(answer.status) });
        item.append(target, reason);
      }
      return item;
    });
    list.replaceChildren(...items);
    lines.value = failed.join('\n');
    showCount();
    copyAll.hidden = created.length === 0;
    status.textContent = '';
    result.hidden = false; // before the summary changes, so it is announced
    const counts = { created: created.length, failed: failed.length };
    summary.textContent =
      failed.length === 0
        ? t('ui.bulk.summary', counts)
        : t('ui.bulk.summaryFailed', { ...counts, count: failed.length });
    return failed.length;
  }

  function shortLinkOf(shortUrl) {
    const link = document.createElement('a');
    link.className = 'short-link';
    link.href = shortUrl;
    link.textContent = shortUrl.replace(/^https?:\/\//, '');
    return link;
  }

  function copyButton(shortUrl) {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'button small secondary';
    button.textContent = t('ui.result.copy');
    button.setAttribute('aria-label', t('ui.bulk.copyOne', { url: shortUrl }));
    button.addEventListener('click', () => copy(shortUrl, `Copied ${shortUrl}`));
    return button;
  }

  copyAll.addEventListener('click', () =>
    copy(created.join('\n'), t('ui.bulk.copied', { count: created.length })),
  );

  async function copy(text, done) {
    try {
      if (!navigator.clipboard) throw new Error('no clipboard');
      await navigator.clipboard.writeText(text);
      status.textContent = done;
    } catch {
      status.textContent = t('ui.bulk.copyUnavailable');
    }
  }

  return {
    send,
    /** Hides the answers (another link was shown, or the person logged out). */
    hide() {
      result.hidden = true;
    },
    reset() {
      lines.value = '';
      created = [];
      showCount();
      list.replaceChildren();
      summary.textContent = '';
      status.textContent = '';
      result.hidden = true;
    },
  };
}
