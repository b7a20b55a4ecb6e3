/**
 * The OpenAPI documents (functions/openapi/openapi.<stage>.json) and the /docs page asset:
 * up to date with the generator, valid OpenAPI 3.1 for a real validator, complete against
 * the route table and the event list; the event schemas match what the service emits.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { validate } from '@readme/openapi-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import type { BillItem } from '../../functions/bills/types';
import type { DecisionItem } from '../../functions/decisions/views';
import { EVENT_CATALOG, eventBody, eventBodySchema } from '../../functions/events/schemas';
import { EVENT_TYPES } from '../../functions/events/types';
import type { HttpEvent, HttpResponse } from '../../functions/http/types';
import { buildArtifacts, documentPath, readExisting, type Artifact } from '../../scripts/openapi/artifacts';
import { assetHtml, loadRenderer, type DocsPageAsset } from '../../scripts/openapi/docs-page';
import { eventSchemaName, generateOpenApi, operationIdOf, responsesOf, type Json, type Stage } from '../../scripts/openapi/generate';
import { RESPONSE_FACTS } from '../../scripts/openapi/overlay';
import { rolesFor } from '../../functions/identity/roles';
import { ROUTES, routeKey, routesFor, type Route } from '../../functions/routes';
import { ERROR_TYPES, errorTable, errorTypeOf } from '../../functions/platform/errors';
import { apiVersions } from '../../functions/platform/api-request';
import { RETRY_SHORTLY_CODES } from '../../sdk/src/client';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';

type Doc = Json & {
  paths: Record<string, Record<string, Json>>;
  components: Record<string, Record<string, Json>>;
  webhooks: Record<string, Json>;
};

const committed = (stage: Stage) => JSON.parse(readExisting(documentPath(stage)) ?? 'null') as Doc;
const docs: Record<Stage, Doc> = { sandbox: committed('sandbox'), live: committed('live') };

/** Follows a local `$ref` (one level is all the generator uses). */
function deref(doc: Doc, x: Json): Json {
  const r = x.$ref;
  if (typeof r !== 'string') return x;
  const parts = r.replace(/^#\//, '').split('/');
  let cur: unknown = doc;
  for (const p of parts) cur = (cur as Json)[p];
  if (!cur) throw new Error(`Unresolved ${r}`);
  return cur as Json;
}

const operationOf = (doc: Doc, r: Pick<Route, 'method' | 'path'>) => doc.paths[r.path]?.[r.method.toLowerCase()];
const paramNames = (doc: Doc, op: Json) =>
  ((op.parameters as Json[] | undefined) ?? []).map((p) => `${deref(doc, p).in}:${deref(doc, p).name}`);
const successCodes = (op: Json) => Object.keys(op.responses as Json).filter((c) => c.startsWith('2'));

let artifacts: Artifact[];
beforeAll(async () => {
  ({ artifacts } = await buildArtifacts());
}, 120_000);

describe('generated files', () => {
  it('are up to date with the route table, the handlers, the event schemas and the renderer (else: npm run openapi)', () => {
    expect(artifacts.map((a) => a.path).sort()).toEqual([
      'functions/openapi/docs-page.json',
      'functions/openapi/openapi-served.json',
      'functions/openapi/openapi.live.json',
      'functions/openapi/openapi.sandbox.json',
    ]);
    for (const a of artifacts) {
      expect(a.isFresh(readExisting(a.path)), `${a.path} is stale: run \`npm run openapi\` and commit it`).toBe(true);
    }
  });

  it('generation is deterministic', async () => {
    const again = await generateOpenApi('sandbox');
    expect(JSON.stringify(again.document)).toBe(JSON.stringify(docs.sandbox));
    expect(again.warnings).toEqual([]);
  }, 60_000);

  it('`npm run openapi -- --check` agrees, and exits by itself: importing every handler leaves no timer, socket or server', () => {
    // A fresh process without any AWS or table configuration: the generator imports every
    // handler module; the process must end on its own (nothing keeps the event loop alive).
    const env = { ...process.env };
    for (const k of Object.keys(env)) if (/^(AWS_|TABLE_NAME|QUEUE_URL_)/.test(k)) delete env[k];
    const started = Date.now();
    const run = spawnSync(process.execPath, [resolve('node_modules/tsx/dist/cli.mjs'), 'scripts/openapi/build.ts', '--check'], {
      env: { ...env, LOG_LEVEL: 'INFO' },
      encoding: 'utf8',
      timeout: 90_000,
    });
    expect(run.error, 'did not exit by itself within 90 s').toBeUndefined();
    expect(run.stderr).toBe('');
    expect(run.status, run.stdout).toBe(0);
    expect(run.stdout.trim().split('\n')).toEqual([
      'up to date  functions/openapi/openapi.sandbox.json',
      'up to date  functions/openapi/openapi.live.json',
      'up to date  functions/openapi/openapi-served.json',
      'up to date  functions/openapi/docs-page.json',
    ]);
    expect(Date.now() - started).toBeLessThan(90_000);
  }, 120_000);
});

describe.each(['sandbox', 'live'] as const)('the %s document', (stage) => {
  const doc = docs[stage];

  it('is valid OpenAPI 3.1 (@readme/openapi-parser)', async () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    const result = await validate(structuredClone(doc) as never);
    expect(result.valid ? [] : result.errors, 'validation errors').toEqual([]);
    expect(result.warnings).toEqual([]);
  }, 60_000);

  it("has every route of the stage (method + path), and the sandbox's own only in the sandbox", () => {
    for (const r of ROUTES) {
      const op = operationOf(doc, r);
      if (r.sandboxOnly && stage === 'live') expect(op, routeKey(r)).toBeUndefined();
      else expect(op, routeKey(r)).toBeDefined();
    }
    const documented = Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`));
    expect(documented.sort()).toEqual(routesFor(stage).map(routeKey).sort());
  });

  it('documents who may call each route: security, x-participant-kinds, X-Entity-Id for merchant routes', () => {
    for (const r of routesFor(stage)) {
      const op = operationOf(doc, r)!;
      expect(op.summary, routeKey(r)).toBe(r.summary);
      expect(op.operationId).toBe(operationIdOf(r));
      expect(op['x-participant-kinds'], routeKey(r)).toEqual(r.kinds);
      const security = op.security as Json[];
      if (r.kinds.length === 0) expect(security, routeKey(r)).toEqual([]);
      else if (r.kinds.every((k) => k === 'operator')) expect(security).toEqual([{ operatorKey: [] }]);
      else if (r.caller) expect(security, routeKey(r)).toEqual([{ personToken: [] }]);
      else expect(security, routeKey(r)).toEqual([{ apiKey: [] }, { personToken: [] }]);
      expect(paramNames(doc, op).includes('header:X-Entity-Id'), routeKey(r)).toBe(r.kinds.includes('merchant'));
      // DESIGN 8.3: a person's roles come from the route's permission (identity/roles.ts rolesFor), the same list the pipeline enforces.
      const personActs = r.kinds.some((k) => k !== 'operator') && r.caller !== 'applicant';
      expect(op['x-roles'], routeKey(r)).toEqual(personActs ? [...rolesFor(r, stage)] : undefined);
      expect(paramNames(doc, op).includes('header:X-Participant-Id'), routeKey(r)).toBe(personActs);
      for (const m of r.path.matchAll(/\{([^}]+)\}/g)) expect(paramNames(doc, op), routeKey(r)).toContain(`path:${m[1]}`);
    }
    const schemes = doc.components.securitySchemes!;
    expect(schemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: `sk_${stage}_<40 random><6 check>` });
  });

  it('every POST documents Idempotency-Key and Idempotent-Replayed', () => {
    const posts = routesFor(stage).filter((r) => r.method === 'POST');
    expect(posts.length).toBeGreaterThan(20);
    for (const r of posts) {
      const op = operationOf(doc, r)!;
      expect(paramNames(doc, op), routeKey(r)).toContain('header:Idempotency-Key');
      for (const code of successCodes(op))
        expect(Object.keys((op.responses as Record<string, Json>)[code]!.headers as Json)).toContain('Idempotent-Replayed');
    }
    const idem = doc.components.parameters!['Idempotency-Key'] as Json;
    expect(idem.schema).toEqual({ type: 'string', minLength: 1, maxLength: 255 });
  });

  it('every route answered to a participant key has the rate-limit headers; every response has X-Request-Id', () => {
    for (const r of routesFor(stage)) {
      const op = operationOf(doc, r)!;
      const responses = op.responses as Record<string, Json>;
      // Rate-limited: a participant's key or person; not the operator, not an applicant (no participant yet).
      const participant = r.kinds.some((k) => k !== 'operator') && r.caller !== 'applicant';
      for (const code of successCodes(op)) {
        const headers = Object.keys(responses[code]!.headers as Json);
        expect(headers, `${routeKey(r)} ${code}`).toContain('X-Request-Id');
        for (const h of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'])
          expect(headers.includes(h), `${routeKey(r)} ${h}`).toBe(participant);
      }
      if (participant) expect(responses['429']).toEqual({ $ref: '#/components/responses/TooManyRequests' });
      for (const [code, res] of Object.entries(responses))
        expect(Object.keys(deref(doc, res).headers as Json), `${routeKey(r)} ${code}`).toContain('X-Request-Id');
      if (RESPONSE_FACTS[routeKey(r)]?.shape === 'array') {
        // Per-element answers: all elements failed -> 500 with the elements, else the envelope.
        const schema = ((responses['500']!.content as Json)['application/json'] as Json).schema as Json;
        expect(schema.oneOf, routeKey(r)).toEqual([{ $ref: '#/components/schemas/Error' }, { type: 'array', items: expect.any(Object) }]);
      } else expect(responses['500'], routeKey(r)).toEqual({ $ref: '#/components/responses/InternalError' });
      if (r.kinds.length) {
        for (const code of ['401', '403', '404']) expect(responses[code], `${routeKey(r)} ${code}`).toBeDefined();
      }
    }
  });

  it('has the shared error envelopes: 400 with errors[], 401, 403, 404, 409, 429 with Retry-After, 500', () => {
    const responses = doc.components.responses!;
    for (const name of ['BadRequest', 'Unauthorized', 'Forbidden', 'NotFound', 'Conflict', 'TooManyRequests', 'InternalError'])
      expect(responses[name], name).toBeDefined();
    const bad = deref(doc, ((responses.BadRequest!.content as Json)['application/json'] as Json).schema as Json);
    expect(bad.required).toEqual(['statusCode', 'success', 'message', 'code', 'type', 'docUrl', 'requestId']);
    expect(Object.keys(bad.properties as Json)).toEqual([
      'statusCode',
      'success',
      'message',
      'code',
      'type',
      'docUrl',
      'param',
      'requestId',
      'errors',
    ]);
    // Each shared response's example is a real error body: its code, type and message from the table.
    for (const [name, status] of Object.entries({ BadRequest: 400, Unauthorized: 401, Forbidden: 403, NotFound: 404, Conflict: 409 })) {
      const example = ((responses[name]!.content as Json)['application/json'] as Json).example as Json;
      const entry = (doc['x-error-codes'] as Json[]).find((e) => e.code === example.code);
      expect(entry, name).toMatchObject({ statuses: expect.arrayContaining([status]), message: example.message });
      expect(example.type, name).toBe(errorTypeOf(status));
    }
    expect(Object.keys(responses.TooManyRequests!.headers as Json)).toContain('Retry-After');
    const error = doc.components.schemas!.Error as Json;
    expect((error.properties as Json).success).toEqual({ type: 'boolean', const: false });
  });

  it("request bodies and query parameters come from the handlers' zod schemas", () => {
    const bill = operationOf(doc, { method: 'POST', path: '/v1/customer/bill' })!;
    const body = ((bill.requestBody as Json).content as Json)['application/json'] as { schema: Json };
    expect(body.schema.required).toEqual(['agreementPhrases', 'amount', 'currency', 'description']);
    expect(body.schema.additionalProperties).toBe(false);
    const history = operationOf(doc, { method: 'GET', path: '/v1/transaction-history' })!;
    const limit = (history.parameters as Json[]).find((p) => p.name === 'limit')!;
    expect(limit).toEqual({
      name: 'limit',
      in: 'query',
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
    });
    const banks = operationOf(doc, { method: 'GET', path: '/v1/customer/banks' })!;
    expect((banks.parameters as Json[]).find((p) => p.name === 'email')).toMatchObject({ in: 'query', required: true });
    const batch = operationOf(doc, { method: 'POST', path: '/v1/bank/customers' })!;
    const ok = ((batch.responses as Record<string, Json>)['201']!.content as Json)['application/json'] as { schema: Json };
    expect(Object.keys((ok.schema.properties as Json).data as Json)).toContain('properties'); // the handler's `response` schema
  });

  it('webhooks: one per event type, the {id, type, createdAt, apiVersion, livemode, data} body and the signature headers', () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...EVENT_TYPES].sort());
    for (const type of EVENT_TYPES) {
      const post = (doc.webhooks[type] as Json).post as Json;
      expect(post.summary).toBe(type);
      expect(paramNames(doc, post)).toEqual([
        'header:X-Webhook-Id',
        'header:X-Webhook-Timestamp',
        'header:X-Webhook-Signature',
        'header:webhook-id',
        'header:webhook-timestamp',
        'header:webhook-signature',
      ]);
      const schema = deref(doc, (((post.requestBody as Json).content as Json)['application/json'] as Json).schema as Json);
      expect(schema).toBe(doc.components.schemas![eventSchemaName(type)]);
      expect(schema.required).toEqual(['id', 'type', 'createdAt', 'apiVersion', 'livemode', 'data']);
      expect((schema.properties as Json).type).toEqual({ type: 'string', const: type });
      expect(deref(doc, (schema.properties as Json).data as Json).type).toBe('object');
    }
  });
});

describe.each(['sandbox', 'live'] as const)('the %s document: errors, version, self-contained, typed events', (stage) => {
  const doc = docs[stage];
  const table = () => doc['x-error-codes'] as { code: string; statuses: number[]; types: string[]; message: string; retry: boolean }[];

  it('publishes the error table: every code of the service, with statuses, type and message (x-error-codes, the Errors section, the code enum)', () => {
    // The generator loaded every handler (beforeAll): every message group is registered here too.
    expect(table()).toEqual(errorTable());
    const description = (doc.info as Json).description as string;
    for (const e of table())
      expect(description, e.code).toContain(`| <a id="error-${e.code}"></a>\`${e.code}\` | ${e.statuses.join(', ')} |`);
    for (const t of ERROR_TYPES) expect(description).toContain(`| \`${t}\` |`);
    const error = doc.components.schemas!.Error as Json;
    expect(((error.properties as Json).code as Json).enum).toEqual(table().map((e) => e.code));
    expect(((error.properties as Json).type as Json).enum).toEqual([...ERROR_TYPES]);
    // docUrl: every code's row above is the anchor `error-<code>` of the reference (`/docs#error-<code>`)
    expect((error.required as string[]).includes('docUrl')).toBe(true);
    expect(
      table()
        .filter((e) => (e as { param?: string }).param)
        .map((e) => e.code),
    ).toEqual(expect.arrayContaining(['refund_exceeds_refundable', 'unsupported_currency', 'merchant_email_exists']));
  });

  it('every list operation says where its items are and which field startingAfter takes (x-list), and those exist in its schema', () => {
    const lists = Object.entries(doc.paths).flatMap(([path, item]) => {
      const get = (item as Json).get as Json | undefined;
      return get?.['x-list'] ? [{ path, get, list: get['x-list'] as { items: string | null; cursor: string } }] : [];
    });
    expect(lists.length).toBeGreaterThanOrEqual(15);
    for (const { path, get, list } of lists) {
      expect(paramNames(doc, get), path).toContain('query:startingAfter');
      const envelope = deref(doc, ((((get.responses as Json)['200'] as Json).content as Json)['application/json'] as Json).schema as Json);
      const data = deref(doc, (envelope.properties as Json).data as Json);
      const array = list.items === null ? data : deref(doc, (data.properties as Json)[list.items] as Json);
      expect(array.type, path).toBe('array');
      const item = deref(doc, array.items as Json);
      const props = Object.assign(
        {},
        item.properties as Json,
        ...((item.allOf as Json[] | undefined) ?? []).map((a) => deref(doc, a).properties as Json),
      );
      if (path !== '/v1/events') expect(Object.keys(props), path).toContain(list.cursor);
    }
  });

  it("the SDK retries exactly the table's retry codes", () => {
    expect([...RETRY_SHORTLY_CODES].sort()).toEqual(
      table()
        .filter((e) => e.retry)
        .map((e) => e.code)
        .sort(),
    );
  });

  it('every operation takes Idpay-Version and every answer documents it', () => {
    expect((doc.components.headers!['Idpay-Version'] as Json).schema).toEqual({ type: 'string', enum: ['2026-11-01'] });
    for (const r of routesFor(stage)) {
      const op = operationOf(doc, r)!;
      expect(paramNames(doc, op), routeKey(r)).toContain('header:Idpay-Version');
      for (const [code, res] of Object.entries(op.responses as Record<string, Json>))
        expect(Object.keys(deref(doc, res).headers as Json), `${routeKey(r)} ${code}`).toContain('Idpay-Version');
    }
  });

  it('refers to no document outside itself', () => {
    const text = JSON.stringify(doc);
    expect(text.match(/.{0,60}\b(DESIGN|docs\/|decisions\/|webhooks\.md|\.md\b|\d\.\d's)\b.{0,40}/g) ?? []).toEqual([]);
  });

  it("GET /v1/events and /v1/events/{id} type data by event type: the webhooks' event schemas, one per type", () => {
    const event = doc.components.schemas!.Event as Json;
    expect(event.oneOf).toEqual(EVENT_TYPES.map((t) => ({ $ref: `#/components/schemas/${eventSchemaName(t)}` })));
    const data = (path: string) =>
      ((((operationOf(doc, { method: 'GET', path })!.responses as Json)['200'] as Json).content as Json)['application/json'] as Json)
        .schema as Json;
    const list = ((data('/v1/events').properties as Json).data as Json).properties as Json;
    expect(((list.events as Json).items as Json).allOf).toEqual([{ $ref: '#/components/schemas/Event' }, expect.any(Object)]);
    expect(((data('/v1/events/{id}').properties as Json).data as Json).allOf).toEqual([
      { $ref: '#/components/schemas/Event' },
      expect.any(Object),
    ]);
    for (const t of EVENT_TYPES) {
      const body = doc.components.schemas![eventSchemaName(t)] as Json;
      expect((body.properties as Json).type, t).toEqual({ type: 'string', const: t });
      expect(body.additionalProperties, t).toBeUndefined(); // the events API adds deliveries; receivers ignore new fields
    }
  });
});

describe.each(['sandbox', 'live'] as const)('the %s document: worked examples', (stage) => {
  const doc = docs[stage];
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  (addFormats as unknown as (a: unknown) => void)(ajv);
  ajv.addSchema({ ...doc, $id: 'doc' });
  const pointer = (...parts: string[]) => `doc#/${parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
  /** Why `example` does not fit the schema at this place of the document ([] when it does). */
  const invalid = (example: unknown, ...at: string[]) => {
    const validate = ajv.getSchema(pointer(...at, 'schema'))!;
    return validate(example) ? [] : (validate.errors ?? []).map((e) => `${at.join(' ')}${e.instancePath} ${e.message}`);
  };

  it('every operation has a request example (when it has a body) and a 2xx response example, each valid against its schema', () => {
    const problems: string[] = [];
    for (const r of routesFor(stage)) {
      const method = r.method.toLowerCase();
      const op = operationOf(doc, r)!;
      const body = ((op.requestBody as Json | undefined)?.content as Json | undefined)?.['application/json'] as Json | undefined;
      if (body) {
        if (body.example === undefined) problems.push(`${routeKey(r)}: no request example`);
        else problems.push(...invalid(body.example, 'paths', r.path, method, 'requestBody', 'content', 'application/json'));
      }
      const examples = successCodes(op).flatMap((code) => {
        const content = ((op.responses as Json)[code] as Json).content as Record<string, Json> | undefined;
        return Object.entries(content ?? {})
          .filter(([, media]) => media.example !== undefined)
          .map(([type, media]) => ({ code, type, example: media.example }));
      });
      if (examples.length === 0) problems.push(`${routeKey(r)}: no 2xx response example`);
      for (const e of examples) {
        if (e.type !== 'application/json') continue;
        problems.push(...invalid(e.example, 'paths', r.path, method, 'responses', e.code, 'content', e.type));
      }
    }
    expect(problems).toEqual([]);
  });

  it('every event has a payload example recorded from a real run, valid against its schema; the events discriminate on type', () => {
    const problems: string[] = [];
    for (const type of EVENT_TYPES) {
      const media = ((((doc.webhooks[type] as Json).post as Json).requestBody as Json).content as Json)['application/json'] as Json;
      if (media.example === undefined) problems.push(`${type}: no example`);
      else {
        problems.push(...invalid(media.example, 'webhooks', type, 'post', 'requestBody', 'content', 'application/json'));
        expect((media.example as Json).type).toBe(type);
        // Written at a version the API serves (a recording's time shift never touches it).
        expect(apiVersions(), type).toContain((media.example as Json).apiVersion);
      }
    }
    expect(problems).toEqual([]);
    const event = doc.components.schemas!.Event as Json;
    expect((event.discriminator as Json).propertyName).toBe('type');
    expect(Object.keys((event.discriminator as Json).mapping as Json).sort()).toEqual([...EVENT_TYPES].sort());
  });

  it('the examples hold no secret in clear: keys and webhook secrets are placeholders', () => {
    const text = JSON.stringify(doc.paths);
    for (const m of text.matchAll(/sk_(sandbox|live)_[A-Za-z0-9]{20,}|whsec_[A-Za-z0-9+/=]{20,}/g))
      expect(m[0]).toMatch(/Example(Key|Secret)\d+0*/);
    // Opaque tokens (agreement phrases, invitation tokens ...) too.
    for (const m of text.matchAll(/"([a-z]{2,6}_[A-Za-z0-9_-]{32,})"/g)) expect(m[1]).toMatch(/Example/);
  });
});

describe('typed responses (DESIGN 8.2: every operation types its 2xx data)', () => {
  /** Why an operation's 2xx answer is not typed, or undefined when it is. */
  function untyped(doc: Doc, r: Route): string | undefined {
    const op = operationOf(doc, r)!;
    for (const code of successCodes(op)) {
      const content = deref(doc, (op.responses as Json)[code] as Json).content as Json | undefined;
      const json = content?.['application/json'] as Json | undefined;
      if (!json) {
        if (content?.['text/html']) continue; // the docs page
        return `${code}: no JSON body`;
      }
      const schema = json.schema as Json;
      if (schema.$ref === '#/components/schemas/SuccessEnvelope') return `${code}: generic envelope, data untyped`;
      if (schema.type === 'array' && (schema.items as Json)?.$ref === '#/components/schemas/ArrayElement')
        return `${code}: generic elements`;
      if (schema.description === 'This OpenAPI 3.1 document') continue;
      if (schema.type === 'object' && !(schema.properties as Json)?.data && !(schema.properties as Json)?.statusCode)
        return `${code}: no data property`;
      if (schema.type === 'object' && Object.keys((schema.properties as Json) ?? {}).length <= 1) return `${code}: body untyped`;
    }
    return undefined;
  }

  it.each(['sandbox', 'live'] as const)('%s: all operations, counted', (stage) => {
    const routes = routesFor(stage);
    const missing = routes.map((r) => [routeKey(r), untyped(docs[stage], r)] as const).filter(([, why]) => why !== undefined);
    const typed = routes.length - missing.length;
    expect(
      missing.map(([k, why]) => `${k} (${why})`),
      `${typed} of ${routes.length} operations type their 2xx answer`,
    ).toEqual([]);
    expect(typed).toBe(routes.length);
  });
});

describe("areas' response modules (functions/api/<area>/responses.ts)", () => {
  it('key only handler files of routes in their area', async () => {
    const handlers = new Set(ROUTES.map((r) => r.handler));
    const areas = [...new Set(ROUTES.map((r) => dirname(r.handler)))];
    const strays: string[] = [];
    for (const area of areas)
      for (const name of Object.keys(await responsesOf(area))) if (!handlers.has(`${area}/${name}`)) strays.push(`${area}/${name}`);
    expect(strays).toEqual([]);
  });
});

describe('response facts (overlay)', () => {
  it('name only routes of the table', () => {
    const keys = new Set(ROUTES.map(routeKey));
    for (const k of Object.keys(RESPONSE_FACTS)) expect(keys.has(k), k).toBe(true);
  });

  it("every `ok(<status>, ...)` in a handler's source is a documented success status", () => {
    for (const r of ROUTES) {
      const source = readFileSync(resolve('functions', `${r.handler}.ts`), 'utf8');
      const documented = RESPONSE_FACTS[routeKey(r)]?.status ?? [200];
      for (const m of source.matchAll(/\bok\(\s*(\d{3})\b/g)) expect(documented, `${routeKey(r)} returns ${m[1]}`).toContain(Number(m[1]));
    }
  });
});

describe('event schemas match what the service emits', () => {
  const bill = {
    billingRequestId: 'breq_1',
    reference: 'txn_1',
    type: 'agreement',
    status: 'pending',
    merchantId: 'mer_1',
    merchantName: 'Shop',
    bankId: 'bnk_1',
    customerId: 'cus_1',
    decisionId: 'dec_1',
    amount: 150050,
    currency: 'NGN',
    description: 'Plan',
    requiresApproval: true,
    expiresAt: '2026-11-22T10:10:00.000Z',
    periods: { day: 'd', week: 'w', month: 'm' },
    refundedAmount: 0,
    refundReserved: 0,
    createdAt: '2026-11-22T10:00:00.000Z',
    updatedAt: '2026-11-22T10:00:00.000Z',
  } as unknown as BillItem;

  /** Parses with the schema and checks no field is left undocumented (zod objects drop unknown keys). */
  function conforms(type: keyof typeof EVENT_CATALOG, data: Record<string, unknown>) {
    const parsed = EVENT_CATALOG[type].data.safeParse(data);
    expect(parsed.success ? [] : parsed.error.issues, `${type} issues`).toEqual([]);
    expect(Object.keys(parsed.data as object).sort(), `${type} fields`).toEqual(Object.keys(data).sort());
    const body = { id: 'evt_1', type, createdAt: '2026-11-22T10:00:00.000Z', apiVersion: '2026-11-01', livemode: false, data };
    expect(eventBodySchema(type).safeParse(body).success).toBe(true);
    expect(eventBody.safeParse(body).success).toBe(true);
  }

  it('billing.request and billing.response (functions/billing/bill-item.ts)', async () => {
    const { billingRequestEvent, billingResponseEvent } = await import('../../functions/billing/bill-item');
    conforms('billing.request', billingRequestEvent(bill, 'CR-1'));
    conforms(
      'billing.request',
      billingRequestEvent({ ...bill, requiresApproval: false, expiresAt: undefined, type: 'recurring', scheduleId: 'sch_1' }, 'CR-1'),
    );
    conforms('billing.response', billingResponseEvent(bill, 'succeeded', { bankTransactionId: 'bt_1' }));
    conforms('billing.response', billingResponseEvent({ ...bill, scheduleId: 'sch_1' }, 'declined', { reason: 'customer_denied' }));
  });

  it('billing.intent.response (functions/decisions/views.ts)', async () => {
    const { intentResponseEvent } = await import('../../functions/decisions/views');
    const d = {
      id: 'dec_1',
      customerId: 'cus_1',
      bankId: 'bnk_1',
      merchantId: 'mer_1',
      lookupPhrase: 'lp',
      decision: 'approve_recurring',
      spendingLimits: { single: 500000, daily: 1000000 },
      blockMerchant: false,
      agreementPhrase: 'ap_x',
      createdAt: '2026-11-22T10:00:00.000Z',
      lastUpdated: '2026-11-22T10:00:00.000Z',
      lastUsed: null,
      version: 1,
    } as unknown as DecisionItem;
    conforms('billing.intent.response', intentResponseEvent(d, 'int_1'));
    conforms('billing.intent.response', intentResponseEvent({ ...d, decision: 'deny' }, null));
  });

  it('refund.updated (functions/refunds/store.ts) and schedule.* (functions/recurring/store.ts)', async () => {
    const { refundView } = await import('../../functions/refunds/views');
    const refund = {
      refundId: 'rfd_1',
      reference: 'txn_1',
      billingRequestId: 'breq_1',
      merchantId: 'mer_1',
      bankId: 'bnk_1',
      customerId: 'cus_1',
      amount: 1000,
      currency: 'NGN',
      status: 'failed',
      reason: null,
      expectedBy: '2026-11-25T10:00:00.000Z',
      createdAt: '2026-11-22T10:00:00.000Z',
      updatedAt: '2026-11-22T10:00:00.000Z',
      failureReason: 'account_closed',
    } as Parameters<typeof refundView>[0];
    conforms('refund.updated', { ...refundView(refund), billingRequestId: refund.billingRequestId, entityId: refund.merchantId });

    const { scheduleEventData } = await import('../../functions/recurring/views');
    const s = {
      scheduleId: 'sch_1',
      merchantId: 'mer_1',
      customerId: 'cus_1',
      amount: 100000,
      currency: 'NGN',
      frequency: 'monthly',
      interval: 1,
      status: 'paused',
      nextBillingDate: '2026-12-22T10:00:00.000Z',
      totalBillings: 2,
      maxBillings: null,
      failedAttempts: 1,
    } as unknown as Parameters<typeof scheduleEventData>[0];
    conforms(
      'schedule.paused',
      scheduleEventData(s, { actor: 'system', pausedAt: '2026-11-22T10:00:00.000Z', reason: 'permission_revoked', pausedBy: 'service' }),
    );
    conforms(
      'schedule.completed',
      scheduleEventData(
        { ...s, status: 'completed', nextBillingDate: null },
        { actor: 'system', completedAt: '2026-11-22T10:00:00.000Z', reason: 'max_billings' },
      ),
    );
    conforms(
      'schedule.run_failed',
      scheduleEventData(s, {
        actor: 'system',
        runSeq: 3,
        reason: 'spending_limit_exceeded',
        customerAction: 'declined',
        scheduledFor: '2026-11-22T10:00:00.000Z',
        willRetry: true,
        nextRetryAt: '2026-11-23T10:00:00.000Z',
      }),
    );
    const terms = { amount: 1000, frequency: 'monthly', description: null };
    const amendment = { amendmentId: 'amd_1', from: terms, to: { ...terms, amount: 1500 }, requestedAt: '2026-11-22T10:00:00.000Z' };
    conforms('schedule.amended', scheduleEventData(s, { actor: 'bank', ...amendment, effectiveFrom: '2026-12-22T10:00:00.000Z' }));
    conforms('schedule.amendment_declined', scheduleEventData(s, { actor: 'bank', ...amendment, reason: 'limits' }));
    conforms(
      'schedule.cancelled',
      scheduleEventData(
        { ...s, status: 'cancelled', nextBillingDate: null },
        { actor: 'bank', cancelledAt: '2026-11-22T10:00:00.000Z', reason: 'Customer asked' },
      ),
    );
    conforms('schedule.run_skipped', scheduleEventData(s, { actor: 'bank', skippedRunAt: '2026-11-22T10:00:00.000Z', skippedSequence: 2 }));
    // Every schedule.* event names who made the change (DESIGN 8.5): without actor it does not conform.
    expect(
      EVENT_CATALOG['schedule.paused'].data.safeParse(
        scheduleEventData(s, { pausedAt: '2026-11-22T10:00:00.000Z', reason: null, pausedBy: 'merchant' }),
      ).success,
    ).toBe(false);
  });

  it('the catalog covers exactly the event list', () => {
    expect(Object.keys(EVENT_CATALOG).sort()).toEqual([...EVENT_TYPES].sort());
  });
});

describe('documentation handlers (no stack: they never touch DynamoDB)', () => {
  const event = (routeKey: string, headers: Record<string, string> = {}) =>
    ({
      routeKey,
      rawPath: routeKey.split(' ')[1],
      headers,
      requestContext: { requestId: 'req-1', http: { method: 'GET' } },
    }) as unknown as HttpEvent;

  it("GET /v1/openapi.json serves the deployment's stage, brotli (as stored) or gzip on request", async () => {
    const { handler } = await import('../../functions/api/docs/openapi');
    const prev = process.env.STAGE;
    try {
      process.env.STAGE = 'live';
      const live = (await handler(event('GET /v1/openapi.json'))) as HttpResponse;
      expect(live.statusCode).toBe(200);
      expect(live.headers['X-Request-Id']).toBe('req-1');
      expect(JSON.parse(live.body)).toEqual(docs.live);
      process.env.STAGE = 'sandbox';
      const br = (await handler(event('GET /v1/openapi.json', { 'accept-encoding': 'gzip, br' }))) as HttpResponse;
      expect(br.headers['Content-Encoding']).toBe('br');
      expect(JSON.parse(brotliDecompressSync(Buffer.from(br.body, 'base64')).toString('utf8'))).toEqual(docs.sandbox);
      const gz = (await handler(event('GET /v1/openapi.json', { 'accept-encoding': 'gzip' }))) as HttpResponse;
      expect(gz.headers['Content-Encoding']).toBe('gzip');
      expect(gz.headers.ETag).toBe(br.headers.ETag);
      expect(gz.isBase64Encoded).toBe(true);
      expect(JSON.parse(gunzipSync(Buffer.from(gz.body, 'base64')).toString('utf8'))).toEqual(docs.sandbox);
      const notModified = (await handler(event('GET /v1/openapi.json', { 'if-none-match': gz.headers.ETag! }))) as HttpResponse;
      expect(notModified.statusCode).toBe(304);
    } finally {
      if (prev === undefined) delete process.env.STAGE;
      else process.env.STAGE = prev;
    }
  });

  it('GET /docs: the page holds the installed renderer, loads the document from its own origin, and nothing else', async () => {
    const asset = JSON.parse(readExisting('functions/openapi/docs-page.json')!) as DocsPageAsset;
    const renderer = loadRenderer();
    const installed = JSON.parse(readFileSync(resolve('node_modules/redoc/package.json'), 'utf8')) as { version: string };
    const pkg = JSON.parse(readFileSync(resolve('package.json'), 'utf8')) as { devDependencies: Record<string, string> };
    expect(asset.renderer.version).toBe(installed.version);
    expect(pkg.devDependencies.redoc).toBe(installed.version); // exact pin
    const html = assetHtml(asset);
    expect(html).toContain(renderer.source);
    expect(html).toContain('Redoc.init(specUrl');
    expect(html).toContain("'v1/openapi.json'");
    expect(html.replace(renderer.source, '')).not.toMatch(/https?:\/\//);
    const { handler } = await import('../../functions/api/docs/page');
    const res = (await handler(event('GET /docs'))) as HttpResponse;
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe(html);
    expect(res.headers['Content-Security-Policy']).toBe(asset.csp);
    expect(asset.csp).toMatch(/script-src 'sha256-[^']+' 'sha256-[^']+';/);
  });
});
