/** What every route of the sandbox works with. */
import type { SandboxState, Seed } from './state.ts';
import type { WebhookDispatcher } from './webhook-dispatcher.ts';

export interface SandboxContext {
  state: SandboxState;
  seed: Seed;
  webhooks: WebhookDispatcher;
}
