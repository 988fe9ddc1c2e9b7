// Every answer an in-process test receives is held against the app's own OpenAPI
// document (TestApp does it on each request): its status must be declared for the path
// and method, its body valid against the declared schema (JSON) or of a declared content
// type (anything else), and its declared headers well-formed, the required ones present.
// A test that makes the server answer what the document does not say fails.

import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { UNDOCUMENTED_PATHS } from '../../src/web/api-docs.ts';

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document is free-form JSON
type Json = any;

interface Route {
  template: string;
  pattern: RegExp;
  /** Path parameters: a template with fewer matches a path before one with more. */
  params: number;
}

/** `/api/links/{code}` (or Elysia's `/assets/:name`) as a pattern of whole segments. */
function routeOf(template: string): Route {
  const parts = template.split(/(\{[^}]+\}|:[^/]+)/);
  const source = parts
    .map((part, i) => (i % 2 === 1 ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return { template, pattern: new RegExp(`^${source}$`), params: (parts.length - 1) / 2 };
}

function routeFor(routes: Route[], path: string): Route | undefined {
  return routes
    .filter((route) => route.pattern.test(path))
    .sort((a, b) => a.params - b.params || b.template.length - a.template.length)[0];
}

const undocumented = UNDOCUMENTED_PATHS.map(routeOf);

const UNKNOWN_OPERATION = {
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
};

function mediaType(contentType: string | null): string | undefined {
  return contentType?.split(';')[0]?.trim().toLowerCase() || undefined;
}

/** A header's text as the JSON value its schema describes (integers are sent as digits). */
function headerValue(text: string, schema: Json): unknown {
  return schema?.type === 'integer' && /^-?\d+$/.test(text) ? Number(text) : text;
}

export class ResponseChecker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly routes: Route[];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(private readonly doc: Json) {
    addFormats(this.ajv);
    this.routes = Object.keys(doc.paths).map(routeOf);
  }

  /** A validator of `schema`, found at `where` in the document (its `$ref`s resolve against it). */
  private validator(where: string, schema: Json): ValidateFunction {
    let validate = this.validators.get(where);
    if (validate === undefined) {
      validate = this.ajv.compile({ ...schema, components: this.doc.components });
      this.validators.set(where, validate);
    }
    return validate;
  }

  private invalid(where: string, schema: Json, value: unknown): string | undefined {
    const validate = this.validator(where, schema);
    if (validate(value)) return undefined;
    return this.ajv.errorsText(validate.errors, { dataVar: 'body' });
  }

  /**
   * What is wrong with `response`, the answer to `method url`, by the document; empty
   * when nothing is. Reads a clone: the response itself is left unread.
   */
  async problems(request: Request, response: Response): Promise<string[]> {
    const path = new URL(request.url).pathname;
    if (undocumented.some((route) => route.pattern.test(path))) return [];
    // A CORS preflight is the fetch protocol's, answered for any path by the cross-origin
    // hook before routing; the document describes the API's own operations.
    if (request.method === 'OPTIONS' && request.headers.has('access-control-request-method')) {
      return [];
    }
    const body = new Uint8Array(await response.clone().arrayBuffer());
    const route = routeFor(this.routes, path);
    const verb = request.method.toLowerCase();
    const item = route && this.doc.paths[route.template];
    // HEAD is GET without the body (RFC 9110), where the document does not describe it apart.
    const operation = item?.[verb] ?? (verb === 'head' ? item?.get : undefined);
    const status = String(response.status);
    if (operation === undefined) {
      // No such operation: every unknown path or method is 404 `{"error": …}`, unless the
      // cross-origin hook refused it first (403), as it refuses any foreign change.
      const refused = status === '403' && request.headers.has('origin');
      if (status !== '404' && !refused) {
        return [`${status} to an operation the document does not have`];
      }
      return this.bodyProblems('unknown operation', UNKNOWN_OPERATION, verb, response, body);
    }
    const declared = operation.responses[status];
    if (declared === undefined) {
      return [
        `status ${status} is not declared for ${verb.toUpperCase()} ${route?.template} (declared: ${Object.keys(operation.responses).join(', ')})`,
      ];
    }
    const where = `${verb} ${route?.template} ${status}`;
    return [
      ...this.headerProblems(where, declared, response),
      ...this.bodyProblems(where, declared, verb, response, body),
    ];
  }

  private headerProblems(where: string, declared: Json, response: Response): string[] {
    const problems: string[] = [];
    for (const [name, header] of Object.entries((declared.headers ?? {}) as Record<string, Json>)) {
      const text = response.headers.get(name);
      if (text === null) {
        if (header.required) problems.push(`the required header ${name} is missing`);
        continue;
      }
      const wrong = this.invalid(
        `${where} header ${name}`,
        header.schema,
        headerValue(text, header.schema),
      );
      if (wrong) problems.push(`header ${name}: ${JSON.stringify(text)}: ${wrong}`);
    }
    return problems;
  }

  private bodyProblems(
    where: string,
    declared: Json,
    verb: string,
    response: Response,
    body: Uint8Array,
  ): string[] {
    const content = (declared.content ?? {}) as Record<string, Json>;
    const types = Object.keys(content);
    // Bun's server sends no body with a HEAD answer, whatever the app gives it.
    if (verb === 'head') return [];
    if (types.length === 0) {
      return body.length === 0 ? [] : [`a body where none is declared (${body.length} bytes)`];
    }
    const type = mediaType(response.headers.get('content-type'));
    const match = types.find((declaredType) => mediaType(declaredType) === type);
    if (match === undefined) {
      return [`content type ${type} is not declared (declared: ${types.join(', ')})`];
    }
    const schema = content[match].schema;
    if (type !== 'application/json' || schema === undefined) return [];
    let value: unknown;
    try {
      value = JSON.parse(new TextDecoder().decode(body));
    } catch {
      return ['the body is not JSON'];
    }
    const wrong = this.invalid(`${where} ${match}`, schema, value);
    return wrong ? [`the body does not match the declared schema: ${wrong}`] : [];
  }
}

/** Thrown when an answer breaks the document: the test that caused it fails. */
export class UndeclaredResponse extends Error {}

/** Checks `response`, throwing with every problem found. */
export async function checkResponse(
  checker: ResponseChecker,
  request: Request,
  response: Response,
): Promise<void> {
  const problems = await checker.problems(request, response);
  if (problems.length === 0) return;
  const { pathname, search } = new URL(request.url);
  throw new UndeclaredResponse(
    `${request.method} ${pathname}${search} answered ${response.status}, which the OpenAPI document does not allow:\n  ${problems.join('\n  ')}`,
  );
}
