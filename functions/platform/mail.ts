/**
 * E-mail to people (invitations). One transport per deployment, chosen by configuration:
 *
 * - `MAIL_FROM` set (AWS): Amazon SES v2 `SendEmail` from that verified identity (the CDK app
 *   creates the identity and grants `ses:SendEmail` on it to the functions that send).
 * - `MAIL_DIR` set (the local runtime): the message is written as one JSON file into that
 *   folder; `npm start` prints each new one (as it prints Cognito's confirmation codes), and
 *   tests read them.
 * - neither: nothing is sent; a warning without the address is logged.
 *
 * Sending is best effort for the caller: the invitation exists (and its token is answered to
 * the inviter) whether or not the e-mail went out; a failure is logged without the address.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { logger } from './log';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  /** What the message is about, for logs and the local outbox (never personal data). */
  kind: string;
  /** The link the message is for (printed by `npm start` for the local outbox). */
  link?: string;
}

let ses: Promise<{ send: (mail: Mail, from: string) => Promise<void> }> | undefined;

/** The SES client, loaded on the first message (only the functions that send bundle it). */
const sesTransport = () =>
  (ses ??= import('@aws-sdk/client-sesv2').then(({ SESv2Client, SendEmailCommand }) => {
    const client = new SESv2Client({});
    return {
      send: async (mail: Mail, from: string) => {
        await client.send(
          new SendEmailCommand({
            FromEmailAddress: from,
            Destination: { ToAddresses: [mail.to] },
            Content: {
              Simple: {
                Subject: { Data: mail.subject, Charset: 'UTF-8' },
                Body: { Text: { Data: mail.text, Charset: 'UTF-8' } },
              },
            },
          }),
        );
      },
    };
  }));

/** Writes the message into the local outbox folder (atomically: a reader never sees half a file). */
function writeToOutbox(dir: string, mail: Mail): void {
  mkdirSync(dir, { recursive: true });
  const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID()}.json`;
  const tmp = join(dir, `.${name}`);
  writeFileSync(tmp, JSON.stringify({ ...mail, at: new Date().toISOString() }, null, 2));
  renameSync(tmp, join(dir, name));
}

/** Sends `mail` through the configured transport; true when it was handed over. Never throws. */
export async function sendMail(mail: Mail): Promise<boolean> {
  try {
    const from = process.env.MAIL_FROM;
    const dir = process.env.MAIL_DIR;
    if (from) await (await sesTransport()).send(mail, from);
    else if (dir) writeToOutbox(dir, mail);
    else {
      logger.warn('No mail transport configured (MAIL_FROM or MAIL_DIR): e-mail not sent', { kind: mail.kind });
      return false;
    }
    return true;
  } catch (error) {
    logger.error('E-mail not sent', { kind: mail.kind, error: error as Error });
    return false;
  }
}
