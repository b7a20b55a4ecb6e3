import * as z from 'zod';
import { iso } from '../shapes';

/** sandbox test clocks: `data` of the 2xx answers (DESIGN 8.7; read by the OpenAPI generator, not by the handler). */
export const data = z
  .object({
    clockId: z.string(),
    name: z.string().nullable(),
    frozenTime: iso.describe("The clock's time (while advancing: how far it got)"),
    status: z.enum(['ready', 'advancing']),
    targetTime: iso.optional().describe('While advancing: where it is going'),
    createdAt: iso,
  })
  .meta({ id: 'TestClock' });
