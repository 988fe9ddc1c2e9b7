// Tags as chips: a text field where Enter or a comma turns what was typed into a chip,
// each chip with a × button that removes it (Backspace in the empty field removes the
// last one). The server's rule is checked here first, so a mistyped tag is named at
// once: 1 to 32 letters, digits, - and _, at most 10 a link, kept lower-cased.

import { t } from './i18n.js';

export const TAG_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;
export const TAGS_PER_LINK = 10;

/**
 * input: the text field; chips: the <ul> the chips go in; error: where a refused tag is
 * said (role="alert"); status: a role="status" element for what was added or removed.
 */
export function createTagInput({ input, chips, error, status }) {
  let tags = [];

  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') {
      // Enter adds the tag; with nothing typed it is left to the form (it submits).
      if (input.value.trim() === '') return;
      event.preventDefault();
      commit();
    } else if (event.key === 'Backspace' && input.value === '' && tags.length > 0) {
      event.preventDefault();
      remove(tags[tags.length - 1]);
    }
  });
  // A comma, typed or pasted, ends a tag; what follows it stays in the field.
  input.addEventListener('input', () => {
    if (input.value.includes(',')) addAll(input.value, true);
  });

  /** Adds what is typed; false (with the reason shown) when it breaks the rule. */
  function commit() {
    return input.value.trim() === '' || addAll(input.value, false);
  }

  /**
   * Adds each comma-separated part of `text` (all but the last when `keepLast`, which
   * stays in the field); stops at the first that breaks the rule, which stays in the
   * field with what follows it, to be corrected.
   */
  function addAll(text, keepLast) {
    const parts = text.split(',');
    const rest = keepLast ? (parts.pop() ?? '') : '';
    let consumed = 0;
    for (const part of parts) {
      if (!add(part)) {
        // Only what was taken is cut, so the caret stays put while it is corrected.
        if (consumed > 0) input.value = text.slice(consumed).trimStart();
        return false;
      }
      consumed += part.length + 1;
    }
    input.value = rest.trimStart();
    return true;
  }

  function add(text) {
    const tag = text.trim();
    if (tag === '') return true;
    if (!TAG_PATTERN.test(tag)) {
      say(t('ui.tags.invalid', { tag }));
      return false;
    }
    const lower = tag.toLowerCase();
    error.textContent = '';
    if (tags.includes(lower)) return true;
    if (tags.length >= TAGS_PER_LINK) {
      say(t('ui.tags.tooMany', { count: TAGS_PER_LINK }));
      return false;
    }
    tags = [...tags, lower];
    render();
    status.textContent = t('ui.tags.added', { tag: lower });
    return true;
  }

  function remove(tag) {
    tags = tags.filter((kept) => kept !== tag);
    error.textContent = '';
    render();
    status.textContent = t('ui.tags.removed', { tag });
    input.focus(); // the button pressed is gone
  }

  function say(message) {
    error.textContent = message;
    input.focus();
  }

  function render() {
    chips.replaceChildren(
      ...tags.map((tag) => {
        const chip = document.createElement('li');
        chip.className = 'chip';
        const text = document.createElement('span');
        text.textContent = tag;
        const button = document.createElement('button');
        button.type = 'button';
        button.className = 'chip-remove';
        button.textContent = '×';
        button.setAttribute('aria-label', t('ui.tags.remove', { tag }));
        button.addEventListener('click', () => remove(tag));
        chip.append(text, button);
        return chip;
      }),
    );
  }

  return {
    /** The chips, after adding what is still typed; null (the reason shown) when that breaks the rule. */
    take() {
      if (!commit()) return null;
      error.textContent = '';
      return [...tags];
    },
    /** The chips shown, in the order added. */
    get value() {
      return [...tags];
    },
    /** Shows `list` as the chips, with nothing typed. */
    set(list) {
      tags = [...list];
      input.value = '';
      error.textContent = '';
      status.textContent = '';
      render();
    },
    reset() {
      this.set([]);
    },
  };
}

/** Whether two tag lists hold the same tags, whatever their order. */
export function sameTags(a, b) {
  return a.length === b.length && [...a].sort().join(',') === [...b].sort().join(',');
}
