/**
 * Invitation e-mail in the CDK app (DESIGN 9.1): with `-c mailFrom` the data stack has one SES
 * e-mail identity, only the role of the routes that send (MAIL_ROUTES: invite a teammate, the
 * operator's participant with its owner) may `ses:SendEmail`, and only from that identity;
 * every function knows the sender (MAIL_FROM). Without it nothing may send.
 */
import { App } from 'aws-cdk-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAIL_ROUTES, profileFor } from '../../lib/access';
import { readSettings } from '../../lib/settings';
import { ROUTES } from '../../functions/routes';
import { buildStage, type BuiltStage } from '../support/cdk-stage';

const FROM = 'no-reply@idpay.example.com';
const arr = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** Every IAM statement allowing an SES action, with the roles its policy is attached to. */
function sesStatements(b: BuiltStage) {
  return Object.values(b.resources)
    .filter((r) => r.Type === 'AWS::IAM::Policy')
    .flatMap((p) =>
      (p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[])
        .filter((s) => arr(s.Action).some((a) => a.startsWith('ses:')))
        .map((s) => ({
          roles: arr(p.Properties.Roles).map((r) => JSON.stringify(r)),
          actions: arr(s.Action),
          resource: JSON.stringify(s.Resource),
        })),
    );
}

let withMail: BuiltStage;
let withoutMail: BuiltStage;
beforeAll(() => {
  withMail = buildStage('live', { mailFrom: FROM, nag: true });
  withoutMail = buildStage('live');
});

describe('invitation e-mail', () => {
  it('only the routes that e-mail people get the sending profile', () => {
    const sending = ROUTES.filter((r) => profileFor(r) === 'writeMail').map((r) => `${r.method} ${r.path}`);
    expect(sending.sort()).toEqual([...MAIL_ROUTES].sort());
    expect(sending).toEqual(expect.arrayContaining(['POST /v1/team/invitations', 'POST /v1/operator/participants']));
  });

  it('with mailFrom: one SES identity for the sender, SendEmail on it for the sending role only', () => {
    const identities = Object.entries(withMail.resources).filter(([, r]) => r.Type === 'AWS::SES::EmailIdentity');
    expect(identities).toHaveLength(1);
    const [id, identity] = identities[0]!;
    expect(identity.Properties.EmailIdentity).toBe(FROM);
    expect(withMail.stackOfId(id)).toBe('Idpay-live-data');
    const statements = sesStatements(withMail);
    expect(statements).toHaveLength(1);
    expect(statements[0]!.actions).toEqual(['ses:SendEmail']);
    expect(statements[0]!.resource).toContain(':identity/');
    expect(statements[0]!.resource).not.toContain('*');
    expect(statements[0]!.roles).toHaveLength(1);
    expect(statements[0]!.roles[0]).toContain('RouteWriteMail');
  });

  it('every function knows the sender; without mailFrom there is no identity, no grant, no sender', () => {
    const fns = (b: BuiltStage) =>
      Object.values(b.resources).filter((r) => r.Type === 'AWS::Lambda::Function' && String(r.Properties.Runtime).startsWith('nodejs'));
    for (const fn of fns(withMail).filter((f) => f.Properties.Environment?.Variables?.APP_SECRETS_ARN))
      expect(fn.Properties.Environment.Variables.MAIL_FROM).toBe(FROM);
    expect(Object.values(withoutMail.resources).filter((r) => r.Type === 'AWS::SES::EmailIdentity')).toHaveLength(0);
    expect(sesStatements(withoutMail)).toHaveLength(0);
    for (const fn of fns(withoutMail)) expect(fn.Properties.Environment?.Variables?.MAIL_FROM).toBeUndefined();
  });

  it('mailFrom must be an e-mail address; DASHBOARD_URL an https origin', () => {
    const appWith = (context: Record<string, unknown>) => new App({ context });
    expect(readSettings(appWith({ mailFrom: FROM })).mailFrom).toBe(FROM);
    expect(() => readSettings(appWith({ mailFrom: 'not an address' }))).toThrow(/"mailFrom" must be an e-mail address/);
    expect(readSettings(appWith({ DASHBOARD_URL: 'https://dash.example.com' })).runtime).toEqual({
      DASHBOARD_URL: 'https://dash.example.com',
    });
    expect(() => readSettings(appWith({ DASHBOARD_URL: 'http://dash.example.com' }))).toThrow(/DASHBOARD_URL must be an https origin/);
  });
});
