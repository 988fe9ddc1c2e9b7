// The admin section's figures: GET /api/admin/overview (links, clicks today, users,
// reports waiting, disabled links, blocked hosts), read each time the view is shown.

import { byId, setText } from './dom.js';
import { formatNumber } from './i18n.js';

const FIGURES = {
  links: 'figure-links',
  clicks_today: 'figure-clicks-today',
  users: 'figure-users',
  reports_waiting: 'figure-reports-waiting',
  disabled_links: 'figure-disabled-links',
  blocked_hosts: 'figure-blocked-hosts',
};

export function createAdminFigures({ api }) {
  const section = byId('admin-figures');
  const list = byId('figures');
  const error = byId('figures-error');
  let generation = 0;

  async function load() {
    const turn = ++generation;
    list.setAttribute('aria-busy', 'true');
    try {
      const { body } = await api.get('/api/admin/overview');
      if (turn !== generation) return;
      error.textContent = '';
      for (const [field, id] of Object.entries(FIGURES)) {
        const value = body[field];
        setText(byId(id), typeof value === 'number' ? formatNumber(value) : '–');
      }
    } catch (e) {
      if (turn === generation && e.status !== 401) error.textContent = e.message;
    } finally {
      if (turn === generation) list.removeAttribute('aria-busy');
    }
  }

  return {
    section,
    heading: byId('figures-title'),
    enter: load,
    leave() {
      generation++;
    },
    reset() {
      generation++;
      error.textContent = '';
      list.removeAttribute('aria-busy');
      for (const id of Object.values(FIGURES)) byId(id).textContent = '–';
    },
  };
}
