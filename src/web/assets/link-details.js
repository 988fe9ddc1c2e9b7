// The settings of listed links (expiry, click limit, password), for the list's badges.
// GET /api/links answers only the six fields of the link object, so each row's detail
// comes from GET /api/links/{code}. Fetched when a row first shows (a page holds at most
// 50), four at a time so that the list's poll and the person's own actions are never
// stuck behind a burst of them, and again only when something that can change the
// status changed (see detailNeeded() below).

const CONCURRENCY = 4;

/**
 * onDetail(detail, askedAt) is called with each fetched detail (while not cleared since);
 * askedAt is when it was asked for (performance.now()), so an answer older than a change
 * made meanwhile can be told apart.
 */
export function createDetailsQueue({ api, onDetail }) {
  const waiting = []; // codes, oldest first
  const pending = new Set(); // waiting or being fetched
  let running = 0;
  let epoch = 0; // bumps on clear(); answers of an older epoch are dropped

  function pump() {
    while (running < CONCURRENCY && waiting.length > 0) {
      const code = waiting.shift();
      running++;
      const turn = epoch;
      const askedAt = performance.now();
      api
        .get(`/api/links/${encodeURIComponent(code)}`)
        .then(({ body }) => {
          if (turn === epoch) onDetail(body, askedAt);
        })
        // A 404 (deleted meanwhile) or a failure leaves the row as it was; a 401 has ended
        // the session already. The next change of the row asks again.
        .catch(() => {})
        .finally(() => {
          if (turn !== epoch) return;
          running--;
          pending.delete(code);
          pump();
        });
    }
  }

  return {
    /** Asks for the detail of `code`, unless it is asked for already. */
    request(code) {
      if (pending.has(code)) return;
      pending.add(code);
      waiting.push(code);
      pump();
    },
    /** Forgets everything asked (logout). */
    clear() {
      epoch++;
      waiting.length = 0;
      pending.clear();
      running = 0;
    },
  };
}

/**
 * Whether a row's detail must be fetched (again): none yet; its click limit may have been
 * reached (the count changed); or its expiry time has passed since it was read.
 */
export function detailNeeded(detail, clicks, now = Date.now()) {
  if (detail === undefined) return true;
  if (detail.status === 'expired') return false; // it stays so until edited, and edits answer the detail
  if (detail.max_clicks !== null && clicks !== detail.clicks) return true;
  return detail.expires_at !== null && Date.parse(detail.expires_at) <= now;
}
