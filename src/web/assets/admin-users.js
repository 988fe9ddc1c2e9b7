// The admin section's users (accounts mode): GET /api/admin/users, searched by e-mail,
// 50 a page. Each can be disabled (their tokens and keys stop at once) or enabled again,
// made an admin or no longer one (PATCH /api/admin/users/{id}), and removed, with or
// without their links (DELETE …?links=keep|delete), after a confirmation. The admin's
// own row offers none of these: the server refuses them anyway.

import { badge, createPagedList, setBadges, whenTyped } from './admin-list.js';
import { byId, setText } from './dom.js';
import { formatDateTime, formatNumber, t } from './i18n.js';

const SIGN_IN = {
  password: () => t('admin.signIn.password'),
  oidc: () => t('admin.signIn.oidc'),
};

export function createAdminUsers({ api, dialog, session }) {
  const section = byId('admin-users');
  const heading = byId('users-title');
  const search = byId('users-q');
  const template = byId('user-row');
  let typed = '';

  const list = createPagedList({
    prefix: 'users',
    holder: 'users',
    loadingText: t('admin.users.loading'),
    emptyText: () => (typed ? t('admin.users.noMatch', { query: typed }) : t('admin.users.none')),
    keyOf: (user) => user.id,
    fetchPage(offset, limit) {
      const query = new URLSearchParams({ limit: String(limit), offset: String(offset) });
      if (typed) query.set('q', typed);
      return api.get(`/api/admin/users?${query}`);
    },
    createRow(id) {
      const row = template.content.firstElementChild.cloneNode(true);
      const user = () => list.item(id);
      row.querySelector('.disable-button').addEventListener('click', () => {
        const current = user();
        change(current, { disabled: !current.disabled });
      });
      row.querySelector('.admin-button').addEventListener('click', () => {
        const current = user();
        change(current, { admin: !current.admin });
      });
      const remove = row.querySelector('.remove-button');
      remove.addEventListener('click', () => confirmRemove(user(), remove));
      return row;
    },
    fillRow(row, user) {
      const self = isSelf(user);
      setText(row.querySelector('.user-email'), user.email);
      const badges = [];
      if (self) badges.push(badge(t('admin.badge.you'), 'badge-self'));
      if (user.admin) badges.push(badge(t('admin.badge.admin'), 'badge-admin'));
      if (user.disabled) {
        const since = user.disabled_at
          ? t('admin.badge.since', { date: formatDateTime(user.disabled_at) })
          : '';
        badges.push(badge(t('admin.badge.disabled'), 'badge-disabled', since));
      }
      setBadges(row.querySelector('.badges'), badges);
      const created = row.querySelector('.cell-date time');
      created.dateTime = user.created_at;
      setText(created, formatDateTime(user.created_at));
      setText(row.querySelector('.cell-count'), formatNumber(user.links ?? 0));
      const ways = (user.sign_in ?? []).map((way) => SIGN_IN[way]?.() ?? way);
      setText(
        row.querySelector('.cell-sign-in'),
        ways.length > 0 ? ways.join(', ') : t('admin.users.signInNone'),
      );
      // The visible word first in each name, so speech input ("click Disable") finds it.
      const disable = row.querySelector('.disable-button');
      const email = user.email;
      setText(disable, user.disabled ? t('admin.enable') : t('admin.disable'));
      disable.setAttribute(
        'aria-label',
        user.disabled
          ? t('admin.enableLabel', { name: email })
          : t('admin.disableLabel', { name: email }),
      );
      const admin = row.querySelector('.admin-button');
      setText(admin, user.admin ? t('admin.users.removeAdmin') : t('admin.users.makeAdmin'));
      admin.setAttribute(
        'aria-label',
        user.admin
          ? t('admin.users.removeAdminLabel', { email })
          : t('admin.users.makeAdminLabel', { email }),
      );
      row
        .querySelector('.remove-button')
        .setAttribute('aria-label', t('admin.users.removeLabel', { email }));
      for (const button of row.querySelectorAll('.row-actions .button')) button.hidden = self;
    },
  });

  const isSelf = (user) => user.email.toLowerCase() === session.email.toLowerCase();

  whenTyped(search, () => {
    typed = search.value.trim();
    list.first();
  });

  async function change(user, patch) {
    list.quiet();
    try {
      const { body } = await api.patch(`/api/admin/users/${user.id}`, patch);
      list.update(body ?? { ...user, ...patch });
      list.say(changed(patch, user.email));
    } catch (e) {
      if (e.status !== 401) list.fail(e.message);
    }
  }

  /** What the status line says once `patch` is done to the user of `email`. */
  function changed(patch, email) {
    if (patch.disabled !== undefined) {
      return patch.disabled
        ? t('admin.users.disabled', { email })
        : t('admin.users.enabled', { email });
    }
    return patch.admin
      ? t('admin.users.madeAdmin', { email })
      : t('admin.users.noLongerAdmin', { email });
  }

  function confirmRemove(user, opener) {
    list.quiet();
    const links = user.links ?? 0;
    dialog.ask({
      heading: t('admin.users.removeTitle', { email: user.email }),
      text: t('admin.users.removeText', { count: links }),
      confirm: t('admin.users.remove'),
      links: true,
      opener,
      async run({ links: what }) {
        await api.delete(`/api/admin/users/${user.id}?links=${what}`);
        const [neighbour] = list.neighbours(user.id);
        list.remove(user.id);
        const email = user.email;
        list.say(
          what === 'delete'
            ? t('admin.users.removedWithLinks', { email })
            : t('admin.users.removed', { email }),
        );
        return neighbour?.querySelector('.remove-button:not([hidden])') ?? heading;
      },
    });
  }

  return {
    section,
    heading,
    enter: () => list.load(),
    leave() {},
    reset() {
      typed = '';
      search.value = '';
      list.reset();
    },
  };
}
