/**
 * The error a promise rejects with, for assertions on it; fails the test when
 * the promise resolves instead.
 */
export async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the call to fail');
}
