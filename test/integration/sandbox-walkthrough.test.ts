/**
 * README "Test your integration in the sandbox": the walkthrough block is executed AS IT IS,
 * step by step, with bash, curl and jq against a local stack whose scheduler tick runs on its
 * own (as `npm start` does), with the default SANDBOX_BANK_DELAY_SECONDS. Only the three
 * variables the reader sets (BASE_URL, OPERATOR_KEY, WEBHOOK_URL) come from the test. Each
 * `# step: ... (expect NNN)` is checked against the HTTP status of the step's last curl call,
 * and the webhooks the README promises are checked on a real receiver.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app';
import { ledgerProblems } from '../support/billing-table';
import { events } from '../support/flows';
import { startReceiver, type Receiver } from '../../local/receiver';

const README = join(__dirname, '..', '..', 'README.md');
const MARKER = '<!-- walkthrough: executed by test/integration/sandbox-walkthrough.test.ts -->';

export interface WalkthroughStep {
  name: string;
  expect: number;
  code: string;
}

/** The fenced bash block right after the marker, split at `# step:` lines. */
export function parseWalkthrough(markdown: string): WalkthroughStep[] {
  const at = markdown.indexOf(MARKER);
  if (at < 0) throw new Error('README: walkthrough marker not found');
  const m = /^```bash\n([\s\S]*?)^```$/m.exec(markdown.slice(at + MARKER.length));
  if (!m) throw new Error('README: no bash block after the walkthrough marker');
  const steps: WalkthroughStep[] = [];
  for (const line of m[1]!.split('\n')) {
    const head = /^# step: (.+) \(expect (\d{3})\)\s*$/.exec(line);
    if (head) steps.push({ name: head[1]!, expect: Number(head[2]), code: '' });
    else if (steps.length > 0) steps[steps.length - 1]!.code += `${line}\n`;
    else if (line.trim() !== '') throw new Error(`README walkthrough: text before the first step: ${line}`);
  }
  return steps;
}

/**
 * The script: a `curl` function that records each call's HTTP status (the block's own curl
 * commands run unchanged through it), then each step followed by a marker line with the
 * status of its last call, then the variables the block assigned.
 */
function script(steps: WalkthroughStep[], dir: string): string {
  const vars = [...new Set(steps.flatMap((s) => [...s.code.matchAll(/^\s*([A-Z_]+)=\$\(/gm)].map((x) => x[1]!)))];
  const parts = [
    'set -u',
    `__status="${dir}/status"`,
    'curl() { local body code; body=$(mktemp); code=$(command curl -sS -o "$body" -w "%{http_code}" "$@") || code=000; echo "$code" > "$__status"; cat "$body"; rm -f "$body"; }',
  ];
  steps.forEach((s, i) => {
    parts.push(`echo 000 > "$__status"`, s.code, `echo; echo "@@STEP ${i} $(cat "$__status")"`);
  });
  for (const v of vars) parts.push(`echo "@@VAR ${v}=\${${v}:-}"`);
  return parts.join('\n');
}

function run(cmd: string, env: Record<string, string>, timeoutMs: number): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    // Asynchronous on purpose: the local stack answers in this very process.
    const child = spawn('bash', ['-c', cmd], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`walkthrough timed out:\n${out}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

const tools = ['bash', 'curl', 'jq'].filter((tool) => spawnSync('which', [tool]).status !== 0);

let t: TestApp;
let rx: Receiver;

beforeAll(async () => {
  // The default answer delay (2 s) and a running tick, as in `npm start`.
  t = await startTestApp({}, { tickMs: 500 });
  rx = await startReceiver();
});
afterAll(async () => {
  await rx?.close();
  await t?.stop();
});

describe('README walkthrough', () => {
  it('parses into the documented steps', () => {
    const steps = parseWalkthrough(readFileSync(README, 'utf8'));
    expect(steps.length).toBeGreaterThanOrEqual(12);
    const names = steps.map((s) => s.name).join('\n');
    for (const must of [
      'simulated bank',
      'merchant',
      'webhook',
      'magic customers',
      'by email',
      'billing intent',
      'billing.intent.response',
      'bill',
      'billing.response',
      'refund',
      'settle',
      'balance',
    ]) {
      expect(names).toContain(must);
    }
    for (const s of steps) expect(s.code).toMatch(/curl /);
  });

  it('runs end to end with curl and jq: every step has its expected status and the webhooks arrive', async () => {
    expect(tools, 'the walkthrough test needs these tools on PATH').toEqual([]);
    const steps = parseWalkthrough(readFileSync(README, 'utf8'));
    const hook = rx.endpointUrl('walkthrough');
    const dir = mkdtempSync(join(tmpdir(), 'walkthrough-'));
    let result: { code: number | null; out: string };
    try {
      writeFileSync(join(dir, 'walkthrough.sh'), script(steps, dir));
      result = await run(
        `bash ${join(dir, 'walkthrough.sh')}`,
        { BASE_URL: t.url, OPERATOR_KEY: t.operatorKey, WEBHOOK_URL: hook.url },
        150_000,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const statuses = new Map([...result.out.matchAll(/^@@STEP (\d+) (\d{3})$/gm)].map((m) => [Number(m[1]), Number(m[2])]));
    const vars = Object.fromEntries([...result.out.matchAll(/^@@VAR ([A-Z_]+)=(.*)$/gm)].map((m) => [m[1]!, m[2]!]));
    const report = steps.map((s, i) => `${s.name}: expected ${s.expect}, got ${statuses.get(i)}`).join('\n');
    steps.forEach((s, i) => expect(statuses.get(i), `${report}\n\n${result.out}`).toBe(s.expect));
    expect(result.code).toBe(0);

    for (const v of ['BANK_ID', 'MERCHANT_KEY', 'LOOKUP', 'AGREEMENT', 'REFERENCE', 'STATUS', 'REFUND_ID']) {
      expect(vars[v], `${v}\n${result.out}`).toBeTruthy();
    }
    expect(vars.BANK_ID).toMatch(/^bnk_/);
    expect(vars.MERCHANT_KEY).toMatch(/^sk_sandbox_/);
    expect(vars.STATUS).toBe('succeeded');

    // What the README says the merchant's endpoint receives.
    const [intentResponse] = await events(rx, hook, 'billing.intent.response');
    expect(intentResponse!.data).toMatchObject({
      lookupPhrase: vars.LOOKUP,
      decision: 'approve_once',
      customerAction: 'approved',
      agreementPhrase: vars.AGREEMENT,
    });
    const [billingResponse] = await events(rx, hook, 'billing.response');
    expect(billingResponse!.data).toMatchObject({
      reference: vars.REFERENCE,
      status: 'succeeded',
      amount: 1500,
      customerAction: 'approved',
    });
    const refund = await events(rx, hook, 'refund.updated', 1, (e) => e.data.status === 'completed');
    expect(refund[0]!.data).toMatchObject({ refundId: vars.REFUND_ID, amount: 500 });
    const [settled] = await events(rx, hook, 'settlement.completed');
    expect(settled!.data).toMatchObject({ amount: 1000 });

    const balance = await t.call('GET', '/v1/balance/details', { key: vars.MERCHANT_KEY! });
    expect(balance.body.data).toMatchObject({ totalBalance: 1000, unsettledBalance: 0, settledBalance: 1000 });
    const merchantId = intentResponse!.data.entityId as string;
    expect(await ledgerProblems(merchantId)).toEqual([]);
  });
});
