/**
 * Function instances of artifacts mode: each function runs its built bundle in worker
 * threads of its own (runtime.mjs) with its own environment and module state. Like Lambda,
 * an invocation goes to an idle instance, or starts a new one (a cold start), up to
 * LOCAL_ARTIFACTS_INSTANCES instances per function (default 4). Beyond that, where Lambda
 * would start more instances, the least busy instance takes the invocation concurrently
 * (a bounded number of threads on a small machine; module state is still never shared
 * between functions, and several instances of one function never share it either).
 * Instances stop after 60 s idle (LOCAL_ARTIFACTS_IDLE_SECONDS). An invocation that outlives the function's Timeout
 * (times LOCAL_ARTIFACTS_TIMEOUT_FACTOR, default 1; the test projects use 4 on a loaded
 * 2-core machine) fails with Lambda's "Task timed out" and its instance is discarded.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { FunctionSpec } from './template';

const RUNTIME = new URL('./runtime.mjs', import.meta.url);
/**
 * How long an idle instance lives (LOCAL_ARTIFACTS_IDLE_SECONDS, default 60; Lambda keeps
 * them for minutes). The test project keeps them for its files' whole life: a bundle loaded
 * again after a minute's pause is a cold start the flow under test did not ask for.
 */
const idleMs = () => Number(process.env.LOCAL_ARTIFACTS_IDLE_SECONDS ?? 60) * 1000;

interface Pending {
  resolve(v: unknown): void;
  reject(e: Error): void;
  timer: NodeJS.Timeout;
}

/**
 * A function's stdout, passed on without its EMF metric lines (`{"_aws":...}`): CloudWatch
 * turns those into metrics on Lambda; here they would only bury the log lines (thousands in a
 * test run). Its log lines (JSON, one a line) go on to this process's stdout as they come.
 */
function passOnStdout(worker: Worker): void {
  const logLines = (lines: string[]) => lines.filter((l) => !l.startsWith('{"_aws"'));
  const write = (lines: string[]) => lines.length && process.stdout.write(`${lines.join('\n')}\n`);
  let rest = '';
  worker.stdout.setEncoding('utf8');
  worker.stdout.on('data', (chunk: string) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop() ?? '';
    write(logLines(lines));
  });
  worker.stdout.on('end', () => write(logLines(rest ? [rest] : [])));
}

class Instance {
  readonly worker: Worker;
  readonly ready: Promise<void>;
  /** Invocations in flight on this instance. */
  inflight = 0;
  dead = false;
  lastUsed = Date.now();
  private readonly pending = new Map<string, Pending>();

  constructor(spec: FunctionSpec, env: Record<string, string>, entry: string, exportName: string) {
    this.worker = new Worker(RUNTIME, {
      env,
      workerData: {
        entry: pathToFileURL(entry).href,
        exportName,
        functionName: spec.name,
        memoryMb: spec.memoryMb,
        arn: spec.arn,
        logGroup: `/aws/lambda/${spec.name}`,
      },
      resourceLimits: { maxOldGenerationSizeMb: Math.max(64, spec.memoryMb) },
      stdout: true,
    });
    passOnStdout(this.worker);
    this.worker.unref();
    this.ready = new Promise((res, rej) => {
      const onMessage = (m: { ready?: boolean }) => {
        if (m.ready) {
          this.worker.off('error', onError);
          res();
        }
      };
      const onError = (e: Error) => rej(Object.assign(new Error(`Runtime.ImportModuleError in ${spec.name}: ${e.message}`), { cause: e }));
      this.worker.once('message', onMessage);
      this.worker.once('error', onError);
    });
    this.ready.catch(() => undefined);
    this.worker.on(
      'message',
      (m: { id?: string; ok?: boolean; result?: unknown; error?: { name: string; message: string; stack?: string } }) => {
        if (!m.id) return;
        const p = this.pending.get(m.id);
        if (!p) return;
        this.pending.delete(m.id);
        clearTimeout(p.timer);
        if (m.ok) p.resolve(m.result);
        else p.reject(Object.assign(new Error(m.error!.message), { name: m.error!.name, stack: m.error!.stack }));
      },
    );
    const fail = (e: Error) => {
      this.dead = true;
      for (const [, p] of this.pending) {
        clearTimeout(p.timer);
        p.reject(e);
      }
      this.pending.clear();
    };
    this.worker.on('error', (e) => fail(e));
    this.worker.on('exit', (code) => fail(new Error(`Runtime.ExitError: ${spec.name} instance exited (${code})`)));
  }

  invoke(event: unknown, timeoutMs: number, onTimeout: () => void): Promise<unknown> {
    const id = randomUUID();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`Task timed out after ${(timeoutMs / 1000).toFixed(2)} seconds`));
        onTimeout();
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      this.worker.postMessage({ id, event, requestId: id, deadline: Date.now() + timeoutMs });
    });
  }

  stop(): Promise<number> {
    this.dead = true;
    return this.worker.terminate();
  }
}

export class FunctionPool {
  private readonly instances: Instance[] = [];
  private readonly entry: string;
  private readonly exportName: string;
  private readonly reaper: NodeJS.Timeout;
  private stopped = false;
  /** Cold starts so far (instances created). */
  coldStarts = 0;
  /** Invocations so far (the suite's deploy-parity check: test/artifacts/parity.test.ts). */
  invocations = 0;

  constructor(
    readonly spec: FunctionSpec,
    private env: Record<string, string>,
    private readonly maxInstances = Number(process.env.LOCAL_ARTIFACTS_INSTANCES ?? 4),
    private readonly timeoutMs = spec.timeoutSeconds * 1000 * Number(process.env.LOCAL_ARTIFACTS_TIMEOUT_FACTOR ?? 1),
  ) {
    const dot = spec.handler.lastIndexOf('.');
    const base = spec.handler.slice(0, dot);
    this.exportName = spec.handler.slice(dot + 1);
    const file = ['.mjs', '.js', '.cjs'].map((ext) => join(spec.codeDir, base + ext)).find((f) => existsSync(f));
    if (!file) throw new Error(`Function ${spec.name}: no ${base}.mjs/.js/.cjs in its bundle ${spec.codeDir}`);
    this.entry = file;
    this.reaper = setInterval(() => this.reap(), 10_000);
    this.reaper.unref();
  }

  private reap() {
    for (const i of [...this.instances]) {
      if (i.inflight === 0 && Date.now() - i.lastUsed > idleMs()) this.discard(i);
    }
  }

  private discard(i: Instance) {
    i.dead = true;
    const at = this.instances.indexOf(i);
    if (at >= 0) this.instances.splice(at, 1);
    void i.stop();
  }

  private async acquire(): Promise<Instance> {
    if (this.stopped) throw new Error(`${this.spec.name} is stopped`);
    const live = this.instances.filter((i) => !i.dead);
    let inst = live.find((i) => i.inflight === 0);
    if (!inst && live.length < this.maxInstances) {
      inst = new Instance(this.spec, this.env, this.entry, this.exportName);
      this.coldStarts++;
      this.instances.push(inst);
    }
    inst ??= live.reduce((a, b) => (b.inflight < a.inflight ? b : a));
    inst.inflight++;
    try {
      await inst.ready;
    } catch (e) {
      inst.inflight--;
      this.discard(inst);
      throw e;
    }
    return inst;
  }

  async invoke(event: unknown): Promise<unknown> {
    this.invocations++;
    const inst = await this.acquire();
    try {
      return await inst.invoke(event, this.timeoutMs, () => this.discard(inst));
    } finally {
      inst.inflight--;
      inst.lastUsed = Date.now();
      if (inst.dead && inst.inflight === 0) this.discard(inst);
    }
  }

  /** Starts one instance ahead of the first invocation (no-op when one exists). */
  async warm(): Promise<void> {
    if (this.stopped || this.instances.some((i) => !i.dead)) return;
    const i = new Instance(this.spec, this.env, this.entry, this.exportName);
    this.coldStarts++;
    this.instances.push(i);
    await i.ready.catch(() => this.discard(i));
  }

  /**
   * Like `aws lambda update-function-configuration`: later invocations run on instances
   * started with the new environment; running ones finish on their own, then are discarded.
   */
  updateEnvironment(vars: Record<string, string>): void {
    this.env = { ...this.env, ...vars };
    for (const i of [...this.instances]) {
      if (i.inflight > 0) i.dead = true;
      else this.discard(i);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.reaper);
    await Promise.allSettled(this.instances.splice(0).map((i) => i.stop()));
  }
}
