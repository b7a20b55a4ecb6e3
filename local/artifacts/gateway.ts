/**
 * The AWS endpoint of artifacts mode: every function's SDK is pointed here
 * (AWS_ENDPOINT_URL and the per-service variants), with credentials of its own, as Lambda
 * gives each function its role's credentials. Each request is identified by the access key
 * in its SigV4 Authorization header, mapped to IAM authorizations (iam.ts) and checked
 * against the role's policies: refused with AccessDenied in the service's own wire format
 * (so the function's SDK raises the same error class as on AWS), or forwarded unchanged to
 * DynamoDB Local / the SQS emulator (S3 requests, known by their SigV4 scope, to the
 * emulator's S3, checked against the object's ARN). Secrets Manager's GetSecretValue / DescribeSecret are
 * answered here from the template's secrets. Any other service is refused, so nothing a
 * function calls can silently reach a real AWS endpoint.
 */
import { createServer, request as httpRequest, Agent, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { DYNAMO_WRITE_OPERATIONS } from '../../functions/platform/clients';
import { isLockTimeoutAnswer, LOCK_RETRY_BUDGET_MS, lockRetryPause } from '../dynamodb/lock-timeout';
import {
  accessDeniedMessage,
  dynamoAuthorizations,
  s3Authorizations,
  secretsAuthorizations,
  sqsAuthorizations,
  type IamPrincipal,
  type TableInfo,
} from './iam';

export interface GatewayOptions {
  region: string;
  dynamoEndpoint: string;
  sqsEndpoint: string;
  /** The emulator's S3 (default: the SQS endpoint, where fauxqs serves it). */
  s3Endpoint?: string;
  /** Access key id -> the caller's role session. */
  principals: Map<string, IamPrincipal>;
  tables: (nameOrArn: string) => TableInfo;
  /** Secrets by ARN: their current string value. */
  secrets: Map<string, string>;
  /** After each DynamoDB write forwarded (the stream poller reads the stream at once). */
  onWrite?: () => void;
  /** Every refusal, for logs and tests. */
  onDenied?: (e: { principal: string; action: string; resource: string }) => void;
}

export interface Gateway {
  endpoint: string;
  stop(): Promise<void>;
}

const agent = new Agent({ keepAlive: true, maxSockets: 128 });

function readAll(req: IncomingMessage): Promise<Buffer> {
  return new Promise((res, rej) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => res(Buffer.concat(chunks)));
    req.on('error', rej);
  });
}

function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
  contentType = 'application/x-amz-json-1.0',
) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': contentType,
    'content-length': Buffer.byteLength(text),
    'x-amzn-requestid': crypto.randomUUID(),
    ...headers,
  });
  res.end(text);
}

/** The error body each service's SDK deserializes into its AccessDenied exception. */
function denied(res: ServerResponse, service: 'dynamodb' | 'sqs' | 'secretsmanager', message: string) {
  if (service === 'dynamodb') return json(res, 400, { __type: 'com.amazon.coral.service#AccessDeniedException', Message: message });
  if (service === 'sqs') {
    return json(
      res,
      403,
      { __type: 'com.amazon.coral.service#AccessDeniedException', message },
      { 'x-amzn-query-error': 'AccessDenied;Sender' },
    );
  }
  return json(res, 400, { __type: 'AccessDeniedException', Message: message }, {}, 'application/x-amz-json-1.1');
}

/**
 * Forwards the request unchanged and pipes the answer back. With `lockRetry` (DynamoDB), an
 * answer that is DynamoDB Local's lock timeout is not passed on: the request is sent again
 * until it gets the lock (local/dynamodb/lock-timeout.ts), as the real service would have
 * served it.
 */
function forward(target: string, req: IncomingMessage, body: Buffer, res: ServerResponse, lockRetry = false): Promise<void> {
  const url = new URL(target);
  const until = Date.now() + LOCK_RETRY_BUDGET_MS;
  return new Promise((resolve) => {
    const send = () => {
      const headers = { ...req.headers, host: url.host, 'content-length': String(body.length) };
      const up = httpRequest(
        { protocol: url.protocol, hostname: url.hostname, port: url.port, method: req.method, path: req.url, headers, agent },
        (r) => {
          if (lockRetry && r.statusCode === 500) {
            const chunks: Buffer[] = [];
            r.on('data', (c: Buffer) => chunks.push(c));
            r.on('error', () => resolve());
            r.on('end', () => {
              const text = Buffer.concat(chunks);
              if (isLockTimeoutAnswer(r.statusCode, text.toString('utf8')) && Date.now() < until) {
                void lockRetryPause().then(send);
                return;
              }
              passedOn(req, `answered 500: ${text.toString('utf8').slice(0, 300)}`);
              res.writeHead(500, r.headers);
              res.end(text);
              resolve();
            });
            return;
          }
          if ((r.statusCode ?? 502) >= 500) passedOn(req, `answered ${r.statusCode}`);
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res);
          r.on('end', () => resolve());
          r.on('error', () => resolve());
        },
      );
      up.on('error', (e) => {
        passedOn(req, `unreachable: ${e.message}`);
        if (!res.headersSent) json(res, 502, { __type: 'ServiceUnavailable', message: `local service unreachable: ${e.message}` });
        else res.destroy();
        resolve();
      });
      up.end(body);
    };
    send();
  });
}

/**
 * One stderr line for each 5xx or failed connection a function's SDK gets from the local
 * services, whatever the functions' LOG_LEVEL: a handler's 500 in a loaded CI run should still
 * say what the service answered (operation and answer only: never the request body).
 */
function passedOn(req: IncomingMessage, what: string): void {
  console.error(`artifacts gateway: ${String(req.headers['x-amz-target'] ?? req.url)} ${what}`);
}

const accessKeyOf = (auth: string | undefined) => /Credential=([^/,\s]+)\//.exec(auth ?? '')?.[1];

/**
 * The SigV4 scope's service of a request without an X-Amz-Target: from its Authorization
 * header, or from a pre-signed URL's X-Amz-Credential (an S3 GET a browser or test follows).
 */
function signedFor(req: IncomingMessage): { service?: string; accessKey?: string } {
  const header = /Credential=([^/,\s]+)\/\d{8}\/[^/]+\/([^/]+)\//.exec(String(req.headers.authorization ?? ''));
  if (header) return { accessKey: header[1], service: header[2] };
  const credential = new URL(req.url ?? '/', 'http://local').searchParams.get('X-Amz-Credential') ?? '';
  const [accessKey, , , service] = credential.split('/');
  return { accessKey, service };
}

/** S3's error body (XML), as its clients read AccessDenied. */
function s3Denied(res: ServerResponse, message: string) {
  const text = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code><Message>${message}</Message></Error>`;
  res.writeHead(403, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export function startGateway(opts: GatewayOptions): Promise<Gateway> {
  const secretArn = (id: string) => {
    if (opts.secrets.has(id)) return id;
    for (const arn of opts.secrets.keys()) if (arn.split(':secret:')[1]?.replace(/-[A-Za-z0-9]{6}$/, '') === id) return arn;
    return id;
  };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readAll(req);
      const target = String(req.headers['x-amz-target'] ?? '');
      const signed = target ? {} : signedFor(req);
      if (signed.service === 's3') {
        const principal = opts.principals.get(signed.accessKey ?? '');
        if (!principal) return s3Denied(res, 'The AWS Access Key Id you provided does not exist in our records.');
        const decision = await principal.check(s3Authorizations(req.method ?? 'GET', req.url ?? '/'));
        if (!decision.allowed) {
          opts.onDenied?.({ principal: principal.arn, action: decision.action, resource: decision.resource });
          return s3Denied(res, accessDeniedMessage(principal.arn, decision));
        }
        return forward(opts.s3Endpoint ?? opts.sqsEndpoint, req, body, res);
      }
      const [prefix, operation = ''] = target.split('.');
      const service =
        prefix === 'DynamoDB_20120810'
          ? 'dynamodb'
          : prefix === 'AmazonSQS'
            ? 'sqs'
            : prefix === 'secretsmanager'
              ? 'secretsmanager'
              : undefined;
      if (!service) {
        return json(res, 400, {
          __type: 'UnknownOperationException',
          message: `artifacts mode: ${target || `${req.method} ${req.url}`} is not a service the local runtime provides (DynamoDB, SQS, S3, Secrets Manager)`,
        });
      }
      const principal = opts.principals.get(accessKeyOf(req.headers.authorization) ?? '');
      if (!principal) {
        return json(res, 400, {
          __type: 'com.amazon.coral.service#UnrecognizedClientException',
          message: 'The security token included in the request is invalid.',
        });
      }
      let parsed: Record<string, any>;
      try {
        parsed = body.length ? (JSON.parse(body.toString('utf8')) as Record<string, any>) : {};
      } catch {
        return json(res, 400, { __type: 'SerializationException', message: 'request body is not JSON' });
      }
      let auths;
      try {
        auths =
          service === 'dynamodb'
            ? dynamoAuthorizations(operation, parsed, opts.tables, opts.region)
            : service === 'sqs'
              ? sqsAuthorizations(operation, parsed, opts.region)
              : secretsAuthorizations(operation, parsed, secretArn);
      } catch (e) {
        return json(res, 400, { __type: 'ResourceNotFoundException', message: (e as Error).message });
      }
      const decision = await principal.check(auths);
      if (!decision.allowed) {
        opts.onDenied?.({ principal: principal.arn, action: decision.action, resource: decision.resource });
        return denied(res, service, accessDeniedMessage(principal.arn, decision));
      }
      if (service === 'dynamodb') {
        await forward(opts.dynamoEndpoint, req, body, res, true);
        if (DYNAMO_WRITE_OPERATIONS.has(operation)) opts.onWrite?.();
        return;
      }
      if (service === 'sqs') return forward(opts.sqsEndpoint, req, body, res);
      const arn = secretArn(String(parsed.SecretId));
      const value = opts.secrets.get(arn);
      if (value === undefined) {
        return json(
          res,
          400,
          { __type: 'ResourceNotFoundException', Message: "Secrets Manager can't find the specified secret." },
          {},
          'application/x-amz-json-1.1',
        );
      }
      const name = arn.split(':secret:')[1]!.replace(/-[A-Za-z0-9]{6}$/, '');
      if (operation === 'GetSecretValue') {
        return json(
          res,
          200,
          { ARN: arn, Name: name, SecretString: value, VersionId: 'local', VersionStages: ['AWSCURRENT'], CreatedDate: 0 },
          {},
          'application/x-amz-json-1.1',
        );
      }
      if (operation === 'DescribeSecret') return json(res, 200, { ARN: arn, Name: name }, {}, 'application/x-amz-json-1.1');
      return json(
        res,
        400,
        { __type: 'InvalidRequestException', Message: `artifacts mode: secretsmanager:${operation} is not provided locally` },
        {},
        'application/x-amz-json-1.1',
      );
    })().catch((e) => {
      if (!res.headersSent) json(res, 500, { __type: 'InternalFailure', message: (e as Error).message });
    });
  });
  server.keepAliveTimeout = 65_000;
  return new Promise((res) =>
    server.listen(0, '127.0.0.1', () => {
      const addr = server.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      res({
        endpoint: `http://127.0.0.1:${port}`,
        stop: () =>
          new Promise<void>((r) => {
            server.close(() => r());
            server.closeAllConnections();
          }),
      });
    }),
  );
}
