/**
 * Function instances of artifacts mode: each function runs its built bundle in worker
 * threads of its own (runtime.mjs) with its own environment and module state. Like Lambda,
 * an instance serves one invocation at a time; a function scales out to
 * LOCAL_ARTIFACTS_INSTANCES instances (default 32, as many as concurrent invocations need)
 * and further invocations wait for a free one. Instances start on first use (a cold start) and stop after 60 s idle. An invocation
 * that outlives the function's Timeout fails with Lambda's "Task timed out" and its
 * instance is discarded, as Lambda discards it.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { FunctionSpec } from './template';

const RUNTIME = new URL('./runtime.mjs', import.meta.url);
const IDLE_MS = 60_000;

interface Pending {
  resolve(v: unknown): void;
  reject(e: Error): void;
  timer: NodeJS.Timeout;
}

class Instance {
  readonly worker: Worker;
  readonly ready: Promise<void>;
  busy = false;
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
    });
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
    this.worker.on('message', (m: { id?: string; ok?: boolean; result?: unknown; error?: { name: string; message: string; stack?: string } }) => {
      if (!m.id) return;
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      clearTimeout(p.timer);
      if (m.ok) p.resolve(m.result);
      else p.reject(Object.assign(new Error(m.error!.message), { name: m.error!.name, stack: m.error!.stack }));
    });
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
  private readonly waiting: (() => void)[] = [];
  private readonly entry: string;
  private readonly exportName: string;
  private readonly reaper: NodeJS.Timeout;
  private stopped = false;
  /** Cold starts so far (instances created). */
  coldStarts = 0;

  constructor(
    readonly spec: FunctionSpec,
    private env: Record<string, string>,
    private readonly maxInstances = Number(process.env.LOCAL_ARTIFACTS_INSTANCES ?? 32),
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
      if (!i.busy && Date.now() - i.lastUsed > IDLE_MS) this.discard(i);
    }
  }

  private discard(i: Instance) {
    const at = this.instances.indexOf(i);
    if (at >= 0) this.instances.splice(at, 1);
    void i.stop();
    this.waiting.shift()?.();
  }

  private async acquire(): Promise<Instance> {
    for (;;) {
      if (this.stopped) throw new Error(`${this.spec.name} is stopped`);
      const idle = this.instances.find((i) => !i.busy && !i.dead);
      if (idle) {
        idle.busy = true;
        return idle;
      }
      if (this.instances.length < this.maxInstances) {
        const i = new Instance(this.spec, this.env, this.entry, this.exportName);
        this.coldStarts++;
        i.busy = true;
        this.instances.push(i);
        try {
          await i.ready;
        } catch (e) {
          this.discard(i);
          throw e;
        }
        return i;
      }
      await new Promise<void>((r) => this.waiting.push(r));
    }
  }

  async invoke(event: unknown): Promise<unknown> {
    const inst = await this.acquire();
    try {
      return await inst.invoke(event, this.spec.timeoutSeconds * 1000, () => this.discard(inst));
    } finally {
      inst.busy = false;
      inst.lastUsed = Date.now();
      if (inst.dead) this.discard(inst);
      else this.waiting.shift()?.();
    }
  }

  /**
   * Like `aws lambda update-function-configuration`: later invocations run on instances
   * started with the new environment; running ones finish on their own, then are discarded.
   */
  updateEnvironment(vars: Record<string, string>): void {
    this.env = { ...this.env, ...vars };
    for (const i of [...this.instances]) {
      if (i.busy) i.dead = true;
      else this.discard(i);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.reaper);
    for (const w of this.waiting.splice(0)) w();
    await Promise.allSettled(this.instances.splice(0).map((i) => i.stop()));
  }
}
