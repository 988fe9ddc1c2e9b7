// Small DOM and formatting helpers shared by the views. Server-provided text only ever
// reaches the page through textContent or attributes set here, never as HTML.

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

// One formatter each, in the viewer's locale and time zone.
const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const countFormat = new Intl.NumberFormat();

export function formatDate(iso) {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dateFormat.format(date);
}

export function formatCount(n) {
  return countFormat.format(n);
}
