/**
 * Errors of the sandbox builder, beyond the shared ones of `../errors.ts`.
 * Spec 02 does not show the builder's error bodies; these follow the
 * sandbox's `{detail, errors}` shape.
 */
import { SandboxError, type FieldErrors } from '../errors.ts';

/** 409: an update carried a `tag` older than the interaction's `updatedDate`. */
export class StaleTagError extends SandboxError {
  readonly code = 'TG_SANDBOX_STALE_TAG';
  override readonly statusCode = 409;
  override readonly fieldErrors: FieldErrors;

  constructor(current: string) {
    super('The interaction changed since it was read; read it again and retry.');
    this.fieldErrors = { tag: [`Does not match the current updatedDate (${current}).`] };
  }
}

/** 409: a collection that still holds interactions or themes cannot be deleted. */
export class CollectionNotEmptyError extends SandboxError {
  readonly code = 'TG_SANDBOX_COLLECTION_NOT_EMPTY';
  override readonly statusCode = 409;

  constructor(interactions: number, themes: number) {
    super(`The collection still holds ${interactions} interaction(s) and ${themes} theme(s); delete or move them first.`);
  }
}

/** 409: publish, unpublish or revert asked of an interaction in the wrong state. */
export class PublishStateError extends SandboxError {
  readonly code = 'TG_SANDBOX_PUBLISH_STATE';
  override readonly statusCode = 409;
}
