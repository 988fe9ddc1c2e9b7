// The preview a link shows link-preview crawlers (chat and social apps): given by hand
// (`{title, description, image}`) or `"auto"`, read once from the target page in the
// background. Kept as JSON text with its state, so the store stays ignorant of it.

import { badRequest, Messages, placedRequest } from './errors.ts';
import { codePointLength } from './sources.ts';

export const PREVIEW_TITLE_MAX = 200;
export const PREVIEW_DESCRIPTION_MAX = 500;
export const PREVIEW_IMAGE_MAX = 2048;

/** A preview as the store keeps it and details show it. */
export interface StoredPreview {
  /** `manual`: given; `auto`: read from the target page. */
  mode: 'manual' | 'auto';
  /** `pending`: an auto preview not read yet; `failed`: it could not be (see `error`). */
  status: 'ready' | 'pending' | 'failed';
  title: string | null;
  description: string | null;
  image: string | null;
  /** Why an auto preview could not be read. */
  error: string | null;
}

/** What a create or PATCH body asks for: undefined (absent), null (none), `auto`, or the card. */
export type PreviewAsk = StoredPreview | null | undefined;

/** `preview` of a create or PATCH body; the first broken part throws its 400. */
export function parsePreview(value: unknown): PreviewAsk {
  if (value === undefined || value === null) return value;
  if (value === 'auto') return pendingPreview();
  if (typeof value !== 'object' || Array.isArray(value)) throw badRequest(Messages.previewRule);
  const card = value as Record<string, unknown>;
  const title = text(card.title, PREVIEW_TITLE_MAX, 'preview.title', Messages.previewTitle);
  const description = text(
    card.description,
    PREVIEW_DESCRIPTION_MAX,
    'preview.description',
    Messages.previewDescription,
  );
  const image = imageUrl(card.image);
  if (title === null && description === null && image === null) {
    throw badRequest(Messages.previewRule);
  }
  return { mode: 'manual', status: 'ready', title, description, image, error: null };
}

/** An auto preview not read yet. */
export function pendingPreview(): StoredPreview {
  return {
    mode: 'auto',
    status: 'pending',
    title: null,
    description: null,
    image: null,
    error: null,
  };
}

function text(
  value: unknown,
  max: number,
  place: string,
  message: typeof Messages.previewTitle | typeof Messages.previewDescription,
): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || codePointLength(value) > max || !value.isWellFormed()) {
    throw placedRequest(place, message);
  }
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed;
}

function imageUrl(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (
    typeof value !== 'string' ||
    value.length > PREVIEW_IMAGE_MAX ||
    !value.startsWith('https://') ||
    /[\s\p{Cc}]/u.test(value) ||
    URL.parse(value) === null
  ) {
    throw placedRequest('preview.image', Messages.previewImage);
  }
  return value;
}

/** A stored preview's JSON text; null for none. */
export function previewText(preview: StoredPreview | null): string | null {
  return preview === null ? null : JSON.stringify(preview);
}

/** A stored preview read back; null for none. */
export function storedPreview(text: string | null): StoredPreview | null {
  return text === null ? null : (JSON.parse(text) as StoredPreview);
}

/** Whether a preview has something to show a crawler. */
export function showsCard(preview: StoredPreview | null): preview is StoredPreview {
  return (
    preview !== null &&
    preview.status === 'ready' &&
    (preview.title !== null || preview.description !== null || preview.image !== null)
  );
}
