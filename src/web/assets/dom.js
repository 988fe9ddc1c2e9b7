// Small DOM and formatting helpers shared by the views. Server-provided text only ever
// reaches the page through textContent or attributes set here, never as HTML.

import { formatDateTime, formatNumber, t } from './i18n.js';

/** The element with this id; a missing one is a bug in index.html, so fail loudly. */
export function byId(id) {
  const element = document.getElementById(id);
  if (element === null) throw new Error(`kurz: #${id} is missing from the page`);
  return element;
}

/** Sets text only when it differs, so polling does not disturb selection or screen readers. */
export function setText(element, text) {
  if (element.textContent !== text) element.textContent = text;
}

/** Only http(s) targets become links; anything else (it should never happen) stays text. */
export function isWebUrl(value) {
  return typeof value === 'string' && /^https?:\/\//.test(value);
}

/** A date and time as the page's language writes it, in the viewer's time zone. */
export function formatDate(iso) {
  return formatDateTime(iso);
}

/** A count as the page's language writes it. */
export function formatCount(n) {
  return formatNumber(n);
}

/** An ISO instant as a datetime-local value in the viewer's time zone. */
export function toLocalInput(iso) {
  const date = new Date(iso);
  const pad = (n) => String(n).padStart(2, '0');
  const day = `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
  const seconds = date.getSeconds() === 0 ? '' : `:${pad(date.getSeconds())}`;
  return `${day}T${pad(date.getHours())}:${pad(date.getMinutes())}${seconds}`;
}

/** What a datetime-local field is read in: the viewer's zone, named when the browser knows it. */
export function zoneHint() {
  const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  return timeZone ? t('ui.time.zoneNamed', { zone: timeZone }) : t('ui.time.zone');
}

/** How the page names an A/B variant by its place: Variant A, B, C, D (as the stats do). */
export function variantName(index) {
  return t('ui.variant.name', { letter: String.fromCharCode(65 + index) });
}
