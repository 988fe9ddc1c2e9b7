// The UTM builder of the shorten form: five fields (utm_source, utm_medium, utm_campaign,
// utm_term, utm_content) added to the target's query. The composed target is shown under
// the URL field as it is typed, and it is what the form sends, so the person sees the
// exact address the short link will lead to before it is made.

import { byId } from './dom.js';
import { t } from './i18n.js';

export const UTM_FIELDS = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content'];

/** An example of each, shown in its empty field. */
const EXAMPLES = { utm_source: 'newsletter', utm_medium: 'email', utm_campaign: 'spring-sale' };

/**
 * `url` with the UTM parameters of `values` (name → text) that are not empty: each
 * replaces a parameter of the same name already there (whatever its case) and is added
 * at the end of the query, URL-encoded; the rest of the query and the fragment are kept
 * as they were written. Null when `url` is no http(s) URL (there is nothing to add to).
 */
export function withUtm(url, values) {
  const given = UTM_FIELDS.filter((name) => (values[name] ?? '').trim() !== '');
  if (given.length === 0) return url;
  if (!/^https?:\/\/[^\s/?#]/i.test(url)) return null;
  const hashAt = url.indexOf('#');
  const fragment = hashAt === -1 ? '' : url.slice(hashAt);
  const beforeHash = hashAt === -1 ? url : url.slice(0, hashAt);
  const queryAt = beforeHash.indexOf('?');
  const base = queryAt === -1 ? beforeHash : beforeHash.slice(0, queryAt);
  const query = queryAt === -1 ? '' : beforeHash.slice(queryAt + 1);
  const kept = query.split('&').filter((part) => part !== '' && !given.includes(nameOf(part)));
  const added = given.map((name) => `${name}=${encodeURIComponent(values[name].trim())}`);
  return `${base}?${[...kept, ...added].join('&')}${fragment}`;
}

/** A query parameter's name, decoded and lower-cased, to compare with the UTM names. */
function nameOf(part) {
  const raw = part.split('=', 1)[0] ?? '';
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' ')).toLowerCase();
  } catch {
    return raw.toLowerCase(); // a stray % is compared as written
  }
}

/** The input of a labelled field for the parameter `name`, described by the target's preview. */
function createField(name) {
  const field = document.createElement('div');
  field.className = 'field';
  const label = document.createElement('label');
  const input = document.createElement('input');
  input.id = name.replace('_', '-');
  label.htmlFor = input.id;
  label.textContent = name;
  input.autocomplete = 'off';
  input.spellcheck = false;
  input.placeholder = EXAMPLES[name] ?? '';
  input.setAttribute('aria-describedby', 'utm-preview');
  field.append(label, input);
  return input;
}

/** Makes the fields and wires them and the preview; `target()` is the URL to send. */
export function createUtmBuilder({ url }) {
  const fields = UTM_FIELDS.map((name) => [name, createField(name)]);
  byId('utm-fields').replaceChildren(...fields.map(([, input]) => input.parentElement));
  const preview = byId('utm-preview');
  const composed = byId('utm-url');
  const summary = byId('utm-summary');

  const values = () => Object.fromEntries(fields.map(([name, input]) => [name, input.value]));
  const count = () => fields.filter(([, input]) => input.value.trim() !== '').length;

  function update() {
    const added = count();
    summary.textContent =
      added === 0 ? t('ui.shorten.utmSummary') : t('ui.shorten.utmAdded', { count: added });
    preview.hidden = added === 0;
    if (added === 0) {
      composed.textContent = ''; // the fields' description (aria-describedby) says nothing then
      return;
    }
    const typed = url.value.trim();
    const target = withUtm(typed, values());
    composed.textContent =
      target ??
      (typed === '' ? 'Enter the URL above.' : 'Not a web address (http:// or https://).');
    composed.classList.toggle('hint', target === null);
  }

  url.addEventListener('input', update);
  for (const [, input] of fields) input.addEventListener('input', update);

  return {
    /** The URL the form sends: the composed one when it could be composed, else as typed. */
    target() {
      const typed = url.value.trim();
      return withUtm(typed, values()) ?? typed;
    },
    /** After the form was reset: the preview goes with the values. */
    update,
  };
}
