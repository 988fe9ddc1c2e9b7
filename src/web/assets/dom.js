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
  return timeZone ? `In your time zone (${timeZone}).` : 'In your time zone.';
}

/** How the page names an A/B variant by its place: Variant A, B, C, D (as the stats do). */
export function variantName(index) {
  return `Variant ${String.fromCharCode(65 + index)}`;
}
