// Modal dialogs: <dialog> opened with showModal(), so the browser keeps focus inside,
// makes the page behind inert and closes it on Escape. What this adds: focus goes back
// to the control that opened the dialog, or to a fallback when that control is gone
// (a deleted row's button), and [data-close] buttons close it.

/**
 * Opens `dialog` as a modal, focusing `focus` (or the first field). On close, focus
 * returns to `opener`, or to `fallback()` when the opener is no longer in the page.
 */
export function openModal(dialog, { opener, focus, fallback } = {}) {
  dialog.addEventListener(
    'close',
    () => {
      // A hidden opener (the page behind was swapped for the login form) cannot take focus.
      const target = opener?.isConnected && opener.offsetParent !== null ? opener : fallback?.();
      target?.focus();
    },
    { once: true },
  );
  dialog.showModal();
  (focus ?? dialog.querySelector('input:not([type="hidden"]):not([disabled]), button'))?.focus();
}

/** Wires the [data-close] buttons of every dialog in the page, once. */
export function wireCloseButtons() {
  for (const button of document.querySelectorAll('dialog [data-close]')) {
    button.addEventListener('click', () => button.closest('dialog')?.close());
  }
}
