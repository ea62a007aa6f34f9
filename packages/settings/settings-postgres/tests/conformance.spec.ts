import type { Context } from 'cordis'
import { describe } from 'vitest'
import { describeProviderConformance, type ConformanceStore } from 'dsh-settings/conformance'
import PostgresSettingsProvider from 'dsh-settings-postgres'
import { freshPrefix, HAVE_POSTGRES, useServer, writeStore } from './harness.ts'

interface PgStore extends ConformanceStore {
  table: string
}

const holder = useServer()

describe.runIf(HAVE_POSTGRES)('PostgreSQL', () => {
  describeProviderConformance<PgStore>('PostgresSettingsProvider', {
    async create({ document, writable = true }) {
      const { server } = holder
      const table = freshPrefix()
      // Tables and rows first, as the owner role; a read-only store is then a role that may only read them.
      await writeStore(server.url(), table, document ?? {})
      let url = server.url()
      if (!writable) {
        const role = `ro_${table}`
        await server.sql(`CREATE ROLE ${role} LOGIN; GRANT SELECT ON ${table}_documents, ${table}_sections, ${table}_migrations TO ${role}`)
        url = url.replace('://postgres:', `://${role}:`)
      }
      return { table, plug: (ctx: Context) => ctx.plugin(PostgresSettingsProvider, { url, table, recheckMs: 200, timeoutMs: 3000 }) }
    },
    edit: (store, document) => writeStore(holder.server.url(), store.table, document),
    restart: () => holder.server.restart(),
    hosts: true,
  })
})
