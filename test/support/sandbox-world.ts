/**
 * The sandbox world the simulated-bank tests share: a test app whose simulated bank answers
 * after SANDBOX_BANK_DELAY_MS, a webhook receiver, and that bank with its own endpoint.
 */
import { startReceiver, type Receiver } from '../../local/receiver';
import { startTestApp, type TestApp } from './app';
import { webhook, type Hook, type Party } from './flows';

export const SANDBOX_BANK_DELAY_MS = 1000;

export interface SandboxWorld {
  t: TestApp;
  rx: Receiver;
  /** The simulated bank (the oldest of the app: it holds the exact device ids). */
  sim: Party;
  simHook: Hook;
}

export async function startSandboxWorld(): Promise<SandboxWorld> {
  const t = await startTestApp({
    SANDBOX_BANK_DELAY_SECONDS: String(SANDBOX_BANK_DELAY_MS / 1000),
    APPROVAL_WINDOW_SECONDS: '30',
    REFUND_AUTO_COMPLETE_SECONDS: '3600',
  });
  const rx = await startReceiver();
  const sim = await t.participant('bank', { simulated: true });
  const simHook = await webhook(t, rx, sim, { label: 'sim' });
  return { t, rx, sim, simHook };
}

export async function stopSandboxWorld(w: Partial<SandboxWorld>): Promise<void> {
  await w.rx?.close();
  await w.t?.stop();
}

/** A magic customer's email (functions/sandbox/magic.ts). */
export const magicEmail = (local: string) => `${local}@sandbox.idpay.test`;

/** Let the simulated bank answer what is due: a tick past its delay, then the queues. */
export async function letSimulatedBankAnswer(t: TestApp): Promise<void> {
  await t.app.tick(new Date(Date.now() + SANDBOX_BANK_DELAY_MS + 500));
  await t.app.settle();
}
