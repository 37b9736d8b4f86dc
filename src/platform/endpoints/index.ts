/** Every documented endpoint of the platform, from the spec documents. */
import { SPEC_03_ENDPOINTS } from './spec-03.ts';
import type { EndpointSpec } from './types.ts';

export const ALL_ENDPOINTS: readonly EndpointSpec[] = [...SPEC_03_ENDPOINTS];
