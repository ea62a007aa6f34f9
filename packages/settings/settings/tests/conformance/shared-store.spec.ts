import type { Context } from 'cordis'
import { describeProviderConformance, type ConformanceStore } from 'dsh-settings/conformance'
import { SharedStore, SharedStoreProvider } from '../providers/shared-store.ts'

interface Shared extends ConformanceStore {
  store: SharedStore
}

// Store-owned revisions and a change feed: the cross-host cases run on two providers over one store.
describeProviderConformance<Shared>('a provider with store versions (shared store, two hosts)', {
  create({ document, writable = true }) {
    const store = new SharedStore(document)
    store.writable = writable
    return { store, plug: (ctx: Context) => ctx.plugin(SharedStoreProvider, { store }) }
  },
  edit: ({ store }, document) => store.exclusive(() => void store.writeDocument(document)),
  hosts: true,
  leftovers: ({ store }) => (store.listenerCount ? [`${store.listenerCount} feed listeners`] : []),
})
