/** Every documented endpoint of the platform, from the three spec documents. */
import { SPEC_01_ENDPOINTS } from './spec-01.ts';
import { SPEC_02_ENDPOINTS } from './spec-02.ts';
import { SPEC_03_ENDPOINTS } from './spec-03.ts';
import type { EndpointSpec } from './types.ts';

export const ALL_ENDPOINTS: readonly EndpointSpec[] = [...SPEC_01_ENDPOINTS, ...SPEC_02_ENDPOINTS, ...SPEC_03_ENDPOINTS];
