// Shared TypeBox pieces for route schemas: the error body, and the bridge from a
// domain rule to a schema, so that a route's schema (which Elysia validates and the
// OpenAPI document describes) and the domain's checks are one and the same rule.

import { t } from 'elysia';
import { FormatRegistry } from 'elysia/type-system';
import { ApiError, type Message, Messages } from '../domain/errors.ts';

export const ErrorBody = t.Object(
  { error: t.String({ description: 'What went wrong, in words a person can act on.' }) },
  { description: 'Every error: `{"error": "<message>"}`.' },
);

/** Registers a string format that holds exactly when the domain rule accepts the value. */
export function ruleFormat(name: string, rule: (value: string) => unknown): string {
  FormatRegistry.Set(name, (value) => {
    try {
      rule(value);
      return true;
    } catch {
      return false;
    }
  });
  return name;
}

/**
 * The `error` option for every schema node of a body: when Elysia's validation fails,
 * the domain's own parser, run on the whole body, names the first failing rule in the
 * order decisions.md gives (schemas only say *that* a body is wrong, parsers say *why*).
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

/** Response schemas of the errors a route can answer, for the OpenAPI document. */
export function errorResponses(...statuses: (400 | 401 | 403 | 404 | 413 | 500 | 503)[]) {
  return Object.fromEntries(statuses.map((status) => [status, ErrorBody])) as Record<
    number,
    typeof ErrorBody
  >;
}
