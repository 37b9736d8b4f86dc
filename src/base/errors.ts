/**
 * The one base class of every threadgate error. Each room declares its own
 * subclasses in its `errors.ts` with a stable `code` (TG_*) and the HTTP status
 * a route boundary maps it to. Nothing else of ours is imported here, so every
 * room may import it.
 */
export abstract class ThreadgateError extends Error {
  abstract readonly code: string;
  /** HTTP status used only at a route boundary. */
  readonly statusCode: number = 500;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }

  /** The JSON body a route answers with. Never carries secrets or stacks. */
  toJSON(): { code: string; message: string } {
    return { code: this.code, message: this.message };
  }
}
