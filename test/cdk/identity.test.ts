/**
 * The people's user pool per stage (DESIGN 8.3): pool and dashboard client
 * settings, retention in live, threat protection per stage, cdk-nag, and the variables the
 * token verifier reads on every API function.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { People } from '../../lib/identity';
import { USER_POOL } from '../../functions/identity/pool';
import { buildStage } from '../support/cdk-stage';
import type { StageName } from '../../lib/settings';

interface Built {
  stack: Stack;
  people: People;
  template: Template;
}

function buildPeople(stage: StageName): Built {
  const stack = new Stack(new App(), `People-${stage}`);
  const people = new People(stack, 'People', { stage });
  return { stack, people, template: Template.fromStack(stack) };
}

const built = {} as Record<StageName, Built>;
beforeAll(() => {
  built.sandbox = buildPeople('sandbox');
  built.live = buildPeople('live');
});

const poolOf = (b: Built) => {
  const pools = Object.values(b.template.findResources('AWS::Cognito::UserPool'));
  expect(pools).toHaveLength(1);
  return pools[0] as { Properties: Record<string, any>; DeletionPolicy?: string; UpdateReplacePolicy?: string };
};
const clientOf = (b: Built) => {
  const clients = Object.values(b.template.findResources('AWS::Cognito::UserPoolClient'));
  expect(clients).toHaveLength(1);
  return (clients[0] as { Properties: Record<string, any> }).Properties;
};

describe.each(['sandbox', 'live'] as const)('user pool (%s)', (stage) => {
  const b = () => built[stage];

  it('signs people in by e-mail, verifies the address by code, and lets them sign up', () => {
    const p = poolOf(b()).Properties;
    expect(p.UserPoolName).toBe(`idpay-${stage}-people`);
    expect(p.UsernameAttributes).toEqual(['email']);
    expect(p.AliasAttributes).toBeUndefined();
    expect(p.AutoVerifiedAttributes).toEqual(['email']);
    expect(p.UsernameConfiguration).toEqual({ CaseSensitive: false });
    expect(p.AdminCreateUserConfig.AllowAdminCreateUserOnly).toBe(false);
    expect(p.VerificationMessageTemplate.DefaultEmailOption).toBe('CONFIRM_WITH_CODE');
    expect(p.AccountRecoverySetting).toEqual({ RecoveryMechanisms: [{ Name: 'verified_email', Priority: 1 }] });
  });

  it('requires a strong password', () => {
    expect(poolOf(b()).Properties.Policies.PasswordPolicy).toEqual({
      MinimumLength: 12,
      RequireLowercase: true,
      RequireUppercase: true,
      RequireNumbers: true,
      RequireSymbols: true,
      TemporaryPasswordValidityDays: 3,
    });
  });

  it('offers optional MFA with an authenticator app only (no SMS, so no SMS role)', () => {
    const p = poolOf(b()).Properties;
    expect(p.MfaConfiguration).toBe('OPTIONAL');
    expect(p.EnabledMfas).toEqual(['SOFTWARE_TOKEN_MFA']);
    expect(p.SmsConfiguration).toBeUndefined();
    b().template.resourceCountIs('AWS::IAM::Role', 0);
  });

  it('has a public dashboard client: no secret, SRP sign-in, short tokens, no OAuth', () => {
    const c = clientOf(b());
    expect(c.ClientName).toBe(`idpay-${stage}-dashboard`);
    expect(c.GenerateSecret).toBe(false);
    expect([...c.ExplicitAuthFlows].sort()).toEqual(['ALLOW_REFRESH_TOKEN_AUTH', 'ALLOW_USER_PASSWORD_AUTH', 'ALLOW_USER_SRP_AUTH']);
    expect(c.AllowedOAuthFlows).toBeUndefined();
    expect(c.AllowedOAuthFlowsUserPoolClient).toBe(false);
    expect(c.AccessTokenValidity).toBe(60);
    expect(c.IdTokenValidity).toBe(60);
    expect(c.RefreshTokenValidity).toBe(1440);
    expect(c.TokenValidityUnits).toEqual({ AccessToken: 'minutes', IdToken: 'minutes', RefreshToken: 'minutes' });
    expect(c.PreventUserExistenceErrors).toBe('ENABLED');
    expect(c.EnableTokenRevocation).toBe(true);
  });

  it('passes cdk-nag AwsSolutions (MFA-optional acknowledged with a reason)', () => {
    const report = new AwsSolutionsChecks().validateScope(b().stack);
    expect(report.violations.map((v) => v.ruleName)).toEqual([]);
  });
});

describe('per stage', () => {
  it('live: authenticator apps (TOTP) enabled, MFA optional at the pool, and required by the dashboard of owners and admins', () => {
    const p = poolOf(built.live).Properties;
    expect(p.MfaConfiguration).toBe('OPTIONAL');
    expect(p.EnabledMfas).toEqual(['SOFTWARE_TOKEN_MFA']);
    // Cognito cannot require MFA per role: the dashboard gates these roles' pages (DESIGN 9.7).
    expect(USER_POOL.mfaRequiredRoles.live).toEqual(['owner', 'admin']);
    expect(USER_POOL.mfaRequiredRoles.sandbox).toEqual([]);
  });

  it('live: Plus plan with threat protection enforced, deletion protection, kept when the stack goes', () => {
    const pool = poolOf(built.live);
    expect(pool.Properties.UserPoolTier).toBe('PLUS');
    expect(pool.Properties.UserPoolAddOns).toEqual({ AdvancedSecurityMode: 'ENFORCED' });
    expect(pool.Properties.DeletionProtection).toBe('ACTIVE');
    expect(pool.DeletionPolicy).toBe('Retain');
    expect(pool.UpdateReplacePolicy).toBe('Retain');
  });

  it('sandbox: Plus plan with threat protection auditing only, deleted with the stack', () => {
    const pool = poolOf(built.sandbox);
    expect(pool.Properties.UserPoolTier).toBe('PLUS');
    expect(pool.Properties.UserPoolAddOns).toEqual({ AdvancedSecurityMode: 'AUDIT' });
    expect(pool.Properties.DeletionProtection).toBe('INACTIVE');
    expect(pool.DeletionPolicy).toBe('Delete');
  });
});

describe('in the app stack', () => {
  it('gives every function the pool, the dashboard client and the token issuer', () => {
    const b = buildStage('sandbox', { operatorKeyHash: '' });
    const { template } = b;
    const poolId = b.idOf(b.stage.people.userPool);
    const clientId = b.idOf(b.stage.people.dashboardClient);
    const fns = Object.values(template.findResources('AWS::Lambda::Function')) as { Properties: any }[];
    const appFns = fns.filter((f) => f.Properties.Environment?.Variables?.TABLE_NAME);
    expect(appFns.length).toBeGreaterThan(10);
    for (const f of appFns) {
      expect(f.Properties.Environment.Variables).toMatchObject({
        COGNITO_USER_POOL_ID: { Ref: poolId },
        COGNITO_CLIENT_ID: { Ref: clientId },
        COGNITO_ISSUER: { 'Fn::Join': ['', ['https://cognito-idp.', { Ref: 'AWS::Region' }, '.amazonaws.com/', { Ref: poolId }]] },
      });
    }
    template.hasOutput('UserPoolId', { Value: { Ref: poolId } });
    template.hasOutput('DashboardClientId', { Value: { Ref: clientId } });
  });
});
