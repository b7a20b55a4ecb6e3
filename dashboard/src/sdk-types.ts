/** The API's schemas, as the SDK's generated types name them. */
import type { components } from '../../sdk/src/generated/openapi';
export type Schemas = components['schemas'];
