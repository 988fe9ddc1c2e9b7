// The Stats dialog of a link, or of a tag (its links' clicks together, from
// GET /api/tags/{tag}/stats, which answers as a link's stats do): a range (the last 7, 30
// or 90 UTC days, or two dates), the all-time and range totals with humans and bots, the
// chart of clicks per day with its table, the top lists, and, for a link, the download of
// its click records as CSV. The drawing is stats-chart.js's; this module fetches and
// keeps the dialog in step.

import { openModal } from './dialog.js';
import { byId, formatCount } from './dom.js';
import { language, t } from './i18n.js';
import {
  buildChart,
  buildDayTable,
  buildLegend,
  buildTopLists,
  chartSummary,
  shortDay,
} from './stats-chart.js';

const DAY_MS = 86_400_000;

export function createStatsView({ api, mode, domains }) {
  const dialog = byId('stats-dialog');
  const title = byId('stats-title');
  const targetText = byId('stats-target');
  const rangeForm = byId('stats-range');
  const custom = byId('stats-custom');
  const from = byId('stats-from');
  const to = byId('stats-to');
  const error = byId('stats-error');
  const body = byId('stats-body');
  const allTime = byId('stats-all-time');
  const rangeLabel = byId('stats-range-label');
  const rangeTotal = byId('stats-range-total');
  const humans = byId('stats-humans');
  const bots = byId('stats-bots');
  const chart = byId('stats-chart');
  const dayTable = byId('stats-table');
  const topLists = byId('stats-top');
  const csvButton = byId('stats-csv');
  const status = byId('stats-status');
  // What is shown: { statsPath(range), csv: { path, name } or null }; null while closed.
  let subject = null;
  let shown = null; // the stats on screen, redrawn when the dialog's width changes
  let turn = 0; // bumps on every load and on close; older answers are dropped

  const chosen = () => rangeForm.querySelector('input[name="range"]:checked')?.value ?? '30';

  /** The UTC days asked for: a preset ends today; custom takes the two dates. */
  function period() {
    const choice = chosen();
    if (choice === 'custom') return { from: from.value, to: to.value };
    const today = new Date();
    const start = new Date(today.getTime() - (Number(choice) - 1) * DAY_MS);
    return { from: isoDay(start), to: isoDay(today) };
  }

  async function load() {
    if (subject === null) return;
    const range = period();
    if (!range.from || !range.to) {
      error.textContent = t('ui.stats.bothDates');
      return;
    }
    const mine = ++turn;
    error.textContent = '';
    body.setAttribute('aria-busy', 'true');
    try {
      const { body: stats } = await api.get(subject.statsPath(range));
      if (mine !== turn) return;
      render(stats);
      status.textContent = chartSummary(stats);
    } catch (e) {
      if (mine === turn && e.status !== 401) error.textContent = e.message;
    } finally {
      if (mine === turn) body.removeAttribute('aria-busy');
    }
  }

  function render(stats) {
    shown = stats;
    body.hidden = false;
    allTime.textContent = formatCount(stats.clicks);
    rangeLabel.textContent = `${shortDay(stats.from)} – ${shortDay(stats.to)}`;
    rangeTotal.textContent = formatCount(stats.range.clicks);
    humans.textContent = withShare(stats.range.humans, stats.range.clicks);
    bots.textContent = withShare(stats.range.bots, stats.range.clicks);
    drawChart();
    dayTable.replaceChildren(buildDayTable(stats));
    topLists.replaceChildren(...buildTopLists(stats, mode));
    // Custom dates start from what is shown, so a small change is a small edit.
    if (chosen() !== 'custom') {
      from.value = stats.from;
      to.value = stats.to;
    }
  }

  function drawChart() {
    if (shown === null) return;
    const width = Math.floor(chart.clientWidth) || 600;
    chart.replaceChildren(buildChart(shown, width), buildLegend());
  }

  // The chart is drawn at the width it has, so its text keeps its size on a phone.
  let drawnWidth = 0;
  new ResizeObserver(() => {
    const width = Math.floor(chart.clientWidth);
    if (dialog.open && width > 0 && width !== drawnWidth) {
      drawnWidth = width;
      drawChart();
    }
  }).observe(chart);

  rangeForm.addEventListener('change', (event) => {
    if (event.target.name !== 'range') return;
    custom.hidden = chosen() !== 'custom';
    if (chosen() !== 'custom') load();
  });
  rangeForm.addEventListener('submit', (event) => {
    event.preventDefault();
    load();
  });

  // The CSV needs the bearer token in accounts mode, which a plain link cannot send:
  // fetch it, then save it through a blob: URL.
  csvButton.addEventListener('click', async () => {
    const csvFile = subject?.csv;
    if (!csvFile) return;
    csvButton.setAttribute('aria-busy', 'true');
    error.textContent = '';
    try {
      const { body: csv } = await api.get(csvFile.path, { as: 'blob' });
      const name = csvFile.name; // the name the server's Content-Disposition gives
      const link = document.createElement('a');
      link.href = URL.createObjectURL(csv);
      link.download = name;
      link.click();
      // The download has started from the blob by then; a minute is more than enough.
      setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
      status.textContent = t('ui.stats.downloaded', { name });
    } catch (e) {
      if (e.status !== 401) error.textContent = t('ui.stats.csvFailed', { message: e.message });
    } finally {
      csvButton.removeAttribute('aria-busy');
    }
  });

  dialog.addEventListener('close', () => {
    turn++;
    subject = null;
  });

  function show(what, heading, target, opener) {
    subject = what;
    shown = null;
    title.textContent = heading;
    targetText.textContent = target.text;
    targetText.title = target.title;
    csvButton.hidden = what.csv === null;
    error.textContent = '';
    status.textContent = '';
    body.hidden = true; // until its numbers arrive
    custom.hidden = chosen() !== 'custom';
    openModal(dialog, { opener, focus: rangeForm.querySelector('input:checked') });
    drawnWidth = Math.floor(chart.clientWidth);
    load();
  }

  return {
    /** Opens the stats of a listed link. */
    open(link, opener) {
      const shortUrl = domains.shortUrlOf(link).replace(/^https?:\/\//, '');
      show(
        {
          statsPath: (range) => domains.pathOf(link, '/stats', range),
          csv: { path: domains.pathOf(link, '/clicks.csv'), name: domains.csvNameOf(link) },
        },
        t('ui.row.statsFor', { name: domains.nameOf(link) }),
        { text: `${shortUrl} → ${link.original_url}`, title: link.original_url },
        opener,
      );
    },
    /** Opens the stats of the links tagged `tag`, all together. */
    openTag(tag, opener) {
      const path = `/api/tags/${encodeURIComponent(tag)}/stats`;
      show(
        { statsPath: (range) => `${path}?${new URLSearchParams(range)}`, csv: null },
        t('ui.list.tagStatsFor', { tag }),
        { text: t('ui.stats.tagLead', { tag }), title: '' },
        opener,
      );
    },
    close() {
      if (dialog.open) dialog.close();
    },
  };
}

function isoDay(date) {
  return date.toISOString().slice(0, 10);
}

const percent = new Intl.NumberFormat(language, { style: 'percent', maximumFractionDigits: 0 });

function withShare(part, whole) {
  if (whole === 0) return formatCount(part);
  return `${formatCount(part)} (${percent.format(part / whole)})`;
}
