/**
 * Every answer the integration and reliability flows receive is checked against the
 * OpenAPI document the service serves (`GET /v1/openapi.json`, generated from the route
 * table and the handlers' schemas: functions/openapi/openapi.<stage>.json), so that the
 * document cannot drift from behaviour (DESIGN 8.2):
 *
 * - the status must be one the operation documents;
 * - a JSON body must match that status's schema (the envelope, and `data` where typed).
 *
 * Requests to no documented operation (unknown paths, a wrong method: 404/405 of the
 * router) have nothing to match and are left alone.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import { matchRoute, type HttpMethod } from '../../functions/routes';
import { apiVersions } from '../../functions/platform/api-request';
import { errorTypeOf } from '../../functions/platform/errors';
import { eventBodySchema } from '../../functions/events/schemas';
import { isEventType, type EventType } from '../../functions/events/types';

type Json = Record<string, any>;
type Stage = 'sandbox' | 'live';

const docs = new Map<Stage, Json>();
const validators = new Map<string, ValidateFunction | null>();
let ajv: InstanceType<typeof Ajv2020> | undefined;

function doc(stage: Stage): Json {
  let d = docs.get(stage);
  if (!d) {
    d = JSON.parse(readFileSync(new URL(`../../functions/openapi/openapi.${stage}.json`, import.meta.url), 'utf8')) as Json;
    docs.set(stage, d);
    if (!ajv) {
      ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
      (addFormats as unknown as (a: unknown) => void)(ajv);
    }
    ajv.addSchema({ ...d, $id: `openapi-${stage}` });
  }
  return d;
}

const deref = (d: Json, v: Json): Json => {
  let cur = v;
  for (let i = 0; cur?.$ref && i < 10; i++) {
    cur = (cur.$ref as string)
      .replace(/^#\//, '')
      .split('/')
      .reduce((o: Json, k: string) => o?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], d);
  }
  return cur;
};

/** The problems of one answer against the document ([] when it conforms or nothing documents the request). */
export function contractProblems(
  stage: Stage,
  method: string,
  url: string,
  status: number,
  body: unknown,
  contentType: string | null,
): string[] {
  const d = doc(stage);
  const pathname = new URL(url, 'http://x').pathname;
  const ops = Object.entries<Json>(d.paths).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
      .map((m) => ({ method: m.toUpperCase() as HttpMethod, path })),
  );
  const hit = matchRoute(ops, method.toUpperCase(), pathname);
  if (!hit) return [];
  const op = d.paths[hit.route.path][method.toLowerCase()] as Json;
  const where = `${method.toUpperCase()} ${hit.route.path} -> ${status}`;
  const documented = op.responses?.[String(status)] ?? op.responses?.default;
  if (!documented) return [`${where}: status not documented (documented: ${Object.keys(op.responses ?? {}).join(', ')})`];
  const response = deref(d, documented);
  const schema = response?.content?.['application/json']?.schema;
  if (!schema || !contentType?.includes('application/json') || typeof body !== 'object' || body === null) return [];
  const key = `${stage} ${where}`;
  let validate = validators.get(key);
  if (validate === undefined) {
    const pointer = documented.$ref
      ? `${(documented.$ref as string).replace(/^#/, `openapi-${stage}#`)}/content/application~1json/schema`
      : `openapi-${stage}#/paths/${hit.route.path.replace(/~/g, '~0').replace(/\//g, '~1')}/${method.toLowerCase()}/responses/${status}/content/application~1json/schema`;
    validate = ajv!.getSchema(pointer) ?? null;
    validators.set(key, validate);
  }
  if (!validate) return [`${where}: no schema at the documented response`];
  if (validate(body)) return [];
  return (validate.errors ?? []).map(
    (e) => `${where}: body${e.instancePath} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`,
  );
}

/** Throws when an answer does not conform (the integration client calls this on every answer). */
export function assertConforms(stage: Stage, method: string, url: string, status: number, body: unknown, contentType: string | null): void {
  const problems = contractProblems(stage, method, url, status, body, contentType);
  if (problems.length)
    throw new Error(
      `The answer does not match the served OpenAPI document:\n  ${problems.join('\n  ')}\nbody: ${JSON.stringify(body).slice(0, 600)}`,
    );
}

// ---------------------------------------------------------------------------------------
// The integrator's surface of every answer: the version header, and on every error its
// specific code (the document's error table, `x-error-codes`), its type and its request id.

interface ErrorCode {
  code: string;
  statuses: number[];
  types: string[];
  message: string;
  retry: boolean;
  param?: string;
}

const tables = new Map<Stage, Map<string, ErrorCode & { pattern: RegExp }>>();

/** The served document's error table, by code (a template's `{name}` matches any text). */
export function errorCodes(stage: Stage): Map<string, ErrorCode & { pattern: RegExp }> {
  let t = tables.get(stage);
  if (!t) {
    const rows = (doc(stage)['x-error-codes'] ?? []) as ErrorCode[];
    const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    t = new Map(
      rows.map((r) => [
        r.code,
        {
          ...r,
          pattern: new RegExp(
            `^${r.message
              .split(/\{\w+\}/)
              .map(escapeRegex)
              .join('.+?')}$`,
          ),
        },
      ]),
    );
    tables.set(stage, t);
  }
  return t;
}

/** What is wrong with one error (a body or a refused element) of this status: [] when its code, type and message agree with the table. */
function errorShapeProblems(stage: Stage, status: number, e: Json, where: string): string[] {
  const problems: string[] = [];
  const entry = typeof e.code === 'string' ? errorCodes(stage).get(e.code) : undefined;
  if (!entry) problems.push(`${where}: code ${JSON.stringify(e.code)} is not in the error table`);
  else {
    if (!entry.statuses.includes(status))
      problems.push(`${where}: code ${e.code} is documented for ${entry.statuses.join(', ')}, not ${status}`);
    if (typeof e.message !== 'string' || !entry.pattern.test(e.message))
      problems.push(`${where}: message ${JSON.stringify(e.message)} is not the message of ${e.code} (${JSON.stringify(entry.message)})`);
  }
  if (e.type !== errorTypeOf(status)) problems.push(`${where}: type ${JSON.stringify(e.type)}, expected ${errorTypeOf(status)}`);
  // Every error links its code's entry in the reference, and names the field the table says a business rule is about.
  if (e.docUrl !== `/docs#error-${e.code}`) problems.push(`${where}: docUrl ${JSON.stringify(e.docUrl)}, expected /docs#error-${e.code}`);
  if (entry && e.param !== entry.param)
    problems.push(`${where}: param ${JSON.stringify(e.param)}, expected ${JSON.stringify(entry.param)}`);
  return problems;
}

/**
 * Every answer carries `Idpay-Version`; every error (4xx/5xx) is JSON with a `type`, a code of
 * the error table that names its message and status, and `requestId` = `X-Request-Id`; a
 * bill, pay, intent or batch answer's refused elements carry their code and type.
 */
export function surfaceProblems(stage: Stage, status: number, headers: Headers, body: unknown): string[] {
  const problems: string[] = [];
  const where = `${status}`;
  if (!apiVersions().includes(headers.get('idpay-version') ?? ''))
    problems.push(`${where}: Idpay-Version is ${JSON.stringify(headers.get('idpay-version'))}`);
  if (Array.isArray(body)) {
    body.forEach((el: Json, i) => {
      if (el && el.success === false) problems.push(...errorShapeProblems(stage, el.statusCode as number, el, `${where} element ${i}`));
    });
    return problems;
  }
  if (status < 400) return problems;
  if (!body || typeof body !== 'object') return [...problems, `${where}: an error without a JSON body: ${String(body).slice(0, 200)}`];
  const e = body as Json;
  problems.push(...errorShapeProblems(stage, status, e, where));
  const requestId = headers.get('x-request-id');
  if (!requestId || e.requestId !== requestId)
    problems.push(`${where}: requestId ${JSON.stringify(e.requestId)} is not the X-Request-Id ${JSON.stringify(requestId)}`);
  return problems;
}

/**
 * Every event `GET /v1/events` and `GET /v1/events/{id}` return matches its type's schema (the
 * webhooks' `data` of that type: functions/events/schemas.ts), with no field the schema does
 * not document.
 */
export function eventProblems(method: string, url: string, status: number, body: unknown): string[] {
  const hit = /^\/v1\/events(\/[^/]+)?$/.exec(new URL(url, 'http://x').pathname);
  if (method.toUpperCase() !== 'GET' || status !== 200 || !hit) return [];
  const data = (body as Json | undefined)?.data as Json | undefined;
  const events = (hit[1] ? [data] : (data?.events ?? [])) as Json[];
  const problems: string[] = [];
  for (const e of events) {
    const where = `event ${e?.id} (${e?.type})`;
    if (!isEventType(String(e?.type))) {
      problems.push(`${where}: not an event type`);
      continue;
    }
    const type = e.type as EventType;
    const parsed = eventBodySchema(type).safeParse({
      id: e.id,
      type,
      createdAt: e.createdAt,
      apiVersion: e.apiVersion,
      livemode: e.livemode,
      data: e.data,
    });
    if (!parsed.success) {
      problems.push(...parsed.error.issues.map((i) => `${where}: ${i.path.join('.')} ${i.message}`));
      continue;
    }
    const documented = new Set(Object.keys(parsed.data.data as Json));
    for (const k of Object.keys(e.data as Json)) if (!documented.has(k)) problems.push(`${where}: data.${k} is not in its schema`);
  }
  return problems;
}

/** Throws when an answer breaks the surface rules above (the integration client calls this on every answer). */
export function assertSurface(stage: Stage, method: string, url: string, status: number, headers: Headers, body: unknown): void {
  const problems = [...surfaceProblems(stage, status, headers, body), ...eventProblems(method, url, status, body)];
  if (problems.length)
    throw new Error(
      `${method} ${new URL(url, 'http://x').pathname}: the answer breaks the error contract (code, type, requestId, Idpay-Version):\n  ${problems.join('\n  ')}\nbody: ${JSON.stringify(body).slice(0, 600)}`,
    );
}
