// The list's filters and order: text (the server's `q`: code, target or tag), a tag (the
// select lists GET /api/tags; a row's tag chip chooses it too), a domain (only when there
// is a choice) and the order (newest, oldest, most or fewest clicks, code). Each is a
// parameter of GET /api/links; this module keeps them and says when they changed. While a
// tag is chosen, "Stats for tag …" opens that tag's stats.

import { byId } from './dom.js';
import { t } from './i18n.js';

const TEXT_DELAY_MS = 200;
const DEFAULT_ORDER = 'created:desc';

/** onChange() after any filter changed; onTagStats(tag, button) for the tag's stats. */
export function createListFilters({ api, domains, onChange, onTagStats }) {
  const form = byId('list-filters');
  const text = byId('filter');
  const tagSelect = byId('filter-tag');
  const domainField = byId('filter-domain-field');
  const domainSelect = byId('filter-domain');
  const order = byId('sort');
  const tagTools = byId('tag-tools');
  const tagStats = byId('tag-stats');
  const tagClear = byId('tag-clear');
  let typed = ''; // the text filter, once typing paused
  let textTimer;
  let tagsTurn = 0;

  form.addEventListener('submit', (event) => event.preventDefault()); // Enter in the text field
  text.addEventListener('input', () => {
    // Wait for a pause in typing rather than asking the server per keystroke.
    clearTimeout(textTimer);
    textTimer = setTimeout(() => {
      typed = text.value.trim();
      onChange();
    }, TEXT_DELAY_MS);
  });
  for (const select of [tagSelect, domainSelect, order]) {
    select.addEventListener('change', () => {
      showTagTools();
      onChange();
    });
  }
  tagStats.addEventListener('click', () => onTagStats(tagSelect.value, tagStats));
  tagClear.addEventListener('click', () => {
    tagSelect.value = '';
    showTagTools();
    onChange();
    tagSelect.focus(); // the button pressed is gone
  });

  domains.onChange(() => {
    domains.fill(domainSelect, t('ui.list.allDomains'));
    domainField.hidden = !domains.several;
    if (!domains.several && domainSelect.value !== '') {
      domainSelect.value = '';
      onChange();
    }
  });

  function showTagTools() {
    const tag = tagSelect.value;
    tagTools.hidden = tag === '';
    tagStats.textContent = t('ui.list.tagStatsFor', { tag });
  }

  /** Makes sure `tag` can be chosen, even before (or without) the list of tags. */
  function ensureOption(tag) {
    if (![...tagSelect.options].some((option) => option.value === tag)) {
      tagSelect.append(new Option(tag, tag));
    }
  }

  return {
    /** The query parameters of the filters and order that are set (the default order is not sent). */
    params() {
      const params = {};
      if (typed) params.q = typed;
      if (tagSelect.value) params.tag = tagSelect.value;
      if (domainSelect.value && domains.several) params.domain = domainSelect.value;
      if (order.value !== DEFAULT_ORDER) {
        const [sort, direction] = order.value.split(':');
        params.sort = sort;
        params.order = direction;
      }
      return params;
    },
    /** Whether any filter narrows the list (the order alone does not). */
    get narrowed() {
      return (
        typed !== '' || tagSelect.value !== '' || (domains.several && domainSelect.value !== '')
      );
    },
    /** What the empty list says it was filtered by. */
    describe() {
      const parts = [];
      if (typed) parts.push(t('ui.filter.text', { text: typed }));
      if (tagSelect.value) parts.push(t('ui.filter.tag', { tag: tagSelect.value }));
      if (domains.several && domainSelect.value) {
        parts.push(t('ui.filter.domain', { domain: domainSelect.value }));
      }
      return parts.reduce((first, second) => t('ui.filter.and', { first, second }));
    },
    /** Shows the links of `tag` (a row's chip was pressed); focus goes to the tag filter. */
    showTag(tag) {
      ensureOption(tag);
      tagSelect.value = tag;
      showTagTools();
      onChange();
      tagSelect.focus();
    },
    /** Reads the tags again (with their number of links) for the select. */
    async loadTags() {
      const turn = ++tagsTurn;
      let tags;
      try {
        ({ body: tags } = await api.get('/api/tags'));
      } catch {
        return; // a kurz without the endpoint, or offline: the select keeps what it has
      }
      if (turn !== tagsTurn || !Array.isArray(tags)) return;
      const chosen = tagSelect.value;
      tagSelect.replaceChildren(
        new Option(t('ui.list.allTags'), ''),
        ...tags.map((entry) => new Option(`${entry.tag} (${entry.links})`, entry.tag)),
      );
      if (chosen) ensureOption(chosen);
      tagSelect.value = chosen;
    },
    /** Back to no filter, the newest first (on logout). */
    reset() {
      clearTimeout(textTimer);
      tagsTurn++;
      typed = '';
      text.value = '';
      tagSelect.replaceChildren(new Option(t('ui.list.allTags'), ''));
      domainSelect.value = '';
      order.value = DEFAULT_ORDER;
      showTagTools();
    },
  };
}
