/**
 * The exports bucket and who may use it (DESIGN 8.8), in the synthesized
 * templates: one private, encrypted, TLS-only bucket per stage in the data stack, with the
 * files expiring; only the export read route's role may GetObject, only the jobs worker may
 * write (PutObject, AbortMultipartUpload), both on `exports/*` only; the functions know the
 * bucket's name.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ROUTES, routeKey } from '../../functions/routes';
import { buildStage, type BuiltStage } from '../support/cdk-stage';
import type { StageName } from '../../lib/settings';
import { EXPORT_RETENTION_DAYS } from '../../lib/data';

const built = {} as Record<StageName, BuiltStage>;
beforeAll(() => {
  built.sandbox = buildStage('sandbox', { operatorKeyHash: 'a'.repeat(64) });
  built.live = buildStage('live', { operatorKeyHash: 'a'.repeat(64) });
});

const arr = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** Every IAM statement that mentions an S3 action, with the role(s) its policy is attached to. */
function s3Statements(b: BuiltStage): { roles: string[]; actions: string[]; resource: string }[] {
  return Object.values(b.resources)
    .filter((r) => r.Type === 'AWS::IAM::Policy')
    .flatMap((p) =>
      (p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[])
        .filter((s) => arr(s.Action).some((a) => a.startsWith('s3:')))
        .map((s) => ({
          roles: arr(p.Properties.Roles).map((r) => JSON.stringify(r)),
          actions: arr(s.Action),
          resource: JSON.stringify(s.Resource),
        })),
    );
}

describe.each(['sandbox', 'live'] as const)('%s: exports bucket', (stage) => {
  it('is one private, encrypted, TLS-only bucket in the data stack; exports expire; incomplete uploads are aborted', () => {
    const b = built[stage];
    // The edge stack has the dashboard's buckets (test/cdk/dashboard.test.ts); the data stack one.
    const buckets = Object.entries(b.resources).filter(
      ([id, r]) => r.Type === 'AWS::S3::Bucket' && b.stackOfId(id) !== `Idpay-${stage}-edge`,
    );
    expect(buckets).toHaveLength(1);
    const [id, bucket] = buckets[0]!;
    expect(b.stackOfId(id)).toBe(`Idpay-${stage}-data`);
    const p = bucket.Properties;
    expect(p.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(p.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault.SSEAlgorithm).toBe('AES256');
    expect(p.OwnershipControls.Rules[0].ObjectOwnership).toBe('BucketOwnerEnforced');
    expect(p.LifecycleConfiguration.Rules).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ Prefix: 'exports/', ExpirationInDays: EXPORT_RETENTION_DAYS, Status: 'Enabled' }),
        expect.objectContaining({ AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 }, Status: 'Enabled' }),
      ]),
    );
    expect(bucket.DeletionPolicy).toBe(stage === 'live' ? 'Retain' : 'Delete');
    // TLS only: the bucket policy denies any request without aws:SecureTransport.
    const policies = Object.entries(b.resources)
      .filter(([pid, r]) => r.Type === 'AWS::S3::BucketPolicy' && b.stackOfId(pid) !== `Idpay-${stage}-edge`)
      .map(([, r]) => r);
    expect(policies).toHaveLength(1);
    const deny = policies[0]!.Properties.PolicyDocument.Statement.find((s: any) => s.Effect === 'Deny');
    expect(deny.Condition).toEqual({ Bool: { 'aws:SecureTransport': 'false' } });
    expect(JSON.stringify(policies[0]!.Properties.PolicyDocument)).not.toMatch(/"Effect":"Allow"/);
  });

  it('least privilege: the export read route may GetObject, the jobs worker PutObject/AbortMultipartUpload, on exports/* only; nobody else touches S3', () => {
    const b = built[stage];
    const statements = s3Statements(b);
    const byActions = new Map(statements.map((s) => [s.actions.slice().sort().join(','), s]));
    expect([...byActions.keys()].sort()).toEqual(['s3:AbortMultipartUpload,s3:PutObject', 's3:GetObject']);
    for (const s of statements) expect(s.resource).toMatch(/\/exports\/\*"/);
    expect(statements.every((s) => s.roles.length === 1)).toBe(true);
    const reader = byActions.get('s3:GetObject')!.roles[0]!;
    const writer = byActions.get('s3:AbortMultipartUpload,s3:PutObject')!.roles[0]!;
    expect(reader).toMatch(/RouteReadExports/);
    expect(writer).toMatch(/WorkerJobs/);
    // The read role serves exactly the export read route.
    const exportRead = ROUTES.find((r) => routeKey(r) === 'GET /v1/exports/{id}')!;
    const fns = Object.values(b.resources).filter(
      (r) => r.Type === 'AWS::Lambda::Function' && JSON.stringify(r.Properties.Role).includes('RouteReadExports'),
    );
    expect(fns.map((f) => f.Properties.Description)).toEqual([expect.stringContaining(`(functions/${exportRead.handler}.ts)`)]);
  });

  it('every function knows the bucket (EXPORTS_BUCKET)', () => {
    const b = built[stage];
    const [bucketId] = Object.entries(b.resources).find(([, r]) => r.Type === 'AWS::S3::Bucket')!;
    for (const f of Object.values(b.resources).filter((r) => r.Type === 'AWS::Lambda::Function' && r.Properties.Environment)) {
      expect(f.Properties.Environment.Variables.EXPORTS_BUCKET, f.Properties.Description).toEqual({ Ref: bucketId });
    }
  });
});
