/** A reference to an environment variable in a config string: `${NAME}` or `${NAME:-fallback}`. */
const REFERENCE = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g

/** A config string names an environment variable that is not set and has no fallback. */
export class InterpolationError extends Error {
  override readonly name = 'InterpolationError'
  readonly code = 'DEPLOYMENT_UNSET_VARIABLE'
  constructor(readonly variable: string) {
    super(`environment variable ${variable} is not set and has no fallback (write \${${variable}:-fallback})`)
  }
}

/**
 * Replace `${NAME}` and `${NAME:-fallback}` in every string of a config value
 * with the environment's value (an empty variable takes the fallback, like a
 * shell's `:-`). `$${` stands for a literal `${`. Keys are left as they are.
 * @throws {InterpolationError} for an unset variable without a fallback.
 */
export function interpolate<T>(value: T, env: NodeJS.ProcessEnv = process.env): T {
  if (typeof value === 'string') {
    return value.replace(REFERENCE, (match, name: string | undefined, fallback: string | undefined) => {
      if (match === '$${') return '${'
      const current = env[name!]
      if (current !== undefined && current !== '') return current
      if (fallback !== undefined) return fallback
      throw new InterpolationError(name!)
    }) as T
  }
  if (Array.isArray(value)) return value.map((item) => interpolate(item, env)) as T
  if (value && typeof value === 'object') {
    const result: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value)) result[key] = interpolate(item, env)
    return result as T
  }
  return value
}
