/** Every documented endpoint of the platform, from the three spec documents. */
import type { EndpointSpec } from './types.ts';

export const ALL_ENDPOINTS: readonly EndpointSpec[] = [];
