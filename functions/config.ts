/**
 * Runtime configuration, read from the environment on every call (cheap) so that
 * the same names work on Lambda and locally (DESIGN 6.8). Nothing here has a
 * local-only meaning: the local runtime only sets these variables.
 */
export type Stage = 'sandbox' | 'live';

function num(name: string, dflt: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return dflt;
  const n = Number(raw);
  if (!Number.isFinite(n)) throw new Error(`Configuration ${name} must be a number`);
  return n;
}

function required(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`Configuration ${name} is not set`);
  return v;
}

/**
 * Webhook retries when nothing is configured, the same in code and on deployed stacks
 * (lib/settings.ts RUNTIME_DEFAULTS takes them from here): DESIGN 6.6 asks for "at least 8
 * attempts over at least 24 h". 13 attempts from a 60 s base doubling (each wait capped at
 * 12 h) span about 41 h, and still 32.8 h with every wait at the low end of its ±20 % jitter
 * (12 attempts: 29 h, but 23.2 h at the low end); 6.8's 8 attempts spanned about 2.1 h.
 * Tests shrink them.
 */
export const WEBHOOK_DEFAULTS = { maxAttempts: 13, backoffBaseSeconds: 60 } as const;

export const config = {
  stage(): Stage {
    const s = process.env.STAGE ?? 'sandbox';
    if (s !== 'sandbox' && s !== 'live') throw new Error('Configuration STAGE must be sandbox or live');
    return s;
  },
  tableName: () => required('TABLE_NAME'),
  /** Queue URLs by logical queue name (see platform/definitions.ts), from QUEUE_URL_<NAME>. */
  queueUrl: (name: string) => required(`QUEUE_URL_${name.toUpperCase().replace(/-/g, '_')}`),
  approvalWindowSeconds: () => num('APPROVAL_WINDOW_SECONDS', 600),
  webhookMaxAttempts: () => num('WEBHOOK_MAX_ATTEMPTS', WEBHOOK_DEFAULTS.maxAttempts),
  webhookBackoffBaseSeconds: () => num('WEBHOOK_BACKOFF_BASE_SECONDS', WEBHOOK_DEFAULTS.backoffBaseSeconds),
  rateLimitPerMinute: () => num('RATE_LIMIT_PER_MINUTE', 600),
  /** Optional per-class overrides, JSON: {"billing": 300}. */
  rateLimitFor(rateClass: string): number {
    const raw = process.env.RATE_LIMITS;
    if (raw) {
      const overrides = JSON.parse(raw) as Record<string, number>;
      const v = overrides[rateClass];
      if (typeof v === 'number') return v;
    }
    return this.rateLimitPerMinute();
  },
  /** Partitions of the due index (raise only: the tick reads shards 0..N-1). */
  dueShards: () => num('DUE_SHARDS', 32),
  /** The most due items of one shard the tick claims itself; a shard with more goes to a claim job (fan-out). */
  dueTickInline: () => Math.max(0, Math.floor(num('DUE_TICK_INLINE', 200))),
  /** The most due items one claim job claims before handing the rest of its shard to the next. */
  dueClaimJobMax: () => Math.max(1, Math.floor(num('DUE_CLAIM_JOB_MAX', 2_000))),
  /** How long a claimed due item stays invisible to other ticks (seconds). */
  dueLeaseSeconds: () => num('DUE_LEASE_SECONDS', 300),
  /** The operator's key: plain (local/dev) or its SHA-256 hex (deployed stacks keep only the hash). */
  operatorKey: () => process.env.OPERATOR_API_KEY || undefined,
  operatorKeyHash: () => process.env.OPERATOR_API_KEY_HASH || undefined,
  logLevel: () => process.env.LOG_LEVEL ?? 'INFO',
  /** Money: counters per merchant for balances and settlement batches (hot-item spreading). */
  balanceShards: () => Math.max(1, Math.floor(num('BALANCE_SHARDS', 4))),
  /** Withdrawal bounds shown with the balance, in major units (NGN). */
  withdrawalMin: () => num('WITHDRAWAL_MIN', 100),
  withdrawalMax: () => num('WITHDRAWAL_MAX', 10_000_000),
  /** Discovery budgets (DESIGN 10.5): a merchant's customer look-ups per Lagos day, unless its provider set its own. */
  discoveryDailyLimit: () => num('DISCOVERY_DAILY_LIMIT', 1_000),
  /** ... and how many of them may find no customer. */
  discoveryMissLimit: () => num('DISCOVERY_MISS_LIMIT', 100),
  /** Customer protection (DESIGN 8.5): the bank's `billing.upcoming` comes this long before each recurring run (0 = off). */
  preDebitNoticeSeconds: () => Math.max(0, num('PRE_DEBIT_NOTICE_SECONDS', 86_400)),
  /** Sandbox only: a refund completes this long after it was initiated. */
  refundAutoCompleteSeconds: () => num('REFUND_AUTO_COMPLETE_SECONDS', 5),
  /** How long a merchant has to answer a dispute (DESIGN 9.4): past it, the dispute is lost. */
  disputeResponseSeconds: () => num('DISPUTE_RESPONSE_SECONDS', 7 * 86_400),
  /** Exports (DESIGN 8.8): the S3 bucket of the stage, and how long a download URL stays valid. */
  exportsBucket: () => required('EXPORTS_BUCKET'),
  exportUrlSeconds: () => num('EXPORT_URL_SECONDS', 900),
  /** How long one run of an export job writes before it saves its place and lets the next tick continue (the jobs worker's timeout is 60 s). */
  exportRunSeconds: () => num('EXPORT_RUN_SECONDS', 30),
  /**
   * Sandbox test clocks (DESIGN 9.2): how long (real time) an advance waits for a bank's answer
   * to a clocked run or billing before the clock passes that answer's deadline. At most 30:
   * the wait runs inside one step of the advance, and the jobs worker's timeout is 60 s.
   */
  testClockBankWaitSeconds: () => Math.min(30, Math.max(0, num('TEST_CLOCK_BANK_WAIT_SECONDS', 10))),
  /**
   * How long a Lambda instance keeps what Cognito said of a person's two-factor authentication
   * (DESIGN 10.3: "cached <= 60 s"): at most 60 s whatever is set; tests shorten it.
   */
  mfaCacheSeconds: () => Math.min(60, Math.max(0, num('MFA_CACHE_SECONDS', 60))),
  /** Where the dashboard is (links in e-mail): e.g. `https://dashboard.example.com`; the local stack sets its own URL. */
  dashboardUrl: () => (process.env.DASHBOARD_URL ?? '').replace(/\/+$/, ''),
};
