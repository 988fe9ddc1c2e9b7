// What the Edit dialog's sections for rules, the A/B split and the preview card are made
// of: their markup is built here in JS (index.html holds none of it), text set through
// textContent only, every control labelled, and each id unique in the page.

let made = 0;

/** An id no other element of the page has: `prefix-N`. */
export function uniqueId(prefix) {
  made += 1;
  return `${prefix}-${made}`;
}

/** An element with a class and a text (never HTML). */
export function element(tag, className = '', text = '') {
  const node = document.createElement(tag);
  if (className !== '') node.className = className;
  if (text !== '') node.textContent = text;
  return node;
}

/** A text field of `type` with the given attributes; never filled in by the browser. */
export function input(type, attributes = {}) {
  const field = document.createElement('input');
  field.type = type;
  field.autocomplete = 'off';
  if (type !== 'number' && type !== 'datetime-local') field.spellcheck = false;
  for (const [name, value] of Object.entries(attributes)) field.setAttribute(name, String(value));
  return field;
}

/** A <select> of [value, text] pairs. */
export function select(options) {
  const list = document.createElement('select');
  list.append(...options.map(([value, text]) => new Option(text, value)));
  return list;
}

/**
 * A .field: `label` above `control`, then hints under it that describe the control (for
 * screen readers too). Returns the field; its label is `field.querySelector('label')`.
 */
export function field(label, control, ...hints) {
  const box = element('div', 'field');
  control.id ||= uniqueId('edit-field');
  const text = element('label', '', label);
  text.htmlFor = control.id;
  box.append(text, control);
  const described = [];
  for (const hint of hints) {
    const note = element('p', 'hint', hint);
    note.id = uniqueId('edit-hint');
    described.push(note.id);
    box.append(note);
  }
  if (described.length > 0) control.setAttribute('aria-describedby', described.join(' '));
  return box;
}

/**
 * Gives `label` the words `shown`, read after `unseen` (as in "Rule 2 Target URL"): what
 * the layout makes plain stays unsaid on screen, while a list of the form's fields still
 * tells which rule or variant each belongs to.
 */
export function relabel(label, unseen, shown) {
  label.replaceChildren(element('span', 'visually-hidden', `${unseen} `), shown);
}

/**
 * A button that never submits the form: `text` shows, `name` (when it says more, such as
 * "Remove rule 2") is what assistive technology reads; it starts or ends with `text`, so
 * speech input finds the button by the word on it.
 */
export function button(text, name = '', className = 'button small secondary') {
  const control = element('button', className, text);
  control.type = 'button';
  if (name !== '') control.setAttribute('aria-label', name);
  return control;
}

/**
 * One collapsible section of the dialog: a <details> whose summary says what it is and,
 * beside it, what it holds now (`showState`), a lead paragraph, and a status region that
 * says what a button did (`say`) where the change is not seen by moving focus.
 */
export function section(title, lead) {
  const details = element('details', 'edit-section');
  const summary = element('summary');
  const state = element('span', 'edit-section-state');
  summary.append(element('span', 'edit-section-title', title), state);
  const body = element('div', 'edit-section-body');
  const status = element('p', 'visually-hidden');
  status.setAttribute('role', 'status');
  body.append(element('p', 'hint', lead));
  details.append(summary, body, status);
  return {
    details,
    body,
    showState(text) {
      state.textContent = text;
    },
    say(text) {
      status.textContent = text;
    },
    /** Back to closed and quiet, as the dialog opens. */
    reset() {
      details.open = false;
      status.textContent = '';
    },
  };
}
