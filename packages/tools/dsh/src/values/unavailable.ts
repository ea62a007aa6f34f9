/** The deployment's settings cannot be reached: no provider, or it failed to start. Exit code 3. */
export class UnavailableError extends Error {
  override readonly name = 'UnavailableError'
}
