/**
 * The local stand-in for e-mail (functions/platform/mail.ts writes one JSON file per message
 * into MAIL_DIR): `npm start` prints each new message's link, tests read them.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Mail } from '../functions/platform/mail';

export interface SentMail extends Mail {
  at: string;
  file: string;
}

/** Every message in the outbox folder, oldest first. */
export function readMail(dir: string): SentMail[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json') && !f.startsWith('.'))
    .sort()
    .map((file) => ({ ...(JSON.parse(readFileSync(join(dir, file), 'utf8')) as Omit<SentMail, 'file'>), file }));
}

/** Calls `onMail` for each message that arrives in `dir` from now on (polled every 250 ms). */
export function watchMail(dir: string, onMail: (m: SentMail) => void): () => void {
  const seen = new Set(readMail(dir).map((m) => m.file));
  const timer = setInterval(() => {
    for (const m of readMail(dir)) {
      if (seen.has(m.file)) continue;
      seen.add(m.file);
      onMail(m);
    }
  }, 250);
  timer.unref();
  return () => clearInterval(timer);
}
