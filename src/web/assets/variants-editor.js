// The Edit dialog's A/B split (docs/redirect-rules.md): none, or 2 to 4 targets with whole
// weights from 1 to 100 that add up to 100. The total is said as it is typed, and a split
// that does not add up is refused here, with the same words, before anything is sent.

import { variantName } from './dom.js';
import { button, element, field, input, relabel, section } from './editor-parts.js';
import { t } from './i18n.js';

export const MIN_VARIANTS = 2;
export const MAX_VARIANTS = 4;

export function createVariantsEditor() {
  const part = section(t('ui.variants.title'), t('ui.variants.lead'));
  const list = element('ol', 'variants');
  list.setAttribute('aria-label', t('ui.variants.list'));
  // Read out as it changes, politely: after the digit typed, not over it.
  const total = element('p', 'variants-total');
  total.setAttribute('aria-live', 'polite');
  const add = button(t('ui.variants.addSplit'), '', 'button small');
  const clear = button(t('ui.variants.removeSplit'), '', 'button small secondary danger');
  const count = element('span', 'hint');
  const tools = element('div', 'section-add');
  tools.append(add, clear, count);
  part.body.append(list, total, tools);

  let rows = []; // the variants shown, in order: see createRow
  let shown = []; // the variants the dialog opened with

  // The first press makes a split of two, half each; later ones add a row to weigh.
  add.addEventListener('click', () => {
    if (rows.length >= MAX_VARIANTS) return;
    const added =
      rows.length === 0
        ? [createRow({ url: '', weight: 50 }), createRow({ url: '', weight: 50 })]
        : [createRow({ url: '', weight: '' })];
    rows.push(...added);
    list.append(...added.map((row) => row.item));
    update();
    part.say(
      added.length === 2
        ? t('ui.variants.splitAdded')
        : t('ui.variants.added', { name: variantName(rows.length - 1) }),
    );
    added[0].url.focus();
  });

  clear.addEventListener('click', () => {
    rows = [];
    list.replaceChildren();
    update();
    part.say(t('ui.variants.splitRemoved'));
    add.focus();
  });

  function createRow(initial) {
    const item = element('li', 'variant');
    const url = input('url', { inputmode: 'url', maxlength: 2048 });
    url.value = initial.url;
    const weight = input('number', { inputmode: 'numeric', min: 1, max: 100, step: 1 });
    weight.value = String(initial.weight);
    const urlField = field(t('ui.edit.url'), url);
    const weightField = field(t('ui.variants.weight'), weight);
    const remove = button(t('ui.rules.remove'), '', 'button small secondary danger');
    item.append(urlField, weightField, remove);
    const row = {
      item,
      url,
      weight,
      remove,
      urlLabel: urlField.querySelector('label'),
      weightLabel: weightField.querySelector('label'),
    };
    weight.addEventListener('input', update);
    remove.addEventListener('click', () => {
      const at = rows.indexOf(row);
      rows.splice(at, 1);
      item.remove();
      update();
      part.say(t('ui.variants.removed', { name: variantName(at) }));
      ((rows[at] ?? rows[at - 1])?.url ?? add).focus();
    });
    return row;
  }

  /** Names, buttons and the total follow the rows. */
  function update() {
    rows.forEach((row, i) => {
      const name = variantName(i);
      row.urlLabel.textContent = t('ui.variants.url', { name });
      relabel(row.weightLabel, name, t('ui.variants.weight'));
      row.remove.setAttribute('aria-label', t('ui.variants.remove', { name }));
      // A split has two at least: the pair goes with "Remove the split".
      row.remove.hidden = rows.length <= MIN_VARIANTS;
    });
    add.textContent = t(rows.length === 0 ? 'ui.variants.addSplit' : 'ui.variants.add');
    add.disabled = rows.length >= MAX_VARIANTS;
    clear.hidden = rows.length === 0;
    count.textContent =
      rows.length === 0 ? '' : t('ui.variants.count', { n: rows.length, count: MAX_VARIANTS });
    const sum = weightSum();
    total.hidden = rows.length === 0;
    total.textContent = rows.length === 0 ? '' : totalText(sum);
    total.classList.toggle('variants-total-off', sum !== 100);
    part.showState(
      rows.length === 0
        ? t('ui.edit.stateNone')
        : rows.map((row) => row.weight.value || '?').join(' / '),
    );
  }

  const weightSum = () => rows.reduce((sum, row) => sum + (Number(row.weight.value) || 0), 0);

  return {
    element: part.details,
    /** Shows the variants of a link's details (its `variants`, [] for none). */
    set(given) {
      shown = given;
      rows = given.map((variant) => createRow(variant));
      list.replaceChildren(...rows.map((row) => row.item));
      part.reset();
      update();
    },
    /**
     * What saving sends: `{change}` with the variants (null to clear them; undefined when
     * they are as they were), or `{message, control}` when they cannot be sent.
     */
    take() {
      const taken = [];
      for (const [i, row] of rows.entries()) {
        const url = row.url.value.trim();
        if (url === '') {
          return { message: t('ui.variants.needsUrl', { name: variantName(i) }), control: row.url };
        }
        const weight = Number(row.weight.value);
        if (row.weight.value === '' || !Number.isInteger(weight) || weight < 1 || weight > 100) {
          return {
            message: t('ui.variants.badWeight', { name: variantName(i) }),
            control: row.weight,
          };
        }
        taken.push({ url, weight });
      }
      const sum = weightSum();
      if (rows.length > 0 && sum !== 100)
        return { message: totalText(sum), control: rows[0].weight };
      const before = shown.map(({ url, weight }) => ({ url, weight }));
      if (JSON.stringify(taken) === JSON.stringify(before)) return {};
      return { change: taken.length === 0 ? null : taken };
    },
    /** The control a server's message names (`variants[1].weight: …`), if shown. */
    controlAt(place) {
      const found = /^variants\[(\d+)\]\.(url|weight)/.exec(place);
      const row = found === null ? undefined : rows[Number(found[1])];
      if (row === undefined) return rows[0]?.weight ?? add;
      return found[2] === 'url' ? row.url : row.weight;
    },
  };
}

/** The total as the person reads it, saying what is wrong when it is not 100. */
function totalText(sum) {
  return sum === 100 ? t('ui.variants.total') : t('ui.variants.totalOff', { sum });
}
