// The short domains links may be made on (GET /api/domains), and what the page derives
// from a link's domain: its short URL, the name it is shown by, and the API path of its
// per-link calls. A code is unique per domain, so every per-link call names the link's
// domain (`?domain=`), and a link is told apart from its namesake on another domain by
// its host (`go.example.com/promo`; the default domain's links by the code alone).

/** baseUrl: the default domain's, from the page, used until (or unless) the list arrives. */
export function createDomains({ api, baseUrl }) {
  const fallback = [{ domain: hostOf(baseUrl), base_url: baseUrl, default: true }];
  let list = fallback;
  const listeners = [];

  const defaultDomain = () => list.find((d) => d.default) ?? list[0];
  const isDefault = (host) => host === undefined || host === defaultDomain().domain;

  function baseUrlOf(host) {
    const found = host === undefined ? undefined : list.find((d) => d.domain === host);
    return (found ?? defaultDomain()).base_url.replace(/\/+$/, '');
  }

  return {
    /** Reads the list again; a failure (or a kurz without the endpoint) keeps the default alone. */
    async load() {
      try {
        const { body } = await api.get('/api/domains');
        list = Array.isArray(body) && body.length > 0 ? body : fallback;
      } catch {
        list = fallback;
      }
      for (const listener of listeners) listener();
    },
    /** Forgets the list (on logout), so the next person's is read afresh. */
    clear() {
      list = fallback;
      for (const listener of listeners) listener();
    },
    /** Calls `listener` whenever the list may have changed. */
    onChange(listener) {
      listeners.push(listener);
    },
    /** The domains, default first. */
    all: () => list,
    /** Whether there is a choice to offer: pickers show only then. */
    get several() {
      return list.length > 1;
    },
    isDefault,
    baseUrlOf,
    /** The link's full short URL: the server's when it gave one. */
    shortUrlOf(link) {
      return link.short_url ?? `${baseUrlOf(link.domain)}/${link.short_code}`;
    },
    /** How the page names a link in headings and buttons: the code, with its host off the default domain. */
    nameOf(link) {
      return isDefault(link.domain) ? link.short_code : `${link.domain}/${link.short_code}`;
    },
    /** The file name the server gives the link's clicks.csv. */
    csvNameOf(link) {
      const name = isDefault(link.domain) ? link.short_code : `${link.domain}-${link.short_code}`;
      return `${name.replace(/[^A-Za-z0-9._-]/g, '_')}-clicks.csv`;
    },
    /** `/api/links/{code}{suffix}` on the link's domain, with `params` in the query. */
    pathOf(link, suffix = '', params = {}) {
      const query = new URLSearchParams(params);
      if (link.domain !== undefined) query.set('domain', link.domain);
      const search = query.toString();
      return `/api/links/${encodeURIComponent(link.short_code)}${suffix}${search ? `?${search}` : ''}`;
    },
    /**
     * Fills a <select> with the domains (after `first`, an option of its own such as
     * "All domains"), keeping the chosen one when it is still there.
     */
    fill(select, first) {
      const chosen = select.value;
      const options = list.map((d) => new Option(d.domain, d.domain));
      if (first !== undefined) options.unshift(new Option(first, ''));
      select.replaceChildren(...options);
      if ([...select.options].some((option) => option.value === chosen)) select.value = chosen;
    },
  };
}

function hostOf(url) {
  try {
    return new URL(url).host;
  } catch {
    return location.host;
  }
}
