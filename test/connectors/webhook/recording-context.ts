/**
 * The webhook connector's tests use the author kit's recording context
 * (`threadgate/testing`, src/connector/testing/): the same one every
 * connector's author gets, so the kit is exercised by a real connector.
 */
import { recordingContext as kitContext, type RecordingContext } from '../../../src/connector/testing/recording-context.ts';

export { LEVEL, type LogLine, type RecordingContext } from '../../../src/connector/testing/recording-context.ts';
export { recordedThreadId as platformThreadId } from '../../../src/connector/testing/recording-threads.ts';

/** A recording context named as these tests' connector is (default `partner-hooks`). */
export function recordingContext(name = 'partner-hooks'): RecordingContext {
  return kitContext({ name });
}
