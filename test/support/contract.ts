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
