/**
 * How the deployment's console log shows a value passed after the message
 * (`logger.warn('reload failed:', error)`). cordis formats such values with
 * `JSON.stringify`, which shows an `Error` as `{}` (its name, message and stack
 * are not enumerable): errors are shown here as their name, code, message,
 * stack and causes instead.
 */
export function formatLogValue(value: unknown): string {
  if (value instanceof Error) return formatError(value, new Set())
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

function formatError(error: Error, seen: Set<unknown>): string {
  seen.add(error)
  const code = (error as { code?: unknown }).code
  const head = `${error.name}${typeof code === 'string' || typeof code === 'number' ? ` [${code}]` : ''}: ${error.message}`
  // The stack repeats the first line (name: message); keep only its frames.
  const frames = (error.stack ?? '').split('\n').filter((line) => /^\s+at /.test(line))
  const lines = [head, ...frames]
  const cause = error.cause
  if (cause !== undefined && !seen.has(cause)) lines.push(`caused by ${cause instanceof Error ? formatError(cause, seen) : formatLogValue(cause)}`)
  return lines.join('\n')
}
