/**
 * The connector author kit, published as `threadgate/testing`: what a
 * connector's own tests need, outside the gateway's repository.
 *
 * - `recordingContext`: an in-memory `ConnectorContext` that checks submits
 *   as the bridge does and answers routes as the gateway does;
 * - `messageCreated`, `replySuggestionCreated`, `fileAttachment`,
 *   `imageAttachment`: the platform's webhook events, typed and valid;
 * - `startTestGateway`: a real gateway with its embedded sandbox in the
 *   test's process, with helpers to answer as an agent and read a chat;
 * - `connectorContract`: the suite every connector must pass, and
 *   `runContract` to run it without a test runner;
 * - `ticketAdapterContract`: the suite every ticket adapter must pass,
 *   against the real system through a `TicketCounterpart`.
 */
export { LEVEL, recordingContext, type LogLine, type RecordingContext, type RecordingContextOptions, type ServedFile, type TestRequest } from './recording-context.ts';
export { recordedThreadId } from './recording-threads.ts';
export { fileAttachment, imageAttachment, messageCreated, replySuggestionCreated, type MessageFields, type SuggestionFields } from './events.ts';
export { startTestGateway, type AgentFile, type Answer, type SandboxMessage, type TestGateway, type TestGatewayOptions } from './test-gateway.ts';
export { connectorContract, type ContractCheck, type ContractOptions } from './contract.ts';
export { secretsOf, type SettingsSecret } from './contract-support.ts';
export { runContract, type CheckResult } from './contract-run.ts';
export { ticketAdapterContract } from './ticket-contract.ts';
export { contractFile, type CounterpartFile, type TicketContractOptions, type TicketCounterpart } from './ticket-counterpart.ts';
