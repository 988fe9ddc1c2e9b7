// The Edit dialog's preview card (docs/link-previews.md): what chat apps show when the short
// link is pasted. None, automatic (read from the target page once saved; its state as the
// details give it) or custom (title, description, image), drawn as a card beside the fields
// as they are typed, so the person sees what a chat app will show.

import { element, field, input, section, uniqueId } from './editor-parts.js';

export const TITLE_MAX = 200;
export const DESCRIPTION_MAX = 500;
export const IMAGE_MAX = 2048;

/** How long typing in the image field rests before the image is fetched. */
const IMAGE_PAUSE_MS = 300;

/** url: the dialog's target URL field (a new target means the page is read anew). */
export function createPreviewEditor({ url }) {
  const part = section(
    'Preview card',
    'What Slack, WhatsApp, iMessage and other apps show when the short link is pasted. People are still sent straight on.',
  );

  const name = uniqueId('edit-preview-mode');
  const choice = element('fieldset', 'choice');
  choice.append(element('legend', 'visually-hidden', 'Preview card'));
  const options = element('div', 'options');
  const radios = {};
  for (const [value, text] of [
    ['none', 'None'],
    ['auto', 'Automatic, from the target page'],
    ['custom', 'Custom'],
  ]) {
    const label = element('label', 'option');
    const radio = input('radio', { name, value });
    label.append(radio, ` ${text}`);
    options.append(label);
    radios[value] = radio;
  }
  choice.append(options);

  const autoBox = element('div', 'preview-auto');
  const state = element('p', 'preview-state');
  const againLabel = element('label', 'option');
  const again = input('checkbox');
  againLabel.append(again, ' Read the page again');
  autoBox.append(state, againLabel);

  const title = input('text', { maxlength: TITLE_MAX });
  const description = document.createElement('textarea');
  description.rows = 3;
  description.maxLength = DESCRIPTION_MAX;
  const image = input('url', { inputmode: 'url', maxlength: IMAGE_MAX, placeholder: 'https://' });
  const customBox = element('div', 'preview-fields');
  customBox.append(
    field('Title', title, `Up to ${TITLE_MAX} characters.`),
    field('Description', description, `Up to ${DESCRIPTION_MAX} characters.`),
    field('Image URL', image, 'An https:// address, up to 2,048 characters.'),
  );

  const figure = element('figure', 'preview-figure');
  const caption = element('figcaption', 'hint', 'How a chat app shows it');
  const card = element('div', 'preview-card');
  const picture = element('img', 'preview-card-image');
  picture.alt = ''; // the card's words say what it is; the picture is its look
  const words = element('div', 'preview-card-text');
  const cardHost = element('p', 'preview-card-host');
  const cardTitle = element('p', 'preview-card-title');
  const cardDescription = element('p', 'preview-card-description');
  const pictureNote = element('p', 'hint');
  words.append(cardHost, cardTitle, cardDescription, pictureNote);
  card.append(picture, words);
  figure.append(caption, card);
  const emptyNote = element('p', 'hint', 'The card shows here as you fill it in.');
  part.body.append(choice, autoBox, customBox, figure, emptyNote);

  let stored = null; // the preview the dialog opened with (details' `preview`)
  let original = ''; // the target URL it opened with
  let imageTimer;

  const chosen = () => Object.keys(radios).find((key) => radios[key].checked) ?? 'none';
  const typed = () => ({
    title: title.value.trim(),
    description: description.value.trim(),
    image: image.value.trim(),
  });

  choice.addEventListener('change', () => {
    // Custom starts from the card read from the page, when there is one to start from.
    const { title: t, description: d, image: i } = typed();
    if (chosen() === 'custom' && t === '' && d === '' && i === '' && stored?.status === 'ready') {
      title.value = stored.title ?? '';
      description.value = stored.description ?? '';
      image.value = stored.image ?? '';
    }
    render();
  });
  again.addEventListener('change', render);
  url.addEventListener('input', () => {
    if (chosen() === 'auto') render();
  });
  title.addEventListener('input', render);
  description.addEventListener('input', render);
  image.addEventListener('input', () => {
    clearTimeout(imageTimer);
    imageTimer = setTimeout(render, IMAGE_PAUSE_MS);
  });
  picture.addEventListener('load', () => {
    pictureNote.textContent = '';
  });
  picture.addEventListener('error', () => {
    if (!picture.hasAttribute('src')) return;
    picture.hidden = true;
    pictureNote.textContent = 'The image could not be loaded.';
  });

  /** Shows what the choice needs, and the card as it stands. */
  function render() {
    const mode = chosen();
    part.showState({ none: 'none', auto: 'automatic', custom: 'custom' }[mode]);
    autoBox.hidden = mode !== 'auto';
    customBox.hidden = mode !== 'custom';
    let shownCard = null;
    if (mode === 'custom') {
      shownCard = typed();
    } else if (mode === 'auto') {
      const readAgain = stored?.mode === 'auto' && stored.status !== 'pending';
      againLabel.hidden = !readAgain;
      state.textContent = autoState();
      if (readAgain && !again.checked && stored.status === 'ready' && sameTarget()) {
        shownCard = stored;
      }
    }
    const filled =
      shownCard !== null && Boolean(shownCard.title || shownCard.description || shownCard.image);
    figure.hidden = !filled;
    emptyNote.hidden = mode !== 'custom' || filled;
    if (filled) drawCard(shownCard);
  }

  /** The state of an automatic preview, in words. */
  function autoState() {
    if (stored?.mode !== 'auto') return 'The target page is read once you save.';
    if (!sameTarget()) return 'The new target page is read once you save.';
    if (again.checked) return 'The page is read again once you save.';
    if (stored.status === 'pending') return 'Reading the page…';
    if (stored.status === 'failed') return `The page could not be read: ${stored.error}.`;
    return stored.title || stored.description || stored.image
      ? 'Read from the target page:'
      : 'The target page has no card to show.';
  }

  const sameTarget = () => url.value.trim() === original;

  function drawCard(shownCard) {
    cardTitle.textContent = shownCard.title ?? '';
    cardTitle.hidden = !shownCard.title;
    cardDescription.textContent = shownCard.description ?? '';
    cardDescription.hidden = !shownCard.description;
    // Only an https image is fetched: that is all a chat app would show.
    const source = isHttpsUrl(shownCard.image) ? shownCard.image : '';
    if (source === '') {
      picture.hidden = true;
      picture.removeAttribute('src');
      pictureNote.textContent = '';
    } else if (picture.getAttribute('src') !== source) {
      picture.hidden = false;
      pictureNote.textContent = '';
      picture.src = source;
    }
  }

  return {
    element: part.details,
    /** Shows the preview of a link's details; `host` is its short link's, as the card names it. */
    set(detail, host) {
      stored = detail.preview ?? null;
      original = detail.original_url;
      cardHost.textContent = host;
      const manual = stored?.mode === 'manual' ? stored : null;
      title.value = manual?.title ?? '';
      description.value = manual?.description ?? '';
      image.value = manual?.image ?? '';
      again.checked = false;
      radios[stored === null ? 'none' : stored.mode === 'auto' ? 'auto' : 'custom'].checked = true;
      part.reset();
      render();
    },
    /**
     * What saving sends: `{change}` (null, "auto" or the card; undefined when it is as it
     * was), or `{message, control}` when the card cannot be sent as it is.
     */
    take() {
      const mode = chosen();
      if (mode === 'none') return stored === null ? {} : { change: null };
      if (mode === 'auto') {
        return stored?.mode === 'auto' && !again.checked ? {} : { change: 'auto' };
      }
      const given = typed();
      if (given.image !== '' && !isHttpsUrl(given.image)) {
        return { message: 'Preview card: the image must be an https:// address.', control: image };
      }
      if (given.title === '' && given.description === '' && given.image === '') {
        return {
          message: 'Preview card: give it a title, a description or an image, or choose None.',
          control: title,
        };
      }
      const sent = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== ''));
      const same =
        stored?.mode === 'manual' &&
        ['title', 'description', 'image'].every((key) => (stored[key] ?? '') === given[key]);
      return same ? {} : { change: sent };
    },
    /** The control a server's message names (`preview.image: …`). */
    controlAt(place) {
      if (place.startsWith('preview.description')) return description;
      if (place.startsWith('preview.image')) return image;
      return chosen() === 'custom' ? title : radios[chosen()];
    },
  };
}

function isHttpsUrl(value) {
  return typeof value === 'string' && value.startsWith('https://') && URL.canParse(value);
}
