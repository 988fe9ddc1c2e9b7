// TypeBox schemas of the account endpoints: what Elysia validates and what the OpenAPI
// document shows. Field rules are the domain's (see http/model.ts).

import { Type } from '@sinclair/typebox';
import { t } from 'elysia';
import {
  checkPassword,
  EMAIL_MAX_LENGTH,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  parseEmail,
  parseRegistration,
  requireCredentials,
} from '../domain/accounts.ts';
import { bodyError, ruleFormat } from '../http/model.ts';

// An e-mail is trimmed before it is checked, so its pattern allows the spaces around
// it; inside, one @ and a dot in the domain. JSON Schema counts lengths in code points,
// as the password rule does.
const email = ruleFormat('kurz-email', parseEmail, {
  pattern: '^\\s*[^\\s@]+@[^\\s@.][^\\s@]*\\.[^\\s@]+\\s*$',
});
const password = ruleFormat('kurz-password', checkPassword, {
  minLength: PASSWORD_MIN_LENGTH,
  maxLength: PASSWORD_MAX_LENGTH,
});

const registerError = bodyError(parseRegistration);
export const RegisterBody = t.Object(
  {
    email: t.String({
      format: email,
      error: registerError,
      description: `Trimmed and lower-cased; then at most ${EMAIL_MAX_LENGTH} characters, of the form local@domain.tld.`,
      examples: ['ann@example.com'],
    }),
    password: t.String({
      format: password,
      error: registerError,
      description: `${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters (Unicode code points).`,
      examples: ['correct horse 42'],
    }),
  },
  { error: registerError, title: 'RegisterRequest', description: 'A new account.' },
);

const loginError = bodyError(requireCredentials);
export const LoginBody = t.Object(
  {
    email: t.String({ error: loginError, examples: ['ann@example.com'] }),
    password: t.String({ error: loginError, examples: ['correct horse 42'] }),
  },
  { error: loginError, title: 'Credentials', description: 'A registered account.' },
);

export const Session = t.Object(
  {
    token: t.String({ description: 'An HS256 JWT for `Authorization: Bearer <token>`.' }),
    user: t.Object(
      { id: Type.Integer(), email: t.String({ description: 'Trimmed and lower-cased.' }) },
      { title: 'User', description: 'The public user.' },
    ),
  },
  { title: 'Session', description: 'A token and the public user.' },
);

export const SignInMethods = t.Object(
  {
    password: t.Boolean({
      description: 'Whether e-mail and password sign in (`--password-login`).',
    }),
    registration: t.Union([t.Literal('open'), t.Literal('closed')], {
      description:
        '`closed`: only the operator makes accounts (and, with `--oidc-allowed-domains`, the provider for those domains).',
    }),
    oidc: t.Union(
      [
        t.Object(
          {
            name: t.String({ description: "The button's label (`--oidc-name`)." }),
            login_url: t.String({
              description: 'Where the button leads: GET it in the browser (not with fetch).',
              examples: ['/api/auth/oidc/login'],
            }),
          },
          { title: 'OidcMethod' },
        ),
        t.Null(),
      ],
      { description: 'Sign-in through an OpenID Provider; null when none is configured.' },
    ),
  },
  { title: 'SignInMethods', description: 'How people may sign in, for a sign-in page.' },
);

/** A page of the OIDC sign-in, for the OpenAPI document (its words are English's). */
export const OidcPage = (description: string) =>
  t.String({
    contentMediaType: 'text/html',
    description: `${description} In the browser's language (the \`kurz-lang\` cookie, else \`Accept-Language\`, else English).`,
  });
