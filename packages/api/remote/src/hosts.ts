/**
 * Which `Host` and `Origin` headers a server accepts. Browsers let any web
 * page send requests to 127.0.0.1; checking `Host` defeats DNS rebinding (a
 * foreign name resolving to us) and checking `Origin` defeats cross-site
 * requests from pages on other origins.
 */
export class HostPolicy {
  private readonly hosts: ReadonlySet<string>

  /**
   * @param port - the bound port; the loopback names are accepted only with it.
   * @param extra - `allowedHosts` entries: `name` accepts `name` and `name:<port>`, `name:port` only itself.
   */
  constructor(port: number, extra: readonly string[] = []) {
    const hosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`])
    for (const entry of extra) {
      const host = entry.trim().toLowerCase()
      if (!host) continue
      hosts.add(host)
      if (!/:\d+$/.test(host) || host.endsWith(']')) hosts.add(`${host}:${port}`)
    }
    this.hosts = hosts
  }

  /** Whether a request's `Host` header names this server. A missing one does not. */
  allowsHost(host: string | undefined): boolean {
    return host !== undefined && this.hosts.has(host.toLowerCase())
  }

  /** Whether a request's `Origin` header is acceptable: absent, or `http://` + an allowed host. */
  allowsOrigin(origin: string | undefined): boolean {
    if (origin === undefined) return true
    const lower = origin.toLowerCase()
    return lower.startsWith('http://') && this.hosts.has(lower.slice('http://'.length))
  }
}
