import * as z from 'zod';

/** docs/openapi: the whole 2xx body (DESIGN 8.2; read by the OpenAPI generator, not by the handler). */
export const body = z
  .looseObject({
    openapi: z.string(),
    info: z.looseObject({ title: z.string(), version: z.string() }),
    paths: z.record(z.string(), z.unknown()),
  })
  .describe('This OpenAPI 3.1 document');
