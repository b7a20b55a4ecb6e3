/**
 * The error table (functions/platform/errors.ts): every message a client can get in an error
 * is declared once, with its status(es) and its code, in a message group; the code goes out
 * with every error. These tests fail when a thrown message has no code (a literal, or a group
 * entry without one), when two messages share a code or a message has two, and when a code
 * is not the table's for the status it is thrown with.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  AppError,
  ERROR_TYPES,
  MSG,
  UNLISTED_CODE,
  errorEntryByCode,
  errorEntryOf,
  errorTable,
  errorTypeOf,
  fill,
  messages,
  type ErrorMessage,
} from '../../functions/platform/errors';

const FUNCTIONS = resolve(__dirname, '../../functions');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

const files = sources(FUNCTIONS).map((path) => ({ path, rel: relative(FUNCTIONS, path), text: readFileSync(path, 'utf8') }));
/** Every module declaring a message group (`= messages({`), whatever its slice. */
const groupModules = files.filter((f) => /=\s*messages\(\{/.test(f.text));
const groups: Record<string, Record<string, string>> = {};

beforeAll(async () => {
  for (const f of groupModules) {
    const mod = (await import(pathToFileURL(f.path).href)) as Record<string, unknown>;
    for (const [name, value] of Object.entries(mod)) {
      if (/_MSG$|^MSG$|MESSAGES$/.test(name) && value && typeof value === 'object') groups[name] = value as Record<string, string>;
    }
  }
});

/** The first argument of each call of an error factory (and `new AppError(status, ...)`) in the sources. */
function thrownMessages(sourceFiles: { rel: string; text: string }[]): { where: string; arg: string }[] {
  const out: { where: string; arg: string }[] = [];
  const call = /\b(badRequest|unauthorized|forbidden|notFound|conflict|failedElement|failureElement)\(|new AppError\(/g;
  for (const f of sourceFiles) {
    if (f.rel === 'platform/errors.ts') continue;
    for (const m of f.text.matchAll(call)) {
      const rest = f.text.slice(m.index! + m[0].length).trimStart();
      // new AppError(status, message ...), failedElement(status, message), failureElement(field, phrase, entity, status, message)
      const skip = m[0].startsWith('new AppError') || m[1] === 'failedElement' ? 1 : m[1] === 'failureElement' ? 4 : 0;
      const args = splitArgs(rest);
      const arg = args[skip];
      if (arg === undefined) continue; // a declaration or a call spread over an identifier
      const line = f.text.slice(0, m.index).split('\n').length;
      out.push({ where: `functions/${f.rel}:${line}`, arg: arg.trim() });
    }
  }
  return out;
}

/** The top-level arguments of a call whose text starts just after `(`. */
function splitArgs(text: string): string[] {
  const args: string[] = [];
  let depth = 0;
  let current = '';
  let quote: string | undefined;
  for (const ch of text) {
    if (quote) {
      current += ch;
      if (ch === quote) quote = undefined;
      continue;
    }
    if (ch === "'" || ch === '"' || ch === '`') quote = ch;
    else if ('([{'.includes(ch)) depth++;
    else if (')]}'.includes(ch)) {
      if (depth === 0) {
        args.push(current);
        return args;
      }
      depth--;
    } else if (ch === ',' && depth === 0) {
      args.push(current);
      current = '';
      continue;
    }
    current += ch;
  }
  return args;
}

describe('message groups', () => {
  it('finds the message groups of the slices', () => {
    expect(groupModules.map((f) => f.rel).sort()).toEqual(
      expect.arrayContaining([
        'billing/messages.ts',
        'http/paging.ts',
        'identity/tokens.ts',
        'platform/errors.ts',
        'transactions/messages.ts',
      ]),
    );
  });
});

/** Why these thrown messages have no code ([] when each has one). */
function uncoded(found: { where: string; arg: string }[]): string[] {
  const problems: string[] = [];
  for (const { where, arg } of found) {
    if (/^['"`]/.test(arg)) {
      problems.push(`${where}: a literal message ${arg}: declare it in a message group with its status and code`);
      continue;
    }
    const ref = /^([A-Z_]+)\.(\w+)$/.exec(arg) ?? /^fill\(([A-Z_]+)\.(\w+),/.exec(arg);
    if (!ref) continue; // a variable holding a message (typed ErrorMessage by the factories' signatures)
    const [, group, key] = ref;
    const message = groups[group!]?.[key!];
    if (message === undefined) problems.push(`${where}: ${group}.${key} is not a message of a group`);
    else if (!errorEntryOf(arg.startsWith('fill(') ? message.replace(/\{\w+\}/g, 'x') : message))
      problems.push(`${where}: ${group}.${key} ("${message}") has no code: write it as [status, code, message]`);
  }
  return problems;
}

describe('every thrown message has a code', () => {
  it('no error is thrown with a literal message: each names a message of a group, which has a code', () => {
    const found = thrownMessages(files);
    expect(found.length).toBeGreaterThan(100);
    expect(uncoded(found)).toEqual([]);
  });

  it('the check bites: a literal message, a success message, an unknown group entry', () => {
    const PLACEHOLDER = '$' + '{status}'; // a template literal's placeholder, as text
    const text = [
      "throw notFound('Dispute not found');",
      `throw conflict(\`Dispute is ${PLACEHOLDER}\`);`,
      'throw badRequest(MONEY_MSG.balanceRetrieved, [{ path: "x", message: "y" }]);',
      'throw new AppError(401, MSG.sessionOver);',
      'return failureElement(field, phrase, entityId, 404, MSG.customerNotFound);',
    ].join('\n');
    expect(uncoded(thrownMessages([{ rel: 'x.ts', text }]))).toEqual([
      expect.stringContaining("a literal message 'Dispute not found'"),
      expect.stringContaining(`a literal message \`Dispute is ${PLACEHOLDER}\``),
      expect.stringContaining('MONEY_MSG.balanceRetrieved ("Balance retrieved") has no code'),
      expect.stringContaining('MSG.sessionOver is not a message of a group'),
    ]);
  });

  it('an unlisted message gets no specific code (the integration harness refuses such an answer)', () => {
    expect(new AppError(400, 'Not in any group' as unknown as ErrorMessage).code).toBe(UNLISTED_CODE);
  });
});

describe('the table', () => {
  it('one code per message and one message per code, snake_case; a code clash fails at load', () => {
    const table = errorTable();
    expect(table.length).toBeGreaterThan(80);
    expect(new Set(table.map((e) => e.code)).size).toBe(table.length);
    expect(new Set(table.map((e) => e.message)).size).toBe(table.length);
    for (const e of table) expect(e.code).toMatch(/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/);
    expect(() => messages({ again: [404, 'another_code', 'Event not found'] })).toThrow(/One code per message/);
    expect(() => messages({ other: [404, 'event_not_found', 'Another text'] })).toThrow(/One code per message/);
    expect(() => messages({ same: [404, 'event_not_found', 'Event not found'] })).not.toThrow();
  });

  it("each code's types follow its statuses; retry codes are 409s; 5xx is api_error internal_error", () => {
    for (const e of errorTable()) {
      expect(e.types, e.code).toEqual([...new Set(e.statuses.map(errorTypeOf))]);
      for (const t of e.types) expect(ERROR_TYPES).toContain(t);
      if (e.retry) expect(e.statuses, e.code).toEqual([409]);
    }
    expect(errorTable().filter((e) => e.statuses.some((s) => s >= 500))).toEqual([
      { code: 'internal_error', statuses: [500], types: ['api_error'], message: 'Internal server error', retry: false },
    ]);
    expect(new AppError(500, MSG.internal)).toMatchObject({ code: 'internal_error', type: 'api_error' });
  });

  it('a template has one code whatever fills it', () => {
    for (const stage of ['sandbox', 'live']) {
      const message = fill(MSG.wrongStageKey, { stage });
      expect(message).toBe(`API key is not valid for the ${stage} environment`);
      expect(new AppError(401, message)).toMatchObject({ code: 'api_key_wrong_environment', type: 'authentication_error' });
    }
    expect(errorEntryByCode('refund_finished')?.message).toBe('Refund is already {status}');
    expect(errorEntryOf('Refund is already completed')?.code).toBe('refund_finished');
  });

  it('every status type: 400 invalid_request_error ... 429 rate_limit_error, 5xx api_error', () => {
    expect(Object.fromEntries([400, 401, 403, 404, 405, 409, 410, 429, 500, 503].map((s) => [s, errorTypeOf(s)]))).toEqual({
      400: 'invalid_request_error',
      401: 'authentication_error',
      403: 'permission_error',
      404: 'not_found_error',
      405: 'invalid_request_error',
      409: 'conflict_error',
      410: 'invalid_request_error',
      429: 'rate_limit_error',
      500: 'api_error',
      503: 'api_error',
    });
  });
});
