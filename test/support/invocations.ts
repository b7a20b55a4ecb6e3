/**
 * Which functions a test file ran, recorded for the suite's deploy-parity check (DESIGN 10.1:
 * every function runs from its built bundle, under the template's environment and IAM, at
 * least once in a flow that exercises it): when IDPAY_INVOCATIONS_DIR is set (the artifacts
 * project sets it), each stack a file stops writes one JSON record there: the file, the
 * stage, the mode and the functions invoked (artifacts mode: the template's logical ids;
 * source mode: the handler modules). test/artifacts/parity.test.ts reads them after every
 * other file of the run.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect } from 'vitest';
import { invokedModules } from '../../local/lambda';
import type { LocalApp } from '../../local/app';
import { randomToken } from '../../functions/domain/ids';

export interface InvocationRecord {
  /** The test file, relative to the project root. */
  file: string;
  stage: 'sandbox' | 'live';
  mode: 'artifacts' | 'source';
  /** Artifacts mode: function logical ids; source mode: handler modules (functions/<module>.ts). */
  functions: string[];
  /** Artifacts mode: bundle loads (instances started), all functions together. */
  coldStarts?: number;
}

export const invocationsDir = (): string | undefined => process.env.IDPAY_INVOCATIONS_DIR || undefined;

/** The functions `app` has invoked so far. */
export function invokedBy(app: LocalApp): Pick<InvocationRecord, 'mode' | 'functions' | 'coldStarts'> {
  const pools = (app as { pools?: Map<string, { invocations: number; coldStarts: number }> }).pools;
  if (pools)
    return {
      mode: 'artifacts',
      functions: [...pools].filter(([, p]) => p.invocations > 0).map(([id]) => id),
      coldStarts: [...pools.values()].reduce((n, p) => n + p.coldStarts, 0),
    };
  return { mode: 'source', functions: [...invokedModules] };
}

/** Writes `app`'s record when IDPAY_INVOCATIONS_DIR is set. */
export function recordInvocations(app: LocalApp, stage: 'sandbox' | 'live'): void {
  const dir = invocationsDir();
  if (!dir) return;
  const testPath = expect.getState().testPath ?? 'unknown';
  const record: InvocationRecord = { file: relative(process.cwd(), testPath), stage, ...invokedBy(app) };
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${randomToken(12)}.json`), JSON.stringify(record));
}

export function readInvocations(dir: string): InvocationRecord[] {
  let names: string[] = [];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.json'));
  } catch {
    return [];
  }
  return names.map((n) => JSON.parse(readFileSync(join(dir, n), 'utf8')) as InvocationRecord);
}
