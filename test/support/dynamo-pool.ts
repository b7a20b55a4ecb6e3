/**
 * DynamoDB Local for test files, a fresh instance for each file.
 *
 * DynamoDB Local's GetRecords costs more CPU with every stream record the instance holds
 * (about 10 ms on a fresh instance, 18 ms after 10,000 records, 36-38 ms after 20,000;
 * deleted tables' records included), and every local stack polls its table's stream. An
 * instance that served a worker's earlier files made the later ones several times slower
 * (a year of a test clock: 126 s alone, over 900 s late in a full run). So each worker slot
 * (VITEST_POOL_ID) gets a new instance when a new file leases it: the global setup runs a
 * small lease server on 127.0.0.1; a file's first lease (one token per file: the module state
 * of a test file's process) hands over the slot's spare instance, already started, stops the
 * one the previous file used (that file has ended: a slot runs one file at a time), and
 * starts the next spare in the background, so a file rarely waits for Java to start.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startDynamo } from '../../local/services';

type Running = Awaited<ReturnType<typeof startDynamo>>;

interface Slot {
  current?: Running;
  /** The lease token of the file using `current`. */
  token?: string;
  spare?: Promise<Running | undefined>;
  /** Leases of this slot run one after another. */
  queue: Promise<unknown>;
}

export interface DynamoPool {
  /** The lease server's URL (GET ?slot=&token= answers {"endpoint"}). */
  url: string;
  stop(): Promise<void>;
}

const startSpare = () => startDynamo().catch(() => undefined);

/** Starts `slots` instances ahead (a failure here, e.g. no Java, fails the setup at once) and the lease server. */
export async function startDynamoPool(slots: number): Promise<DynamoPool> {
  const ready = await Promise.all(Array.from({ length: slots }, () => startDynamo()));
  const state: Slot[] = ready.map((r) => ({ spare: Promise.resolve(r), queue: Promise.resolve() }));
  const retired: Promise<void>[] = [];

  const lease = async (slot: Slot, token: string): Promise<string> => {
    if (slot.current && slot.token === token) return slot.current.endpoint;
    const next = (await slot.spare) ?? (await startDynamo());
    const previous = slot.current;
    Object.assign(slot, { current: next, token, spare: startSpare() });
    if (previous) retired.push(previous.stop().catch(() => undefined));
    return next.endpoint;
  };

  const server: Server = createServer((req, res) => {
    const q = new URL(req.url ?? '/', 'http://pool').searchParams;
    const slot = state[(Math.max(1, Number(q.get('slot') ?? 1)) - 1) % state.length]!;
    const token = q.get('token') ?? '';
    const answer = slot.queue.then(() => lease(slot, token));
    slot.queue = answer.catch(() => undefined);
    answer.then(
      (endpoint) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ endpoint })),
      (e: Error) => res.writeHead(500).end(String(e.message)),
    );
  });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    async stop() {
      await new Promise((res) => server.close(res));
      const all = await Promise.all(state.flatMap((s) => [s.current, s.spare]));
      await Promise.all([...all.map((d) => d?.stop().catch(() => undefined)), ...retired]);
    },
  };
}
