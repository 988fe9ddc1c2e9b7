// Shared TypeBox pieces for route schemas: the error body, the responses and headers
// routes declare, and the bridge from a domain rule to a schema, so that a route's
// schema (which Elysia validates and the OpenAPI document describes) and the domain's
// checks are one and the same rule.

import { Type } from '@sinclair/typebox';
import { type TSchema, t } from 'elysia';
import { FormatRegistry } from 'elysia/type-system';
import { ApiError, type Message, Messages } from '../domain/errors.ts';

/** A schema's `title` names it: the OpenAPI document lists it once, as a component. */
export const ErrorBody = t.Object(
  { error: t.String({ description: 'What went wrong, in words a person can act on.' }) },
  { title: 'Error', description: 'Every error: `{"error": "<message>"}`.' },
);

/** JSON Schema keywords that say a rule's format in standard terms, by format name. */
const ruleKeywords = new Map<string, Record<string, unknown>>();

/**
 * Registers a string format that holds exactly when the domain rule accepts the value,
 * so that validation runs the domain's own check. `keywords` say the same rule in
 * standard JSON Schema for the published document (formats of our own mean nothing to
 * other tools): they must hold for every value the rule accepts, and are made from the
 * rule's own constants.
 */
export function ruleFormat(
  name: string,
  rule: (value: string) => unknown,
  keywords: Record<string, unknown>,
): string {
  FormatRegistry.Set(name, (value) => {
    try {
      rule(value);
      return true;
    } catch {
      return false;
    }
  });
  ruleKeywords.set(name, keywords);
  return name;
}

/** The standard keywords of a format registered by ruleFormat, if it is one. */
export function keywordsOfRule(format: string): Record<string, unknown> | undefined {
  return ruleKeywords.get(format);
}

/**
 * The `error` option for every schema node of a body: when Elysia's validation fails,
 * the domain's own parser, run on the whole body, names the first failing rule in the
 * order the API documents (schemas only say *that* a body is wrong, parsers say *why*).
 */
export function bodyError(parse: (body: Record<string, unknown>) => unknown) {
  return ({ value }: { value: unknown }): Message => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return Messages.bodyNotObject;
    }
    try {
      parse(value as Record<string, unknown>);
    } catch (error) {
      if (error instanceof ApiError) return error.message;
      throw error;
    }
    return Messages.bodyNotObject;
  };
}

/**
 * A JSON request body for a route's `detail.requestBody`: shown by the OpenAPI document
 * but not validated by Elysia, for a route that checks its body itself (part by part,
 * answering each part on its own). The document turns the schema into plain JSON Schema
 * as it does every route's.
 */
export function documentedBody(schema: TSchema) {
  // The generator's type wants JSON Schema; a TypeBox schema is one, with extra symbols.
  const json = schema as unknown as { type: 'object' };
  return { required: true, content: { 'application/json': { schema: json } } };
}

/** Marks a header schema as sent only sometimes; a header without it is always sent. */
export const SOMETIMES = 'x-kurz-sometimes';

/**
 * A response schema with the headers the answer carries, for the document (the
 * generator reads `headers`; each header's description says what it holds, and one sent
 * only sometimes has `[SOMETIMES]: true` among its options).
 */
export function withHeaderSchemas<S extends TSchema>(
  schema: S,
  headers: Record<string, TSchema>,
): S {
  return { ...schema, headers };
}

/** Headers of the answers kurz sends, by name. */
export const ResponseHeaders = {
  wwwAuthenticate: t.String({
    const: 'Bearer',
    description: '`Bearer` (RFC 6750): the request needs `Authorization: Bearer <token>`.',
  }),
  retryAfter: Type.Integer({
    minimum: 0,
    description: 'Whole seconds until a request may pass again.',
  }),
  requestId: t.String({
    description: 'The id under which the fault was logged, to quote when reporting it.',
  }),
};

/**
 * The 403s a browser's write may get before any route sees it (http/cross-origin.ts), for
 * the document of every route that changes something.
 */
export const BROWSER_REFUSALS = `\`${Messages.crossOrigin}\`: a browser sent it from a site not allowed by \`--cors-origins\`. \`${Messages.unknownHost}\`: a browser sent it under a host name that is none of kurz's own (its base URL's, an IP address, \`localhost\`, one of \`--allowed-hosts\`), as a page does after DNS rebinding.`;

/** What each error status means on kurz's routes, and the headers it carries. */
const ERRORS = {
  400: { description: 'The request breaks a rule; the message says which.' },
  401: {
    description: '`Unauthorized`: the bearer token is missing, invalid or expired.',
    headers: { 'WWW-Authenticate': ResponseHeaders.wwwAuthenticate },
  },
  403: {
    description: `${BROWSER_REFUSALS} \`Forbidden\`: an API key outside its scope (a \`read\` key may only GET). Creating a link in accounts mode may also answer \`Link limit reached\`: the account owns as many links as the operator allows.`,
  },
  404: { description: '`Not found`.' },
  408: {
    description: '`Request timeout`: the body did not arrive whole within 10 s of the headers.',
  },
  410: {
    description: '`Link expired`: past its `expires_at`, or its `max_clicks` clicks are counted.',
  },
  413: { description: '`Request body too large`: over 64 KiB.' },
  429: {
    description: '`Too many requests`: a rate limit was reached.',
    headers: { 'Retry-After': ResponseHeaders.retryAfter },
  },
  500: {
    description: '`Internal server error`: an unexpected fault, logged with a request id.',
    headers: { 'X-Request-Id': ResponseHeaders.requestId },
  },
  503: { description: '`Database unavailable`.' },
} as const;

export type ErrorStatus = keyof typeof ERRORS;

interface ErrorMeaning {
  description: string;
  headers?: Record<string, TSchema>;
}

/**
 * The error body answered with `status`, as that status means on any route, or as
 * `meaning` says where a route gives it a meaning of its own.
 */
export function errorResponse(status: ErrorStatus, meaning: ErrorMeaning = ERRORS[status]) {
  const schema = t.Object(ErrorBody.properties, {
    title: 'Error',
    description: meaning.description,
  });
  return meaning.headers ? withHeaderSchemas(schema, meaning.headers) : schema;
}

/** Response schemas of the errors a route can answer, for the OpenAPI document. */
export function errorResponses(...statuses: ErrorStatus[]) {
  return Object.fromEntries(statuses.map((status) => [status, errorResponse(status)])) as Record<
    number,
    typeof ErrorBody
  >;
}
