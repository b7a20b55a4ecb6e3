/**
 * Builds the OpenAPI 3.1 document from THE route table (functions/routes.ts) and the zod
 * schemas each handler carries on `handler.spec` (functions/http/endpoint.ts), plus the
 * webhook event schemas (functions/events/schemas.ts). Nothing here restates a request
 * schema: query parameters and bodies are converted from the handlers' zod schemas with
 * zod 4's JSON Schema output (draft 2020-12, the dialect of OpenAPI 3.1).
 *
 * Build-time only: scripts/openapi/build.ts writes the result to openapi.<stage>.json, which
 * the GET /v1/openapi.json Lambda bundles (importing every handler into one Lambda would be
 * far too big). test/docs/openapi.test.ts fails when those files are stale.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as z from 'zod';
import { EVENT_CATALOG, eventBody, eventBodySchema } from '../../functions/events/schemas';
import { EVENT_TYPES, type EventType } from '../../functions/events/types';
import type { Responses } from '../../functions/api/shapes';
import { permissionOf, rolesFor } from '../../functions/identity/roles';
import { mfaRequiredRoles } from '../../functions/identity/mfa';
import { ROUTES, routeKey, routesFor, type Route } from '../../functions/routes';
import { AppError, ERROR_TYPES, MSG, errorTable, type ErrorMessage } from '../../functions/platform/errors';
import { API_VERSION, errorBody } from '../../functions/platform/api-request';
import { RESPONSE_FACTS, type ResponseFacts } from './overlay';
import { applyExamples, applyWebhookExamples } from './examples';

export type Stage = 'sandbox' | 'live';
export type Json = Record<string, unknown>;

/** What the generator reads from a handler module's `handler.spec` (see EndpointSpec). */
export interface HandlerSpec {
  body?: z.ZodType;
  query?: z.ZodType;
  response?: z.ZodType;
  /** Properties of the envelope beside `data` (an array-shaped list's `hasMore`, `total`). */
  envelope?: z.ZodType;
  /** One element of a per-phrase array answer (intent, bill, pay). */
  elements?: z.ZodType;
  /** The whole 2xx body, for answers without the envelope (device permission, the document). */
  responseBody?: z.ZodType;
  description?: string;
  bodyMessage?: unknown;
  queryMessage?: unknown;
}

export type SpecLoader = (route: Route) => Promise<HandlerSpec>;

const FUNCTIONS_DIR = resolve(fileURLToPath(import.meta.url), '../../../functions');

/** The `RESPONSES` of `functions/<dir>/responses.ts`; none when the area has no such module. */
export async function responsesOf(dir: string): Promise<Responses> {
  const file = resolve(FUNCTIONS_DIR, dir, 'responses.ts');
  if (!existsSync(file)) return {};
  const mod = (await import(/* @vite-ignore */ pathToFileURL(file).href)) as { RESPONSES?: Responses };
  if (!mod.RESPONSES) throw new Error(`functions/${dir}/responses.ts exports no RESPONSES`);
  return mod.RESPONSES;
}

/**
 * Imports `functions/<handler>.ts` (module init only: no handler runs) and returns its
 * `.spec`, with its response schemas from the area's `responses.ts` beside it (`RESPONSES`,
 * keyed by the handler's file name; see functions/api/shapes.ts `Responses`): `data` (the
 * envelope's `data` of the 2xx answer), `elements` (one element of a per-phrase array answer)
 * or `body` (the whole 2xx body). A module per area keeps zod out of the handlers' bundles.
 */
export const loadHandlerSpec: SpecLoader = async (route) => {
  const file = resolve(FUNCTIONS_DIR, `${route.handler}.ts`);
  const mod = (await import(/* @vite-ignore */ pathToFileURL(file).href)) as { handler?: unknown };
  if (typeof mod.handler !== 'function') throw new Error(`functions/${route.handler}.ts exports no handler`);
  const spec = { ...((mod.handler as { spec?: HandlerSpec }).spec ?? {}) };
  const r = (await responsesOf(dirname(route.handler)))[basename(route.handler)];
  if (r?.data) spec.response = r.data;
  if (r?.envelope) spec.envelope = r.envelope;
  if (r?.elements) spec.elements = r.elements;
  if (r?.body) spec.responseBody = r.body;
  return spec;
};

// ---------------------------------------------------------------------------------------
// zod -> JSON Schema (draft 2020-12)

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** Schemas with no JSON Schema equivalent (z.custom, z.date ...) seen while generating. */
export interface Warning {
  where: string;
  message: string;
}

class SchemaConverter {
  readonly warnings: Warning[] = [];
  /** Named schemas hoisted out of `$defs` (schemas registered with a zod `id`). */
  readonly hoisted: Record<string, Json> = {};

  /**
   * Shared schema instances documented once, as components: wherever one appears inside
   * another schema it becomes a `$ref` (the events API's events are the webhooks' event
   * bodies, the same components).
   */
  constructor(private readonly components: ReadonlyMap<z.ZodType, string> = COMPONENT_SCHEMAS) {}

  /**
   * `query`: the schema parses query strings, so a string piped into a number
   * (`z.string().regex(/^\d+$/).transform(Number).pipe(z.number().int().max(100))`) is
   * documented as that number, the way OpenAPI describes a serialized query parameter.
   */
  convert(schema: z.ZodType, io: 'input' | 'output', where: string, opts: { query?: boolean } = {}): Json {
    const js = z.toJSONSchema(schema, {
      target: 'draft-2020-12',
      io,
      reused: 'inline',
      unrepresentable: (ctx) => {
        this.warnings.push({ where: `${where} ${ctx.path.join('.')}`.trim(), message: ctx.message });
        return 'any';
      },
      override: (ctx) => {
        const name = this.components.get(ctx.zodSchema as unknown as z.ZodType);
        if (name && ctx.path.length > 0) {
          for (const k of Object.keys(ctx.jsonSchema)) delete (ctx.jsonSchema as Json)[k];
          Object.assign(ctx.jsonSchema, ref('schemas', name));
        } else if ((ctx.zodSchema as { _zod: { def: { type: string } } })._zod.def.type === 'intersection') {
          // Each side of an intersection describes part of one object: neither closes it.
          for (const side of (ctx.jsonSchema.allOf ?? []) as Json[]) delete side.additionalProperties;
        } else if (opts.query) numericQueryString(ctx);
      },
    }) as Json;
    delete js.$schema;
    const defs = js.$defs as Record<string, Json> | undefined;
    delete js.$defs;
    for (const [name, def] of Object.entries(defs ?? {})) {
      const existing = this.hoisted[name];
      if (existing && JSON.stringify(existing) !== JSON.stringify(tidy(def))) {
        throw new Error(`Two different schemas are registered with the zod id "${name}" (${where})`);
      }
      this.hoisted[name] = tidy(def);
    }
    return tidy(js);
  }
}

function numericQueryString(ctx: { zodSchema: unknown; jsonSchema: Json }): void {
  const def = (ctx.zodSchema as { _zod: { def: { type: string; out?: z.ZodType } } })._zod.def;
  if (def.type !== 'pipe' || !def.out || ctx.jsonSchema.type !== 'string') return;
  let out: Json;
  try {
    out = z.toJSONSchema(def.out, { target: 'draft-2020-12', io: 'output' }) as Json;
  } catch {
    return; // a transform: keep the string
  }
  if (out.type !== 'integer' && out.type !== 'number') return;
  delete out.$schema;
  const description = ctx.jsonSchema.description;
  for (const k of Object.keys(ctx.jsonSchema)) delete ctx.jsonSchema[k];
  Object.assign(ctx.jsonSchema, out, description === undefined ? {} : { description });
}

/**
 * Readability without changing meaning for a client: zod's full regex next to a `format`
 * (date-time, email ...) and the ±2^53-1 bounds of `.int()` are implementation detail.
 * `$ref`s to `$defs` point at components (hoisted there).
 */
function tidy<T>(value: T): T {
  if (Array.isArray(value)) return value.map(tidy) as T;
  if (!value || typeof value !== 'object') return value;
  const out: Json = {};
  const v = value as Json;
  for (const [k, x] of Object.entries(v)) {
    if (k === 'pattern' && typeof v.format === 'string') continue;
    if ((k === 'minimum' && x === -MAX_SAFE) || (k === 'maximum' && x === MAX_SAFE)) continue;
    if (k === '$ref' && typeof x === 'string') {
      if (x === '#') throw new Error('Recursive zod schemas are not supported by the OpenAPI generator');
      out[k] = x.replace(/^#\/\$defs\//, '#/components/schemas/');
      continue;
    }
    out[k] = tidy(x);
  }
  return out as T;
}

// ---------------------------------------------------------------------------------------
// Shared components

const ref = (kind: 'schemas' | 'responses' | 'parameters' | 'headers', name: string) => ({ $ref: `#/components/${kind}/${name}` });

const TAGS: Record<string, { name: string; description: string }> = {
  operator: { name: 'Operator', description: 'The platform operator: participants and their API keys (operator key).' },
  bank: {
    name: 'Bank',
    description:
      "A bank onboards customers, links devices, answers intents, billing requests and refunds, and manages its customers' decisions.",
  },
  merchant: {
    name: 'Merchant',
    description:
      'Discovery, billing intents, bills, one-time payments, decisions and balance. A provider may call these for one of its merchants with `X-Entity-Id`.',
  },
  recurring: {
    name: 'Recurring schedules',
    description: 'Recurring billing under an approve_recurring agreement (trusted premium merchants).',
  },
  transactions: {
    name: 'Transactions',
    description: 'Transaction history and details, visible to the merchant, its provider and the bank.',
  },
  refunds: { name: 'Refunds', description: 'Full or partial refunds of succeeded transactions.' },
  search: {
    name: 'Search',
    description: 'Find what you may read by its id, a customer e-mail or (bank) a customer clientRef: exact matches, at most 20.',
  },
  reports: { name: 'Reports', description: 'Succeeded debits, refunds and disputes per Lagos day, from counters kept with the money.' },
  disputes: {
    name: 'Disputes',
    description:
      "The customer's bank disputes a debit (the amount leaves the merchant's balance at once); the merchant responds with evidence or accepts; the bank decides.",
  },
  provider: { name: 'Provider', description: 'A provider onboards merchants and manages their trust.' },
  webhooks: {
    name: 'Webhook endpoints',
    description: 'Where events are delivered, and the deliveries made. See the Webhooks section for each event.',
  },
  sandbox: { name: 'Sandbox', description: 'Test helpers of the sandbox stage only (404 `Route not found` in live).' },
  docs: { name: 'Documentation', description: 'This document and its reference page (public).' },
};

function tagOf(route: Route): string {
  const area = route.handler.split('/')[1] ?? 'other';
  return TAGS[area]?.name ?? area.charAt(0).toUpperCase() + area.slice(1);
}

/** `api/bank/create-customers` -> `bankCreateCustomers` (handler modules are unique per route). */
export function operationIdOf(route: Route): string {
  const words = route.handler
    .replace(/^api\//, '')
    .split(/[/-]/)
    .filter(Boolean);
  return words.map((w, i) => (i === 0 ? w : w.charAt(0).toUpperCase() + w.slice(1))).join('');
}

const pascal = (type: string) =>
  type
    .split(/[._-]/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');
export const eventSchemaName = (type: EventType) => `${pascal(type)}Event`;
export const eventDataSchemaName = (type: EventType) => `${pascal(type)}Data`;

/** Schema instances with a component of their own: each event type's body and data, and any event body. */
const COMPONENT_SCHEMAS: ReadonlyMap<z.ZodType, string> = new Map<z.ZodType, string>([
  [eventBody, 'Event'],
  ...EVENT_TYPES.map((t) => [EVENT_CATALOG[t].data, eventDataSchemaName(t)] as const),
]);

const integer = { type: 'integer' };
const stringSchema = { type: 'string' };

function header(description: string, schema: Json = stringSchema, required?: boolean): Json {
  return { description, ...(required !== undefined ? { required } : {}), schema };
}

function components(stage: Stage): Json {
  const keyPrefix = `sk_${stage}_`;
  const codes = errorTable().map((e) => e.code);
  const errorEnvelope = (status?: number) => ({
    type: 'object',
    required: ['statusCode', 'success', 'message', 'code', 'type', 'docUrl', 'requestId'],
    properties: {
      statusCode: status ? { type: 'integer', const: status } : integer,
      success: { type: 'boolean', const: false },
      message: { type: 'string', description: 'Human-readable and exact: each message is part of the contract (see Errors)' },
      code: {
        type: 'string',
        enum: codes,
        description: 'Stable machine-readable code, one per message (the table under Errors): branch on it, not on the message',
      },
      type: { type: 'string', enum: [...ERROR_TYPES], description: 'The kind of error (see Errors)' },
      docUrl: {
        type: 'string',
        pattern: '^/docs#error-[a-z0-9_]+$',
        description: "The code's entry in this reference, relative to the API's base URL: `/docs#error-<code>`",
      },
      param: {
        type: 'string',
        description:
          'The one request field a business rule refused (e.g. `amount` for a refund above what was paid); absent when no single field is at fault',
      },
      requestId: { type: 'string', description: 'The `X-Request-Id` of this answer: quote it when you ask for help' },
    },
  });
  const example = (status: number, message: ErrorMessage, errors?: Json[]) => {
    const e = new AppError(status, message);
    return { ...errorBody(e, '0c4f6a8e-5b1d-4c7e-9a3f-2d6b8e1f7a90'), ...(errors ? { errors } : {}) };
  };
  const requestId = ref('headers', 'X-Request-Id');
  const errorResponse = (description: string, schema: Json, example: Json, headers: Json = {}) => ({
    description,
    headers: { 'X-Request-Id': requestId, 'Idpay-Version': ref('headers', 'Idpay-Version'), ...headers },
    content: { 'application/json': { schema, example } },
  });
  /** A shared error response: the envelope, with a real body of this status and message as its example. */
  const shared = (description: string, status: number, message: ErrorMessage, headers: Json = {}) =>
    errorResponse(description, ref('schemas', 'Error'), example(status, message), headers);
  return {
    securitySchemes: {
      apiKey: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: `${keyPrefix}<40 random><6 check>`,
        description:
          `The participant's API key: \`Authorization: Bearer ${keyPrefix}…\`. This ${stage} deployment accepts only ${stage} keys ` +
          `(another stage's key: 401 \`API key is not valid for the ${stage} environment\`). Keys are issued by the operator ` +
          '(and, for merchants a provider creates, in that response); each is shown once and stored only as a hash. ' +
          'Its last 6 characters are a checksum (CRC32 of the rest, base62): a key that fails it is 401 `Invalid API key`.',
      },
      operatorKey: {
        type: 'http',
        scheme: 'bearer',
        description: "The platform operator's key (`OPERATOR_API_KEY`). Not rate limited.",
      },
      personToken: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description:
          "A signed-in person's Amazon Cognito access token (the dashboard's sign-in): `Authorization: Bearer <access token>`. The person acts for a participant " +
          'they are a member of (`X-Participant-Id` chooses when there are several) with their role (`x-roles`); a role the operation does not allow: ' +
          '403 `Insufficient role`. A forged, tampered or wrong-client token: 401 `Invalid access token`; an expired one: 401 `Access token has expired`.' +
          (mfaRequiredRoles(stage).length
            ? ` A person who is ${mfaRequiredRoles(stage).join(' or ')} of any participant must have an authenticator app (Cognito software-token MFA) on: ` +
              'otherwise every operation but `GET /v1/me`, `POST /v1/me/sign-out` and reading their application answers 403 `Set up two-factor authentication first`.'
            : ''),
      },
    },
    parameters: {
      'Idempotency-Key': {
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description:
          'Makes a POST safe to retry (1-255 characters; scoped per API key and route). The same key with the same body within 24 h ' +
          'replays the first response (below 500) with `Idempotent-Replayed: true`; with a different body: 409 ' +
          '`Idempotency key reused with a different request`; while the first is still running: 409 ' +
          '`Request with this idempotency key is in progress`. Empty or too long: 400 `Invalid Idempotency-Key header`.',
        schema: { type: 'string', minLength: 1, maxLength: 255 },
      },
      'X-Entity-Id': {
        name: 'X-Entity-Id',
        in: 'header',
        required: false,
        description:
          "A provider acts for one of its merchants: the merchant's id. A merchant that is not the provider's: 404 `Merchant not found`; " +
          'a provider calling a merchant endpoint without it: 400. Ignored for other callers.',
        schema: { type: 'string' },
      },
      'Idpay-Version': {
        name: 'Idpay-Version',
        in: 'header',
        required: false,
        description: `The API version the request is written for (see Versioning); it overrides, for this request, the version the participant is pinned at. Without it: the participant's pinned version (the current one, \`${API_VERSION}\`, when the participant was created). Any other value: 400 \`Unknown API version\`, before the key is checked.`,
        schema: { type: 'string', enum: [API_VERSION] },
      },
      'X-Participant-Id': {
        name: 'X-Participant-Id',
        in: 'header',
        required: false,
        description:
          'A signed-in person who belongs to several participants names the one they act for (without it: 400). ' +
          'A participant they are not a member of: 403 `You are not a member of this participant`. Ignored for API keys.',
        schema: { type: 'string' },
      },
    },
    headers: {
      'X-Request-Id': header(
        'Id of this request (echoes a well-formed incoming `X-Request-Id`); an error body repeats it as `requestId`. Quote it when reporting a problem',
      ),
      'Idpay-Version': header(
        `The API version this answer was served at: the request's \`Idpay-Version\`, else the participant's pinned version (see Versioning)`,
        {
          type: 'string',
          enum: [API_VERSION],
        },
      ),
      'X-RateLimit-Limit': header('Requests allowed per window (one minute) for this key and endpoint class', integer),
      'X-RateLimit-Remaining': header('Requests left in the current window', integer),
      'X-RateLimit-Reset': header('When the window resets (unix seconds)', integer),
      'Idempotent-Replayed': header('`true` when this is the stored response of an earlier request with the same Idempotency-Key', {
        type: 'string',
        enum: ['true'],
      }),
      'Retry-After': header('Seconds to wait before retrying', integer),
    },
    schemas: {
      SuccessEnvelope: {
        type: 'object',
        required: ['statusCode', 'success', 'message'],
        properties: {
          statusCode: integer,
          success: { type: 'boolean', const: true },
          message: { type: 'string' },
          data: { description: "The operation's result" },
        },
        description: 'Some lists add top-level fields next to `data` (e.g. `total`).',
      },
      ArrayElement: {
        type: 'object',
        required: ['statusCode', 'success', 'message'],
        properties: { statusCode: integer, success: { type: 'boolean' }, message: { type: 'string' } },
        description: 'One element per input phrase, with its own status and the phrase it answers.',
      },
      Error: errorEnvelope(),
      FieldError: {
        type: 'object',
        required: ['path', 'message'],
        properties: {
          path: { type: 'string', description: 'Dotted path of the field (`(root)` for the whole body)' },
          message: { type: 'string' },
        },
      },
      ValidationError: {
        ...errorEnvelope(400),
        properties: {
          ...errorEnvelope(400).properties,
          errors: { type: 'array', items: ref('schemas', 'FieldError'), description: 'What was wrong, field by field (at most 50)' },
        },
      },
    },
    responses: {
      BadRequest: errorResponse(
        'Invalid input (`invalid_request_error`): nothing was written. The message depends on the endpoint (`Invalid request parameters`, `Invalid query parameters`, `Invalid JSON body`, ...); `errors` says which fields.',
        ref('schemas', 'ValidationError'),
        example(400, MSG.invalidRequest, [{ path: 'amount', message: 'Too small: expected number to be >=1' }]),
      ),
      Unauthorized: shared(
        'Missing, invalid, expired or revoked API key, a key of the other stage, or a refused access token (`authentication_error`).',
        401,
        MSG.invalidKey,
      ),
      Forbidden: shared(
        'The caller may not do this: participant kind, role, trust level, permission (`permission_error`).',
        403,
        MSG.forbiddenKind,
      ),
      NotFound: shared("Not found, or another participant's resource: never visible (`not_found_error`).", 404, MSG.routeNotFound),
      Conflict: shared(
        'Conflicts with the current state, or an Idempotency-Key reused with a different request or still in progress (`conflict_error`). The codes marked "retry" in the table under Errors mean nothing was written: send the same request again shortly.',
        409,
        MSG.idempotencyMismatch,
      ),
      TooManyRequests: shared(
        'Rate limit reached for this key and endpoint class (`rate_limit_error`): wait `Retry-After` seconds.',
        429,
        MSG.tooManyRequests,
        {
          'Retry-After': ref('headers', 'Retry-After'),
          'X-RateLimit-Limit': ref('headers', 'X-RateLimit-Limit'),
          'X-RateLimit-Remaining': ref('headers', 'X-RateLimit-Remaining'),
          'X-RateLimit-Reset': ref('headers', 'X-RateLimit-Reset'),
        },
      ),
      InternalError: shared(
        'Unexpected failure (`api_error`, code `internal_error`); never leaks internals. Safe to retry with backoff (with the same Idempotency-Key for a POST).',
        500,
        MSG.internal,
      ),
    },
  };
}

// ---------------------------------------------------------------------------------------
// Operations

const KIND_NAMES: Record<string, string> = { bank: 'a bank', merchant: 'a merchant', provider: 'a provider', operator: 'the operator' };

function whoMayCall(route: Route, stage: Stage): string {
  if (route.kinds.length === 0) return 'Public: no API key.';
  const names = route.kinds.map((k) => KIND_NAMES[k] ?? k);
  const list = names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
  let s = `**Who may call:** ${list}.`;
  if (route.kinds.includes('merchant')) s += ' A provider may call it for one of its merchants with `X-Entity-Id: <merchant id>`.';
  s += ' Anyone else: 403 `Forbidden for this participant type`.';
  if (route.caller === 'applicant')
    return `**Who may call:** a signed-in person (access token), member of a participant or not. API keys: 403 \`This action requires a signed-in user\`.`;
  if (route.caller === 'person') s += ' **Signed-in people only:** API keys get 403 `This action requires a signed-in user`.';
  if (!route.kinds.every((k) => k === 'operator')) {
    s += ` People's roles: ${rolesFor(route, stage).join(', ')}${permissionOf(route) === 'money' && stage === 'sandbox' ? ' (developer: sandbox only)' : ''} (else 403 \`Insufficient role\`).`;
  }
  return s;
}

const isParticipantRoute = (r: Route) => r.kinds.some((k) => k !== 'operator') && r.caller !== 'applicant';
/** A person's token is accepted, acting for a participant with a role (not on applicant routes). */
const acceptsPerson = (r: Route) => isParticipantRoute(r);

function successResponse(route: Route, spec: HandlerSpec, facts: ResponseFacts, status: number, conv: SchemaConverter): Json {
  const shape = facts.shape ?? 'envelope';
  const headers: Json = { 'X-Request-Id': ref('headers', 'X-Request-Id'), 'Idpay-Version': ref('headers', 'Idpay-Version') };
  if (isParticipantRoute(route)) {
    for (const h of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) headers[h] = ref('headers', h);
  }
  if (route.method === 'POST') headers['Idempotent-Replayed'] = ref('headers', 'Idempotent-Replayed');

  let content: Json;
  if (shape === 'html') content = { 'text/html': { schema: { type: 'string' } } };
  else if (shape === 'openapi' || (shape === 'object' && spec.responseBody)) {
    const schema = spec.responseBody
      ? conv.convert(spec.responseBody, 'output', `${routeKey(route)} body`)
      : { type: 'object', description: 'This OpenAPI 3.1 document' };
    content = { 'application/json': { schema } };
  } else if (shape === 'array') {
    const items = spec.elements ? conv.convert(spec.elements, 'output', `${routeKey(route)} element`) : ref('schemas', 'ArrayElement');
    content = { 'application/json': { schema: { type: 'array', items } } };
  } else if (shape === 'object')
    content = { 'application/json': { schema: { type: 'object', required: ['statusCode'], properties: { statusCode: integer } } } };
  else if (spec.response) {
    const data = conv.convert(spec.response, 'output', `${routeKey(route)} response`);
    const beside = spec.envelope ? conv.convert(spec.envelope, 'output', `${routeKey(route)} envelope`) : {};
    content = {
      'application/json': {
        schema: {
          type: 'object',
          required: ['statusCode', 'success', 'message', 'data', ...((beside.required as string[] | undefined) ?? [])],
          properties: {
            statusCode: { type: 'integer', const: status },
            success: { type: 'boolean', const: true },
            message: { type: 'string' },
            data,
            ...((beside.properties as Json | undefined) ?? {}),
          },
        },
      },
    };
  } else content = { 'application/json': { schema: ref('schemas', 'SuccessEnvelope') } };

  const description = facts.note ?? (shape === 'html' ? 'The page' : shape === 'openapi' ? 'The document' : 'Success');
  return { description, headers, content };
}

/**
 * One parameter per property of the query object. A default applied by a transform
 * (`.optional().transform((v) => v ?? 20)`) is not in the JSON Schema: it is found by
 * parsing an absent value.
 */
function queryParameters(zodQuery: z.ZodType, schema: Json, where: string): Json[] {
  const props = schema.properties as Record<string, Json> | undefined;
  if (schema.type !== 'object' || !props) throw new Error(`${where}: the query schema must be a zod object`);
  const shape = (zodQuery as { shape?: Record<string, z.ZodType> }).shape ?? {};
  const required = new Set((schema.required as string[] | undefined) ?? []);
  return Object.entries(props).map(([name, s]) => {
    const { description, ...rest } = s;
    if (rest.default === undefined && shape[name]) {
      const absent = shape[name].safeParse(undefined);
      if (absent.success && absent.data !== undefined && (typeof absent.data !== 'object' || absent.data === null))
        rest.default = absent.data;
    }
    return {
      name,
      in: 'query',
      required: required.has(name),
      ...(typeof description === 'string' ? { description } : {}),
      schema: rest,
    };
  });
}

function operation(route: Route, spec: HandlerSpec, conv: SchemaConverter, stage: Stage): Json {
  const key = routeKey(route);
  const facts = RESPONSE_FACTS[key] ?? {};
  const statuses = facts.status ?? [200];
  const isPublic = route.kinds.length === 0;

  const parameters: Json[] = [];
  for (const m of route.path.matchAll(/\{([^}]+)\}/g)) {
    parameters.push({ name: m[1], in: 'path', required: true, schema: { type: 'string' } });
  }
  if (spec.query) parameters.push(...queryParameters(spec.query, conv.convert(spec.query, 'input', `${key} query`, { query: true }), key));
  parameters.push(ref('parameters', 'Idpay-Version'));
  if (route.method === 'POST') parameters.push(ref('parameters', 'Idempotency-Key'));
  if (route.kinds.includes('merchant')) parameters.push(ref('parameters', 'X-Entity-Id'));
  if (acceptsPerson(route)) parameters.push(ref('parameters', 'X-Participant-Id'));

  const notes: string[] = [];
  if (spec.description) notes.push(spec.description);
  notes.push(whoMayCall(route, stage));
  if (route.sandboxOnly) notes.push('**Sandbox only:** 404 `Route not found` in live.');
  if (typeof spec.bodyMessage === 'string') notes.push(`An invalid body is 400 \`${spec.bodyMessage}\`.`);
  if (typeof spec.queryMessage === 'string') notes.push(`An invalid query is 400 \`${spec.queryMessage}\`.`);

  const op: Json = {
    operationId: operationIdOf(route),
    summary: route.summary,
    description: notes.join('\n\n'),
    tags: [tagOf(route)],
    security: isPublic
      ? []
      : route.kinds.every((k) => k === 'operator')
        ? [{ operatorKey: [] }]
        : route.caller
          ? [{ personToken: [] }]
          : [{ apiKey: [] }, { personToken: [] }],
    'x-participant-kinds': route.kinds,
  };
  if (acceptsPerson(route)) op['x-roles'] = [...rolesFor(route, stage)];
  if (route.caller) op['x-caller'] = route.caller;
  if (route.rateClass) op['x-rate-class'] = route.rateClass;
  if (route.sandboxOnly) op['x-sandbox-only'] = true;
  // A list: where its items are and which of their fields `startingAfter` takes (the SDK's paginate).
  const pages = parameters.some((p) => p.name === 'startingAfter');
  if (pages !== Boolean(route.list))
    throw new Error(`${key}: a route with startingAfter needs \`list\` in the route table, and only such a route`);
  if (route.list) op['x-list'] = { items: route.list.items, cursor: route.list.cursor };
  if (parameters.length) op.parameters = parameters;

  if (spec.body) {
    const body = conv.convert(spec.body, 'input', `${key} body`);
    const required = Array.isArray(body.required) && body.required.length > 0;
    op.requestBody = { required, content: { 'application/json': { schema: body } } };
  }

  const responses: Json = {};
  for (const status of statuses) responses[String(status)] = successResponse(route, spec, facts, status, conv);
  // Every operation: at least an unknown Idpay-Version.
  responses['400'] = ref('responses', 'BadRequest');
  if (!isPublic) {
    responses['401'] = ref('responses', 'Unauthorized');
    responses['403'] = ref('responses', 'Forbidden');
    responses['404'] = ref('responses', 'NotFound');
    if (route.access === 'write') responses['409'] = ref('responses', 'Conflict');
    if (isParticipantRoute(route)) responses['429'] = ref('responses', 'TooManyRequests');
  }
  for (const e of facts.errors ?? []) {
    responses[String(e.status)] = {
      description: e.description,
      headers: { 'X-Request-Id': ref('headers', 'X-Request-Id'), 'Idpay-Version': ref('headers', 'Idpay-Version') },
      content: { 'application/json': { schema: ref('schemas', 'Error') } },
    };
  }
  responses['500'] = ref('responses', 'InternalError');
  if (facts.shape === 'array') {
    // Per-element answers: when every element has the same status, it is the HTTP status
    // (all refused: 403 with the array). Whole-request errors keep the error envelope.
    for (const status of ['403', '404', '409', '500']) {
      if (!responses[status]) continue;
      responses[status] = {
        description: `The elements, when all share this status; or the error envelope when the whole request is refused.`,
        headers: { 'X-Request-Id': ref('headers', 'X-Request-Id'), 'Idpay-Version': ref('headers', 'Idpay-Version') },
        content: {
          'application/json': { schema: { oneOf: [ref('schemas', 'Error'), { type: 'array', items: ref('schemas', 'ArrayElement') }] } },
        },
      };
    }
  }
  op.responses = responses;
  return op;
}

// ---------------------------------------------------------------------------------------
// Webhooks

function webhookParameters(): Json {
  return {
    'X-Webhook-Id': {
      name: 'X-Webhook-Id',
      in: 'header',
      required: true,
      description: 'The event id (= body `id`), the same on every retry and replay: deduplicate on it.',
      schema: { type: 'string' },
    },
    'X-Webhook-Timestamp': {
      name: 'X-Webhook-Timestamp',
      in: 'header',
      required: true,
      description:
        'Unix seconds when this attempt was made (changes per attempt). Signed by `webhook-signature` (not by `X-Webhook-Signature`).',
      schema: { type: 'string', pattern: '^\\d+$' },
    },
    'X-Webhook-Signature': {
      name: 'X-Webhook-Signature',
      in: 'header',
      required: true,
      description:
        'Lowercase hex HMAC-SHA256 of the raw body, keyed with the endpoint secret (`whsec_…`, UTF-8): exactly one value, the ' +
        "newest secret's (during a rotation's 24 h overlap too: `webhook-signature` carries both secrets). Compare in constant time.",
      schema: { type: 'string', pattern: '^[0-9a-f]{64}$' },
    },
    'webhook-id': {
      name: 'webhook-id',
      in: 'header',
      required: true,
      description: 'Standard Webhooks: the same value as `X-Webhook-Id`.',
      schema: { type: 'string' },
    },
    'webhook-timestamp': {
      name: 'webhook-timestamp',
      in: 'header',
      required: true,
      description:
        'Standard Webhooks: the same value as `X-Webhook-Timestamp`; signed by `webhook-signature` (refuse stale ones, e.g. older than 5 minutes).',
      schema: { type: 'string', pattern: '^\\d+$' },
    },
    'webhook-signature': {
      name: 'webhook-signature',
      in: 'header',
      required: true,
      description:
        'Standard Webhooks: space-separated `v1,<base64 HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<raw body>")>`, key = the base64 ' +
        'decoding of the secret after `whsec_`; one value per valid secret during a rotation (the new one first). The `standardwebhooks` ' +
        'libraries and `verifyWebhook` of `@idpay/sdk` check it.',
      schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$' },
    },
  };
}

/** Every delivery carries both header sets (the original signature and Standard Webhooks). */
const WEBHOOK_HEADERS = [
  'X-Webhook-Id',
  'X-Webhook-Timestamp',
  'X-Webhook-Signature',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
];

function webhooks(conv: SchemaConverter, schemas: Json): Json {
  const out: Json = {};
  for (const type of EVENT_TYPES) {
    const doc = EVENT_CATALOG[type];
    const body = conv.convert(eventBodySchema(type), 'input', `event ${type}`);
    schemas[eventDataSchemaName(type)] = conv.convert(doc.data, 'input', `event ${type} data`);
    (body.properties as Json).data = ref('schemas', eventDataSchemaName(type));
    // Receivers ignore fields they do not know (new ones may come), and the events API adds `deliveries`.
    delete body.additionalProperties;
    schemas[eventSchemaName(type)] = body;
    out[type] = {
      post: {
        operationId: `event${pascal(type)}`,
        summary: type,
        description: `**To:** ${doc.receiver}. **When:** ${doc.when}.\n\nPOSTed as JSON \`{id, type, createdAt, apiVersion, livemode, data}\` to each subscribed endpoint; verify \`webhook-signature\` (Standard Webhooks, covers id and timestamp) or \`X-Webhook-Signature\` (the body only) over the raw body before parsing.`,
        tags: ['Webhook events'],
        'x-receiver': doc.receiver,
        // The receiver authenticates the sender by signature, not by a security scheme.
        security: [],
        parameters: WEBHOOK_HEADERS.map((n) => ref('parameters', n)),
        requestBody: { required: true, content: { 'application/json': { schema: ref('schemas', eventSchemaName(type)) } } },
        responses: {
          '2XX': { description: 'Delivered. Answer within 10 seconds and do the work afterwards.' },
          '410': { description: 'Gone: the endpoint is disabled (no more retries nor new deliveries until a test or replay gets a 2xx).' },
          default: {
            description:
              'Anything else (another status, any 3xx, a timeout, a connection or TLS error) is a failed attempt, retried with exponential ' +
              'backoff and jitter (13 attempts over about 41 h by default), then dead-lettered; `Retry-After` on 429/503 is honoured.',
          },
        },
      },
    };
  }
  // Any event: one schema per type, discriminated by `type` (webhooks and the events API).
  schemas.Event = {
    description: 'An event: `{id, type, createdAt, apiVersion, livemode, data}`, `data` typed by `type` (the discriminator).',
    oneOf: EVENT_TYPES.map((t) => ref('schemas', eventSchemaName(t))),
    // Tools (Redocly, code generators) pick the variant by `type` instead of trying each.
    discriminator: {
      propertyName: 'type',
      mapping: Object.fromEntries(EVENT_TYPES.map((t) => [t, `#/components/schemas/${eventSchemaName(t)}`])),
    },
  };
  return out;
}

// ---------------------------------------------------------------------------------------
// The document

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(resolve(FUNCTIONS_DIR, '../package.json'), 'utf8')) as { version?: string };
  return pkg.version ?? '0.0.0';
}

const TYPE_MEANING: Record<(typeof ERROR_TYPES)[number], string> = {
  invalid_request_error: 'The request is malformed or invalid (400; also 405): fix it before sending it again. Nothing was written.',
  authentication_error:
    'No valid credentials (401): the API key or access token is missing, invalid, expired, revoked or of the other stage.',
  permission_error: "The caller may not do this (403): participant kind, role, trust level or the customer's permission.",
  not_found_error: 'The resource does not exist or belongs to another participant (404): the two are never told apart.',
  conflict_error:
    'The resource is not in a state that allows this, or an Idempotency-Key clashes (409). Codes marked retry: nothing was written, send the same request again shortly.',
  rate_limit_error: 'Too many requests for this key and endpoint class (429): wait `Retry-After` seconds.',
  api_error: 'Something failed on our side (5xx, code `internal_error`): retry with backoff, with the same Idempotency-Key for a POST.',
};

const cell = (s: string) => s.replace(/\|/g, '\\|');

/** The Errors section: the types, then every code with its statuses, type and exact message. */
function errorsSection(): string {
  const types = ['| type | meaning |', '| --- | --- |', ...ERROR_TYPES.map((t) => `| \`${t}\` | ${cell(TYPE_MEANING[t])} |`)];
  const rows = errorTable().map(
    (e) =>
      `| <a id="error-${e.code}"></a>\`${e.code}\` | ${e.statuses.join(', ')} | ${e.types.map((t) => `\`${t}\``).join(', ')} | ${cell(e.message)} | ${e.param ? `\`${e.param}\`` : ''} | ${e.retry ? 'retry' : ''} |`,
  );
  return [
    "An error answer is `{statusCode, success: false, message, code, type, docUrl, requestId}`, plus `errors: [{path, message}]` when the input was refused field by field (400), and `param` when a business rule refused one field of the request (the table's param column). `docUrl` is the code's row in this table (`/docs#error-<code>`, relative to the API's base URL). `message` is exact and stable (tests may compare it); `code` is one per message, for your code to branch on; `type` groups the codes; `requestId` is the answer's `X-Request-Id` (quote it when you ask for help). A bill, pay, intent or batch bank answer refuses element by element: each refused element carries its own `statusCode`, `message`, `code` and `type`.",
    types.join('\n'),
    'Every code (also published as `x-error-codes` at the root of this document). A message with `{placeholder}` is filled at run time; its code is the same whatever fills it.',
    ['| code | status | type | message | param | |', '| --- | --- | --- | --- | --- | --- |', ...rows].join('\n'),
  ].join('\n\n');
}

function introduction(stage: Stage): string {
  return [
    `Identity-based payments: banks onboard customers, merchants find them by device or email, ask for billing permission, bill, run recurring schedules and refund; providers onboard and manage merchants. This document describes the **${stage}** stage${stage === 'sandbox' ? ' (simulated data and test helpers)' : ' (real money)'}.`,
    '## Authentication',
    `Every call except the documentation sends \`Authorization: Bearer <API key>\` (\`sk_${stage}_…\`), or a signed-in person's access token. Each operation lists who may call it (\`x-participant-kinds\`) and, for people and keys with a role, which roles (\`x-roles\`). A provider calls a merchant endpoint for one of its merchants with \`X-Entity-Id: <merchant id>\`.`,
    '## Versioning',
    `Versions are pinned. Each participant has an \`apiVersion\`: the current version when it was created (shown in the answer that creates it and in \`GET /v1/me\`). A request without \`Idpay-Version\` is served at the participant's version; a request may send \`Idpay-Version\` to be served at another version for that request only (the SDK sends the version it was generated for, \`${API_VERSION}\`, on every request). Every answer's \`Idpay-Version\` says which version served it, and every event carries the \`apiVersion\` its payload is written at (the receiving webhook endpoint's, pinned when the endpoint was created; in the events API the caller's) and \`livemode\` (true in live). A version this deployment does not know is 400 \`Unknown API version\` (code \`unknown_api_version\`), checked before the route and the key. A version changes only for a change an integrator could break on (a field removed or renamed, a message or status changed); adding operations, optional request fields, response fields, event types or error codes happens within a version, so ignore fields you do not know.`,
    '## Envelopes',
    'Success: `{statusCode, success: true, message, data}` (lists may add `total` and `hasMore` beside `data`). Errors: see Errors. Invalid input writes nothing. Every response carries `X-Request-Id` and `Idpay-Version`; every response to a participant key carries `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset` (unix seconds); a 429 adds `Retry-After`.',
    '## Paging',
    'Lists are newest first and take `limit` (default 20, at most 100). Two ways to page, one per request:\n\n' +
      '- **Cursor** (every list): `startingAfter=<id of the last item you have>` returns the items after it and `hasMore` (true when more follow). Start without it; stop when `hasMore` is false. Each list operation says where its items are and which of their fields `startingAfter` takes in `x-list` (`{items, cursor}`; `items: null` when `data` is the array itself): the SDK method `client.paginate(path, init)` follows it for every list. Its cost does not grow with the list, and items created meanwhile never shift a page. An id that is not in your list is 400 `Invalid query parameters`.\n' +
      "- **Offset** (the lists of the original API: transactions, decisions, schedules, webhook endpoints and deliveries, a provider's merchants and their trust): `skip` (or `offset`, as the list names it) counts items to pass over; the answer adds `total` (the whole list's size) and `hasMore`. `skip + limit` above 10,000 is 400 `Use startingAfter to page beyond 10,000 items`; `skip` and `startingAfter` cannot be combined.",
    '## Idempotency',
    'Every POST accepts `Idempotency-Key` (1-255 characters). The same key with the same request within 24 hours replays the first answer (below 500) with `Idempotent-Replayed: true`; with another body: 409 `idempotency_mismatch`; while the first still runs: 409 `idempotency_in_progress` (retry shortly). An answer that says "retry" (a 5xx or a 409 whose code is marked retry) is not stored: the same key may be sent again.',
    '## Errors',
    errorsSection(),
    '## Conventions',
    'Amounts are JSON numbers in major units (NGN 1500.5), at most 2 decimals, minimum NGN 1.00; currency `NGN` only today. Times are ISO 8601 in UTC; calendar periods (limits, settlement days, reports) are Africa/Lagos days. Ids are opaque strings with a prefix naming their kind (`txn_`, `breq_`, `sch_`, `evt_` ...).',
    '## Webhooks',
    'Events are POSTed to the endpoints you register (Webhook endpoints), signed twice: `webhook-signature` (Standard Webhooks: HMAC-SHA256 over `<webhook-id>.<webhook-timestamp>.<raw body>`, so a replayed old delivery can be refused) and `X-Webhook-Signature` (hex HMAC-SHA256 of the raw body with the endpoint secret). The Webhooks section lists every event and its `data`, the same schemas `GET /v1/events` answers with. New fields may appear in `data`: ignore those you do not know.',
  ].join('\n\n');
}

export interface GeneratedDocument {
  document: Json;
  warnings: Warning[];
}

/** The OpenAPI 3.1 document of one stage (sandbox-only routes only in the sandbox document). */
export async function generateOpenApi(stage: Stage, loadSpec: SpecLoader = loadHandlerSpec): Promise<GeneratedDocument> {
  const conv = new SchemaConverter();
  // Every handler first (both stages': one table for both documents): importing them
  // registers every message group, so the error table is whole whatever ran before.
  const specs: [Route, HandlerSpec][] = [];
  for (const route of ROUTES) {
    const spec = await loadSpec(route);
    if (routesFor(stage).includes(route)) specs.push([route, spec]);
  }
  const base = components(stage);
  const schemas = base.schemas as Json;
  const paths: Record<string, Json> = {};
  const usedTags: string[] = [];
  for (const [route, spec] of specs) {
    const item = (paths[route.path] ??= {});
    const method = route.method.toLowerCase();
    if (item[method]) throw new Error(`Duplicate route ${routeKey(route)}`);
    item[method] = operation(route, spec, conv, stage);
    const tag = tagOf(route);
    if (!usedTags.includes(tag)) usedTags.push(tag);
  }
  // Worked examples recorded from the integration tests (scripts/openapi/examples.ts).
  applyExamples(paths, (method, path) => `${method.toUpperCase()} ${path}`, stage);
  const hooks = webhooks(conv, schemas);
  applyWebhookExamples(hooks as Record<string, Json>, stage);
  for (const [name, def] of Object.entries(conv.hoisted)) {
    if (schemas[name]) throw new Error(`Schema name ${name} is used twice`);
    schemas[name] = def;
  }
  const tagDocs = Object.values(TAGS);
  const document: Json = {
    openapi: '3.1.1',
    info: {
      title: `idpay API (${stage})`,
      version: packageVersion(),
      summary: 'Identity-based payment network',
      description: introduction(stage),
    },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    servers: [{ url: '/', description: `The ${stage} deployment serving this document` }],
    tags: [
      ...usedTags.map((name) => tagDocs.find((t) => t.name === name) ?? { name }),
      { name: 'Webhook events', description: 'What the service POSTs to your webhook endpoints.' },
    ],
    paths,
    webhooks: hooks,
    // The error table (platform/errors.ts), for tools: the same rows as the Errors section.
    'x-error-codes': errorTable(),
    components: { ...base, parameters: { ...(base.parameters as Json), ...webhookParameters() } },
  };
  return { document, warnings: conv.warnings };
}

/** The committed form: stable key order as generated, 2-space indent, trailing newline. */
export const serialize = (doc: Json): string => `${JSON.stringify(doc, null, 2)}\n`;
