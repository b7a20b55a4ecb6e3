import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import { Construct } from 'constructs';
import { USER_POOL } from '../functions/identity/pool';
import type { StageName } from './settings';

export interface PeopleProps {
  stage: StageName;
}

/**
 * The people who sign in to the dashboard (DESIGN 8.3): one Cognito user pool per stage and
 * its public dashboard client, built from functions/identity/pool.ts (the local emulator
 * creates the same pool from it). Stateful: the pool is kept (RETAIN and deletion protection)
 * in live; in sandbox it goes with the stack. Self-contained so it can sit in any stack.
 */
export class People extends Construct {
  readonly userPool: cognito.UserPool;
  readonly dashboardClient: cognito.UserPoolClient;

  constructor(scope: Construct, id: string, props: PeopleProps) {
    super(scope, id);
    const { stage } = props;
    const live = stage === 'live';
    const p = USER_POOL.passwordPolicy;
    const c = USER_POOL.client;

    this.userPool = new cognito.UserPool(this, 'UserPool', {
      userPoolName: USER_POOL.name(stage),
      selfSignUpEnabled: USER_POOL.selfSignUp,
      signInAliases: { email: true },
      signInCaseSensitive: false,
      autoVerify: { email: true },
      keepOriginal: { email: true },
      standardAttributes: { email: { required: true, mutable: true } },
      passwordPolicy: {
        minLength: p.minLength,
        requireLowercase: p.requireLowercase,
        requireUppercase: p.requireUppercase,
        requireDigits: p.requireDigits,
        requireSymbols: p.requireSymbols,
        tempPasswordValidity: Duration.days(p.tempPasswordValidityDays),
      },
      // Optional at the pool (Cognito cannot require it per role); TOTP only (pool.ts).
      mfa: cognito.Mfa.OPTIONAL,
      mfaSecondFactor: { otp: USER_POOL.mfaTypes.includes('totp'), sms: false },
      accountRecovery: cognito.AccountRecovery.EMAIL_ONLY,
      featurePlan: cognito.FeaturePlan.PLUS,
      standardThreatProtectionMode:
        USER_POOL.threatProtection[stage] === 'ENFORCED'
          ? cognito.StandardThreatProtectionMode.FULL_FUNCTION
          : cognito.StandardThreatProtectionMode.AUDIT_ONLY,
      deletionProtection: live,
      removalPolicy: live ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    Validations.of(this.userPool).acknowledge({
      id: 'AwsSolutions-COG2',
      reason:
        'MFA is optional at the pool because Cognito requires it per pool or per user, never per role (DESIGN 9.7): authenticator apps (TOTP) are enabled in every stage, and the dashboard opens no page of a live owner or admin until theirs is set up (USER_POOL.mfaRequiredRoles); threat protection (Plus plan) asks risky sign-ins for more in live.',
    });

    this.dashboardClient = this.userPool.addClient('DashboardClient', {
      userPoolClientName: c.name(stage),
      generateSecret: c.generateSecret,
      authFlows: {
        userSrp: c.authFlows.userSrp,
        userPassword: c.authFlows.userPassword,
        adminUserPassword: c.authFlows.adminUserPassword,
        custom: c.authFlows.custom,
      },
      // The dashboard signs in with the SDK (SRP), not the hosted UI: no OAuth flows.
      disableOAuth: true,
      accessTokenValidity: Duration.minutes(c.accessTokenMinutes),
      idTokenValidity: Duration.minutes(c.idTokenMinutes),
      refreshTokenValidity: Duration.days(c.refreshTokenDays),
      preventUserExistenceErrors: c.preventUserExistenceErrors,
      enableTokenRevocation: c.enableTokenRevocation,
    });
  }

  /** The variables the token verifier reads (functions/identity/tokens.ts). */
  environment(): Record<string, string> {
    return {
      COGNITO_USER_POOL_ID: this.userPool.userPoolId,
      COGNITO_CLIENT_ID: this.dashboardClient.userPoolClientId,
      // The `iss` of the pool's tokens, spelled out rather than taken from GetAtt ProviderURL
      // (whose documented form has varied), so the verifier compares exactly what Cognito signs.
      COGNITO_ISSUER: `https://cognito-idp.${Stack.of(this).region}.amazonaws.com/${this.userPool.userPoolId}`,
    };
  }
}
