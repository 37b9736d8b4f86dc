/** Every documented endpoint of the platform, from the three spec documents. */
import { SPEC_01_TYPED } from './spec-01.ts';
import { SPEC_02_TYPED } from './spec-02.ts';
import { SPEC_03_TYPED } from './spec-03.ts';
import type { EndpointSpec } from './types.ts';

/** The lists with their literal types (ids, paths, schemas): what the typed client is generated from. */
export const ENDPOINTS = [...SPEC_01_TYPED, ...SPEC_02_TYPED, ...SPEC_03_TYPED] as const;

/** The same lists, widened: what the proxy's route table and the OpenAPI document iterate. */
export const ALL_ENDPOINTS: readonly EndpointSpec[] = ENDPOINTS;
