// What the Stats dialog draws from a GET /api/links/{code}/stats answer: the bar chart of
// clicks per day (SVG built with DOM calls, humans and bots stacked), its text
// alternatives (a summary as the chart's title and description, and a table of every
// day), and the top lists as tables (with, for links that route visitors, which rule,
// variant or default target each click went to). Colours come from CSS classes, so both themes work
// and the CSP (no inline styles) is kept. Text only ever goes in through textContent.

import { formatCount, variantName } from './dom.js';
import { language, t } from './i18n.js';

const SVG = 'http://www.w3.org/2000/svg';
const HEIGHT = 220;
const PAD = { top: 12, right: 8, bottom: 26, left: 8 };

// The API's days are UTC days, so they are shown as such, whatever the viewer's zone.
const dayFormat = new Intl.DateTimeFormat(language, {
  timeZone: 'UTC',
  month: 'short',
  day: 'numeric',
});
const fullDayFormat = new Intl.DateTimeFormat(language, { timeZone: 'UTC', dateStyle: 'medium' });
const percentFormat = new Intl.NumberFormat(language, {
  style: 'percent',
  maximumFractionDigits: 1,
});
let regionNames;
try {
  regionNames = new Intl.DisplayNames(language, { type: 'region' });
} catch {
  regionNames = undefined; // an old browser: the codes alone
}

const utc = (date) => new Date(`${date}T00:00:00Z`);
export const shortDay = (date) => dayFormat.format(utc(date));
export const longDay = (date) => fullDayFormat.format(utc(date));
const clicksWord = (n) => t('ui.chart.clicks', { count: n });

/** One sentence or three on the range: what a screen reader hears for the chart. */
export function chartSummary(stats) {
  const { range, days } = stats;
  const span = t('ui.chart.span', {
    from: longDay(stats.from),
    to: longDay(stats.to),
    count: days.length,
  });
  if (range.clicks === 0) return t('ui.chart.none', { span });
  let busiest = days[0];
  for (const day of days) if (day.clicks > busiest.clicks) busiest = day;
  return t('ui.chart.summary', {
    clicks: clicksWord(range.clicks),
    span,
    humans: range.humans,
    bots: range.bots,
    day: longDay(busiest.date),
    dayClicks: clicksWord(busiest.clicks),
  });
}

/** The chart for `stats`, as wide as `width` CSS pixels (text stays at its real size). */
export function buildChart(stats, width) {
  const { days } = stats;
  const most = days.reduce((max, day) => Math.max(max, day.clicks), 0);
  const { top, step } = scale(most);
  const labelWidth = formatCount(top).length * 7.5 + 8;
  const left = PAD.left + labelWidth;
  const plotWidth = Math.max(40, width - left - PAD.right);
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  const bottom = PAD.top + plotHeight;
  const y = (value) => bottom - (value / top) * plotHeight;

  const svg = svgElement('svg', {
    class: 'chart-svg',
    width,
    height: HEIGHT,
    viewBox: `0 0 ${width} ${HEIGHT}`,
    role: 'img',
    'aria-labelledby': 'stats-chart-title stats-chart-desc',
  });
  svg.append(
    svgText('title', t('ui.chart.title', { from: shortDay(stats.from), to: shortDay(stats.to) }), {
      id: 'stats-chart-title',
    }),
    svgText('desc', chartSummary(stats), { id: 'stats-chart-desc' }),
  );

  // The scale: a line and a label per step, 0 at the bottom.
  for (let value = 0; value <= top; value += step) {
    const at = y(value);
    svg.append(
      svgElement('line', {
        class: value === 0 ? 'chart-axis' : 'chart-grid',
        x1: left,
        x2: left + plotWidth,
        y1: at,
        y2: at,
      }),
      svgText('text', formatCount(value), {
        class: 'chart-label',
        x: left - 6,
        y: at,
        'text-anchor': 'end',
        'dominant-baseline': 'middle',
      }),
    );
  }

  // A bar per day: humans from the baseline, bots stacked above. Each day's column
  // carries its numbers as a tooltip (the <title>), over its whole height.
  const band = plotWidth / days.length;
  const barWidth = Math.max(1, Math.min(band * 0.72, 28));
  days.forEach((day, i) => {
    const x = left + i * band;
    const group = svgElement('g', { class: 'day', 'data-date': day.date });
    group.append(
      svgText(
        'title',
        `${longDay(day.date)}: ${clicksWord(day.clicks)} (${formatCount(day.humans)} humans, ${formatCount(day.bots)} bots)`,
      ),
      svgElement('rect', { class: 'day-hit', x, y: PAD.top, width: band, height: plotHeight }),
    );
    let base = bottom;
    for (const [count, kind] of [
      [day.humans, 'bar-human'],
      [day.bots, 'bar-bot'],
    ]) {
      if (count <= 0) continue;
      // At least one pixel, so that a single click beside thousands still shows.
      const height = Math.max(1, (count / top) * plotHeight);
      base -= height;
      group.append(
        svgElement('rect', {
          class: `bar ${kind}`,
          x: x + (band - barWidth) / 2,
          y: base,
          width: barWidth,
          height,
        }),
      );
    }
    svg.append(group);
  });

  // Dates under the first, middle and last day (fewer when there are fewer days).
  const marks = [...new Set([0, Math.floor((days.length - 1) / 2), days.length - 1])];
  for (const i of marks) {
    const day = days[i];
    if (day === undefined) continue;
    const anchor = marks.length > 1 && i === 0 ? 'start' : i === days.length - 1 ? 'end' : 'middle';
    const x =
      anchor === 'start' ? left : anchor === 'end' ? left + plotWidth : left + (i + 0.5) * band;
    svg.append(
      svgText('text', shortDay(day.date), {
        class: 'chart-label',
        x,
        y: HEIGHT - 6,
        'text-anchor': days.length === 1 ? 'middle' : anchor,
      }),
    );
  }

  if (stats.range.clicks === 0) {
    svg.append(
      svgText('text', t('ui.chart.empty'), {
        class: 'chart-empty',
        x: left + plotWidth / 2,
        y: PAD.top + plotHeight / 2,
        'text-anchor': 'middle',
      }),
    );
  }
  return svg;
}

/** The legend under the chart: which colour is whom. */
export function buildLegend() {
  const list = document.createElement('ul');
  list.className = 'legend';
  for (const [kind, text] of [
    ['swatch-human', t('ui.stats.humans')],
    ['swatch-bot', t('ui.stats.bots')],
  ]) {
    const item = document.createElement('li');
    const swatch = document.createElement('span');
    swatch.className = `swatch ${kind}`;
    swatch.setAttribute('aria-hidden', 'true');
    item.append(swatch, text);
    list.append(item);
  }
  return list;
}

/** Every day of the range with its numbers: the chart as a table. */
export function buildDayTable(stats) {
  const table = document.createElement('table');
  table.className = 'data-table';
  const caption = document.createElement('caption');
  caption.textContent = t('ui.chart.caption', { from: longDay(stats.from), to: longDay(stats.to) });
  table.append(
    caption,
    head([t('ui.chart.date'), t('ui.list.clicks'), t('ui.stats.humans'), t('ui.stats.bots')]),
  );
  const body = document.createElement('tbody');
  for (const day of stats.days) {
    const row = document.createElement('tr');
    const date = document.createElement('th');
    date.scope = 'row';
    date.textContent = longDay(day.date);
    row.append(date, cell(formatCount(day.clicks)), cell(formatCount(day.humans)));
    row.append(cell(formatCount(day.bots)));
    body.append(row);
  }
  table.append(body);
  return table;
}

const TOP_LISTS = [
  ['sources', 'ui.top.sources', 'ui.top.source'],
  ['query_sources', 'ui.top.querySources', 'ui.top.querySource'],
  ['referrers', 'ui.top.referrers', 'ui.top.referrer'],
  ['browsers', 'ui.top.browsers', 'ui.top.browser'],
  ['operating_systems', 'ui.top.systems', 'ui.top.system'],
  ['devices', 'ui.top.devices', 'ui.top.device'],
  ['countries', 'ui.top.countries', 'ui.top.country'],
  ['routes', 'ui.top.routes', 'ui.top.route'],
];

/**
 * A small section per top list, a table of at most ten values with their clicks and
 * share of the range. Open mode never records ?source=, so it shows no list for it; routes
 * show only when some click went by a rule or a variant.
 */
export function buildTopLists(stats, mode) {
  const sections = [];
  for (const [key, heading, column] of TOP_LISTS) {
    if (key === 'query_sources' && mode === 'open') continue;
    const entries = stats.top?.[key] ?? [];
    // Every click of a link without rules or a split went to its own target: nothing to tell.
    if (key === 'routes' && entries.every((entry) => entry.value === 'default')) continue;
    const section = document.createElement('section');
    section.className = 'top-list';
    const title = document.createElement('h3');
    title.id = `stats-top-${key}`;
    title.textContent = t(heading);
    section.append(title);
    if (entries.length === 0) {
      const none = document.createElement('p');
      none.className = 'hint';
      none.textContent = t('ui.top.none');
      section.append(none);
    } else {
      const table = document.createElement('table');
      table.className = 'data-table';
      table.setAttribute('aria-labelledby', title.id);
      table.append(head([t(column), t('ui.list.clicks'), t('ui.top.share')]));
      const body = document.createElement('tbody');
      for (const entry of entries) {
        const row = document.createElement('tr');
        const name = document.createElement('th');
        name.scope = 'row';
        name.textContent = displayValue(key, entry.value);
        name.title = name.textContent;
        const share = stats.range.clicks > 0 ? entry.clicks / stats.range.clicks : 0;
        row.append(name, cell(formatCount(entry.clicks)), cell(percentFormat.format(share)));
        body.append(row);
      }
      table.append(body);
      section.append(table);
    }
    sections.push(section);
  }
  return sections;
}

/** A value as a person reads it: countries by name (and code), nothing as "Unknown". */
function displayValue(key, value) {
  if (value === null || value === undefined || value === '') return t('ui.top.unknown');
  if (key === 'countries' && /^[A-Z]{2}$/.test(value)) {
    const name = regionNames?.of(value);
    return name && name !== value ? `${name} (${value})` : value;
  }
  if (key === 'routes') return routeName(String(value));
  return String(value);
}

/** A route as the Edit dialog names its parts: `rule:0` is Rule 1, `variant:1` Variant B. */
function routeName(value) {
  if (value === 'default') return t('ui.top.defaultTarget');
  const [kind, place] = value.split(':');
  const index = Number(place);
  if (!Number.isInteger(index) || index < 0) return value;
  if (kind === 'rule') return t('ui.rules.name', { n: index + 1 });
  if (kind === 'variant' && index < 26) return variantName(index);
  return value;
}

/** The top of the scale and its step: 1, 2 or 5 times a power of ten, at most 4 steps. */
function scale(most) {
  const value = Math.max(most, 1);
  let step = 1;
  for (let power = 1; ; power *= 10) {
    const fit = [1, 2, 5].map((m) => m * power).find((s) => Math.ceil(value / s) <= 4);
    if (fit !== undefined) {
      step = fit;
      break;
    }
  }
  return { top: step * Math.ceil(value / step), step };
}

function head(names) {
  const thead = document.createElement('thead');
  const row = document.createElement('tr');
  for (const name of names) {
    const th = document.createElement('th');
    th.scope = 'col';
    th.textContent = name;
    row.append(th);
  }
  thead.append(row);
  return thead;
}

function cell(text) {
  const td = document.createElement('td');
  td.textContent = text;
  return td;
}

function svgElement(name, attributes = {}) {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
  return element;
}

function svgText(name, text, attributes = {}) {
  const element = svgElement(name, attributes);
  element.textContent = text;
  return element;
}
