// The Edit dialog's redirect rules (docs/redirect-rules.md): up to 20 rules in order, each a
// target URL and 1 to 10 conditions that must all match; the first rule that matches sends
// the visitor. Rules are added, removed and moved with buttons that leave focus where the
// person is, and each condition's value control follows its type.

import { toLocalInput, zoneHint } from './dom.js';
import {
  button,
  element,
  field,
  input,
  relabel,
  section,
  select,
  uniqueId,
} from './editor-parts.js';
import { t } from './i18n.js';

export const MAX_RULES = 20;
export const MAX_CONDITIONS = 10;

const TYPES = [
  ['device', t('ui.rules.type.device')],
  ['os', t('ui.rules.type.os')],
  ['browser', t('ui.rules.type.browser')],
  ['language', t('ui.rules.type.language')],
  ['country', t('ui.rules.type.country')],
  ['query', t('ui.rules.type.query')],
  ['after', t('ui.rules.type.after')],
  ['before', t('ui.rules.type.before')],
  ['bot', t('ui.rules.type.bot')],
];

/** The types whose value is one of a few: [label, [value, text]…]. */
const CHOICES = {
  device: [
    t('ui.rules.device'),
    [
      ['mobile', t('ui.rules.device.mobile')],
      ['tablet', t('ui.rules.device.tablet')],
      ['desktop', t('ui.rules.device.desktop')],
    ],
  ],
  os: [
    t('ui.top.system'),
    [
      ['ios', 'iOS'],
      ['android', 'Android'],
      ['windows', 'Windows'],
      ['macos', 'macOS'],
      ['linux', 'Linux'],
    ],
  ],
  browser: [
    t('ui.top.browser'),
    [
      ['chrome', 'Chrome'],
      ['safari', 'Safari'],
      ['firefox', 'Firefox'],
      ['edge', 'Edge'],
      ['opera', 'Opera'],
      ['samsung', 'Samsung Internet'],
    ],
  ],
  bot: [
    t('ui.rules.visitor'),
    [
      ['true', t('ui.rules.visitor.bot')],
      ['false', t('ui.rules.visitor.person')],
    ],
  ],
};

/** A new condition: the first type, its first value. */
const FIRST_CONDITION = { type: 'device', value: 'mobile' };

export function createRulesEditor() {
  const part = section(t('ui.rules.title'), t('ui.rules.lead'));
  const list = element('ol', 'rules');
  list.setAttribute('aria-label', t('ui.rules.list'));
  const add = button(t('ui.rules.add'), '', 'button small');
  const count = element('span', 'hint');
  const tools = element('div', 'section-add');
  tools.append(add, count);
  part.body.append(list, tools);

  let rules = []; // the rules shown, in order: see createRule
  let shown = []; // the rules the dialog opened with, as the API gave them

  add.addEventListener('click', () => {
    if (rules.length >= MAX_RULES) return;
    const rule = createRule({ url: '', conditions: [FIRST_CONDITION] });
    rules.push(rule);
    list.append(rule.item);
    renumber();
    part.say(t('ui.rules.added', { n: rules.length }));
    rule.url.focus();
  });

  function createRule(initial) {
    const item = element('li', 'rule');
    const title = element('h3', 'rule-title');
    title.id = uniqueId('edit-rule');
    const group = element('div', 'rule-box');
    group.setAttribute('role', 'group');
    group.setAttribute('aria-labelledby', title.id);
    const up = button(t('ui.rules.up'));
    const down = button(t('ui.rules.down'));
    const remove = button(t('ui.rules.remove'), '', 'button small secondary danger');
    const head = element('div', 'rule-head');
    const moves = element('div', 'rule-tools');
    moves.append(up, down, remove);
    head.append(title, moves);
    const url = input('url', { inputmode: 'url', maxlength: 2048 });
    url.value = initial.url;
    const conditionList = element('ol', 'conditions');
    const addCondition = button(t('ui.rules.addCondition'));
    const conditionCount = element('span', 'hint');
    const conditionTools = element('div', 'section-add');
    conditionTools.append(addCondition, conditionCount);
    const urlField = field(t('ui.edit.url'), url);
    group.append(head, urlField, conditionList, conditionTools);
    item.append(group);

    const urlLabel = urlField.querySelector('label');
    const rule = { item, title, up, down, remove, url, urlLabel, addCondition, conditionCount };
    rule.conditions = initial.conditions.map((c) => createCondition(rule, c));
    conditionList.append(...rule.conditions.map((c) => c.item));

    up.addEventListener('click', () => move(rule, -1));
    down.addEventListener('click', () => move(rule, 1));
    remove.addEventListener('click', () => removeRule(rule));
    addCondition.addEventListener('click', () => {
      if (rule.conditions.length >= MAX_CONDITIONS) return;
      const condition = createCondition(rule, FIRST_CONDITION);
      rule.conditions.push(condition);
      conditionList.append(condition.item);
      renumber();
      part.say(
        t('ui.rules.conditionAdded', { k: rule.conditions.length, n: rules.indexOf(rule) + 1 }),
      );
      condition.type.focus();
    });
    return rule;
  }

  /**
   * Moves a rule one place; the rule it passes is the one moved in the page, so the
   * pressed button never leaves the document and keeps focus (now named for its new place).
   */
  function move(rule, step) {
    const from = rules.indexOf(rule);
    const to = from + step;
    const other = rules[to];
    if (other === undefined) return; // the button says so: aria-disabled
    rules[to] = rule;
    rules[from] = other;
    if (step < 0) rule.item.after(other.item);
    else rule.item.before(other.item);
    renumber();
    part.say(
      t(step < 0 ? 'ui.rules.movedUp' : 'ui.rules.movedDown', { from: from + 1, to: to + 1 }),
    );
  }

  function removeRule(rule) {
    const at = rules.indexOf(rule);
    rules.splice(at, 1);
    rule.item.remove();
    renumber();
    part.say(t('ui.rules.removed', { n: at + 1 }));
    // The same button of the rule now in its place, else of the one before, else Add.
    ((rules[at] ?? rules[at - 1])?.remove ?? add).focus();
  }

  function createCondition(rule, initial) {
    const item = element('li', 'condition');
    const type = select(TYPES);
    type.value = initial.type;
    const typeField = field(t('ui.rules.condition'), type);
    const values = element('div', 'condition-value');
    const remove = button(t('ui.rules.remove'), '', 'button small secondary danger');
    item.append(typeField, values, remove);
    const condition = { item, type, typeLabel: typeField.querySelector('label'), remove };
    condition.value = valueControl(initial);
    values.replaceChildren(...condition.value.fields);

    // A new type brings its own control; focus stays on the type, which is not replaced.
    type.addEventListener('change', () => {
      condition.value = valueControl({ type: type.value });
      values.replaceChildren(...condition.value.fields);
    });
    remove.addEventListener('click', () => {
      const at = rule.conditions.indexOf(condition);
      rule.conditions.splice(at, 1);
      item.remove();
      renumber();
      part.say(t('ui.rules.conditionRemoved', { k: at + 1, n: rules.indexOf(rule) + 1 }));
      ((rule.conditions[at] ?? rule.conditions[at - 1])?.remove ?? rule.addCondition).focus();
    });
    return condition;
  }

  /** Numbers, names and limits follow the order: every label says which rule it is of. */
  function renumber() {
    rules.forEach((rule, i) => {
      const n = i + 1;
      rule.title.textContent = t('ui.rules.name', { n });
      relabel(rule.urlLabel, t('ui.rules.name', { n }), t('ui.edit.url'));
      rule.up.setAttribute('aria-label', t('ui.rules.moveUp', { n }));
      rule.down.setAttribute('aria-label', t('ui.rules.moveDown', { n }));
      rule.up.setAttribute('aria-disabled', String(i === 0));
      rule.down.setAttribute('aria-disabled', String(i === rules.length - 1));
      rule.remove.setAttribute('aria-label', t('ui.rules.removeRule', { n }));
      rule.addCondition.setAttribute('aria-label', t('ui.rules.addConditionTo', { n }));
      rule.addCondition.disabled = rule.conditions.length >= MAX_CONDITIONS;
      rule.conditionCount.textContent = t('ui.rules.conditionCount', {
        n: rule.conditions.length,
        count: MAX_CONDITIONS,
      });
      rule.conditions.forEach((condition, k) => {
        relabel(
          condition.typeLabel,
          t('ui.rules.name', { n }),
          t('ui.rules.conditionN', { k: k + 1 }),
        );
        condition.remove.setAttribute('aria-label', t('ui.rules.removeCondition', { k: k + 1, n }));
      });
    });
    add.disabled = rules.length >= MAX_RULES;
    count.textContent = t('ui.rules.count', { n: rules.length, count: MAX_RULES });
    part.showState(
      rules.length === 0 ? t('ui.edit.stateNone') : t('ui.rules.state', { count: rules.length }),
    );
  }

  return {
    element: part.details,
    /** Shows the rules of a link's details (its `rules`, [] for none). */
    set(given) {
      shown = given;
      rules = given.map((rule) => createRule(rule));
      list.replaceChildren(...rules.map((rule) => rule.item));
      part.reset();
      renumber();
    },
    /**
     * What saving sends: `{change}` with the rules (null to clear them; undefined when they
     * are as they were), or `{message, control}` when one cannot be sent as it is.
     */
    take() {
      const taken = [];
      for (const [i, rule] of rules.entries()) {
        const url = rule.url.value.trim();
        if (url === '') {
          return { message: t('ui.rules.needsUrl', { n: i + 1 }), control: rule.url };
        }
        if (rule.conditions.length === 0) {
          return {
            message: t('ui.rules.needsCondition', { n: i + 1 }),
            control: rule.addCondition,
          };
        }
        const conditions = [];
        for (const [k, condition] of rule.conditions.entries()) {
          const value = condition.value.read();
          if (typeof value === 'string') {
            return {
              message: t('ui.rules.conditionProblem', { n: i + 1, k: k + 1, problem: value }),
              control: firstControl(condition),
            };
          }
          conditions.push(value);
        }
        taken.push({ url, conditions });
      }
      if (JSON.stringify(taken) === JSON.stringify(shown.map(canonical))) return {};
      return { change: taken.length === 0 ? null : taken };
    },
    /** The control a server's message names (`rules[1].conditions[0]: …`), if shown. */
    controlAt(place) {
      const found = /^rules\[(\d+)\](?:\.(url)|\.conditions(?:\[(\d+)\])?)?/.exec(place);
      const rule = found === null ? undefined : rules[Number(found[1])];
      if (rule === undefined) return add;
      if (found[2] === 'url' || !place.includes('.conditions')) return rule.url;
      const condition = rule.conditions[Number(found[3])];
      return condition === undefined ? rule.addCondition : firstControl(condition);
    },
  };
}

/**
 * The control of a condition's value for its type: `fields` (each a .field) and `read()`,
 * which gives the condition as the API takes it, or what is wrong with it.
 */
function valueControl(condition) {
  const { type } = condition;
  const choices = CHOICES[type];
  if (choices !== undefined) {
    const [label, options] = choices;
    const list = select(options);
    if (condition.value !== undefined) list.value = String(condition.value);
    return {
      fields: [field(label, list)],
      read: () => ({ type, value: type === 'bot' ? list.value === 'true' : list.value }),
    };
  }
  if (type === 'language' || type === 'country') {
    const language = type === 'language';
    const code = input('text', {
      maxlength: language ? 3 : 2,
      placeholder: language ? 'de' : 'DE',
      autocapitalize: language ? 'none' : 'characters',
      class: 'code-input',
    });
    code.value = condition.value ?? '';
    const rule = language ? t('ui.rules.languageRule') : t('ui.rules.countryRule');
    return {
      fields: [field(t(language ? 'ui.rules.languageCode' : 'ui.rules.countryCode'), code, rule)],
      read() {
        const value = code.value.trim();
        if (language) {
          return /^[a-z]{2,3}$/i.test(value)
            ? { type, value: value.toLowerCase() }
            : t('ui.rules.badLanguage');
        }
        return /^[a-z]{2}$/i.test(value)
          ? { type, value: value.toUpperCase() }
          : t('ui.rules.badCountry');
      },
    };
  }
  if (type === 'query') {
    const name = input('text', { maxlength: 100, placeholder: 'ref' });
    const wanted = input('text', { maxlength: 200, placeholder: t('ui.rules.anyValue') });
    name.value = condition.name ?? '';
    wanted.value = condition.value ?? '';
    return {
      fields: [
        field(t('ui.rules.parameter'), name),
        field(t('ui.rules.value'), wanted, t('ui.rules.valueHint')),
      ],
      read() {
        const parameter = name.value.trim();
        if (parameter === '') return t('ui.rules.badParameter');
        return wanted.value === ''
          ? { type, name: parameter }
          : { type, name: parameter, value: wanted.value };
      },
    };
  }
  // after and before: an instant, shown and typed in the viewer's own time zone.
  const when = input('datetime-local');
  const shownAs = condition.value === undefined ? '' : toLocalInput(condition.value);
  when.value = shownAs;
  return {
    fields: [field(t(type === 'after' ? 'ui.rules.from' : 'ui.rules.until'), when, zoneHint())],
    read() {
      if (when.value === '') return t('ui.rules.needsTime');
      // Untouched, it is sent as it came, to the millisecond the field cannot show.
      if (when.value === shownAs) return { type, value: condition.value };
      const moment = new Date(when.value);
      if (Number.isNaN(moment.getTime())) return t('ui.rules.badTime');
      return { type, value: moment.toISOString() };
    },
  };
}

/** The first control of a condition's value: where a problem with it is pointed at. */
function firstControl(condition) {
  return condition.value.fields[0].querySelector('input, select');
}

/** A rule as take() builds it, so the rules shown compare with what the API gave. */
function canonical(rule) {
  return {
    url: rule.url,
    conditions: rule.conditions.map((c) =>
      c.type === 'query'
        ? { type: c.type, name: c.name, ...(c.value === undefined ? {} : { value: c.value }) }
        : { type: c.type, value: c.value },
    ),
  };
}
