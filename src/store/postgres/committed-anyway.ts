/**
 * A transaction whose COMMIT went out early (pg-group-writer.ts: its writes
 * said they sent all their statements) and stored them, though a write then
 * failed on its own, not through a statement: what the COMMIT stored stays
 * stored, and nothing is run again. Its `cause` is that write's error
 * (a `WriteThrew` from a group). A write that says it sent everything (`Repos.sent`) must not fail
 * that way; this keeps such a bug from storing the group's writes twice.
 */
export class CommittedAnyway extends Error {
  constructor(cause: unknown) {
    super('stored by a COMMIT sent before a write of the transaction failed on its own', { cause });
  }
}
