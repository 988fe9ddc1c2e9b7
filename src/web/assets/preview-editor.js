// The Edit dialog's preview card (docs/link-previews.md): what chat apps show when the short
// link is pasted. None, automatic (read from the target page once saved; its state as the
// details give it) or custom (title, description, image), drawn as a card beside the fields
// as they are typed, so the person sees what a chat app will show.

import { element, field, input, section, uniqueId } from './editor-parts.js';
import { t } from './i18n.js';

export const TITLE_MAX = 200;
export const DESCRIPTION_MAX = 500;
export const IMAGE_MAX = 2048;

/** How long typing in the image field rests before the image is fetched. */
const IMAGE_PAUSE_MS = 300;

/** url: the dialog's target URL field (a new target means the page is read anew). */
export function createPreviewEditor({ url }) {
  const part = section(t('ui.preview.title'), t('ui.preview.lead'));

  const name = uniqueId('edit-preview-mode');
  const choice = element('fieldset', 'choice');
  choice.append(element('legend', 'visually-hidden', t('ui.preview.title')));
  const options = element('div', 'options');
  const radios = {};
  for (const [value, text] of [
    ['none', t('ui.preview.none')],
    ['auto', t('ui.preview.auto')],
    ['custom', t('ui.preview.custom')],
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
  againLabel.append(again, ` ${t('ui.preview.again')}`);
  autoBox.append(state, againLabel);

  const title = input('text', { maxlength: TITLE_MAX });
  const description = document.createElement('textarea');
  description.rows = 3;
  description.maxLength = DESCRIPTION_MAX;
  const image = input('url', { inputmode: 'url', maxlength: IMAGE_MAX, placeholder: 'https://' });
  const customBox = element('div', 'preview-fields');
  customBox.append(
    field(t('ui.preview.cardTitle'), title, t('ui.preview.upTo', { count: TITLE_MAX })),
    field(
      t('ui.preview.description'),
      description,
      t('ui.preview.upTo', { count: DESCRIPTION_MAX }),
    ),
    field(t('ui.preview.image'), image, t('ui.preview.imageHint', { count: IMAGE_MAX })),
  );

  const figure = element('figure', 'preview-figure');
  const caption = element('figcaption', 'hint', t('ui.preview.caption'));
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
  const emptyNote = element('p', 'hint', t('ui.preview.empty'));
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
    pictureNote.textContent = t('ui.preview.imageFailed');
  });

  /** Shows what the choice needs, and the card as it stands. */
  function render() {
    const mode = chosen();
    part.showState(
      t(
        {
          none: 'ui.edit.stateNone',
          auto: 'ui.preview.stateAuto',
          custom: 'ui.preview.stateCustom',
        }[mode],
      ),
    );
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
    if (stored?.mode !== 'auto') return t('ui.preview.readOnSave');
    if (!sameTarget()) return t('ui.preview.newReadOnSave');
    if (again.checked) return t('ui.preview.againOnSave');
    if (stored.status === 'pending') return t('ui.preview.reading');
    if (stored.status === 'failed') return t('ui.preview.failed', { error: stored.error });
    return stored.title || stored.description || stored.image
      ? t('ui.preview.read')
      : t('ui.preview.noCard');
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
        return { message: t('ui.preview.needsHttps'), control: image };
      }
      if (given.title === '' && given.description === '' && given.image === '') {
        return {
          message: t('ui.preview.needsSomething'),
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
