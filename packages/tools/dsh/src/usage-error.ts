/** The command cannot run as asked (a missing file, a deployment that does not plan): exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError'
}
