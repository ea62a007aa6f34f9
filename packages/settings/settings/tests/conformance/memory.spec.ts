import type { Context } from 'cordis'
import { describeProviderConformance, type ConformanceStore } from 'dsh-settings/conformance'
import { MemorySettingsProvider } from 'dsh-settings/memory'
import type { SettingsDocument } from 'dsh-settings'

/** The memory provider keeps its document in the instance: the store hands each new instance what the last one held. */
class MemoryStore implements ConformanceStore {
  latest: MemorySettingsProvider | undefined
  constructor(private readonly initial: SettingsDocument, private readonly writable: boolean) {}

  plug(ctx: Context) {
    const store = this
    const document = this.latest?.document() ?? this.initial
    return ctx.plugin(
      class extends MemorySettingsProvider {
        constructor(ctx: Context, config: MemorySettingsProvider.Config) {
          super(ctx, config)
          store.latest = this
        }
      },
      { document, writable: this.writable },
    )
  }
}

describeProviderConformance<MemoryStore>('MemorySettingsProvider', {
  create: ({ document = {}, writable = true }) => new MemoryStore(document, writable),
  edit: (store, document) => store.latest!.edit(document),
})
