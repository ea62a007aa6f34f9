// Module hooks for a child that must run without dsh-settings: any import of it, by name or by path, fails
// as a missing module would. Each resolved URL is reported on stderr-free channel: the parent reads stdout only.
const SEAM = /[\\/]packages[\\/]settings[\\/]settings[\\/]/

export async function resolve(specifier, context, next) {
  if (specifier === 'dsh-settings' || specifier.startsWith('dsh-settings/')) {
    throw Object.assign(new Error(`dsh-settings is not available here (imported as ${specifier})`), { code: 'ERR_MODULE_NOT_FOUND' })
  }
  const resolved = await next(specifier, context)
  if (SEAM.test(resolved.url)) throw Object.assign(new Error(`dsh-settings is not available here (${resolved.url})`), { code: 'ERR_MODULE_NOT_FOUND' })
  return resolved
}
