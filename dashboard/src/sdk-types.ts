/** The API's schemas, as the SDK's generated types name them. */
import type { components, paths } from '../../sdk/src/generated/openapi';
export type Schemas = components['schemas'];
/** The JSON body of an operation. */
export type BodyOf<P extends keyof paths, M extends 'post' | 'put' | 'patch'> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;
/** The query parameters of a GET operation. */
export type QueryOf<P extends keyof paths> = paths[P] extends { get: { parameters: { query?: infer Q } } } ? NonNullable<Q> : never;
/** The `data` of a GET operation's 200 answer. */
export type DataOf<P extends keyof paths> = paths[P] extends {
  get: { responses: { 200: { content: { 'application/json': { data?: infer D } } } } };
}
  ? NonNullable<D>
  : never;
