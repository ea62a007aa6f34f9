/**
 * Secrets the document does not hold, on the page: a secret the host supplies
 * (an environment variable, a file) shows where it comes from, in both
 * languages, and cannot be replaced or cleared here; one kept in the secret
 * store is written as usual, with a note; a store's refusal of a write to a
 * read-only reference reaches the section with its code and message. Against
 * the real service and controller behind the fake wire.
 */
import type { Context, Fiber } from 'cordis'
import Schema from 'schemastery'
import { afterEach, describe, expect, it } from 'vitest'
import { SettingsStoreError, type JsonObject, type SectionKey, type SettingsSecretOrigin } from 'dsh-settings'
import { MemorySettingsProvider } from 'dsh-settings/memory'
import { secretOrigin } from '../../src/app/format.ts'
import { setPageLocale } from '../../src/app/i18n.ts'
import type { SettingsSession, SectionState } from '../../src/app/session.ts'
import { fieldAt, isHostSecret, planEdit, type Edit } from '../../src/model/index.ts'
import { until, useStack } from './stack.ts'

const ENV_VALUE = 'sk-ENV-NEVER-ON-PAGE'

/** Where each secret of `keys` comes from, as a file provider would answer for `!env`, `!file` and `!secret`. */
const origins = new Map<string, SettingsSecretOrigin>()

/** A memory store that names references, and refuses a write that changes a secret the environment holds. */
class ReferencingStore extends MemorySettingsProvider {
  protected override secretSource(key: SectionKey, path: readonly string[]): SettingsSecretOrigin | undefined {
    return key.scope === undefined ? origins.get(`${key.ns}.${path.join('.')}`) : undefined
  }

  protected override cannotHold(key: SectionKey, section: JsonObject): SettingsStoreError | undefined {
    const origin = origins.get(`${key.ns}.apiKey`)
    if (origin?.source !== 'env' || section.apiKey === ENV_VALUE) return undefined
    return new SettingsStoreError('SETTINGS_SECRET_READ_ONLY', `settings "${key.ns}": $.apiKey comes from the environment variable ${origin.reference}; set it there`, 'memory')
  }
}

const Keys = Schema.object({
  apiKey: Schema.string().role('secret'),
  certificate: Schema.string().role('secret'),
  token: Schema.string().role('secret'),
})

const stack = useStack()
afterEach(() => {
  setPageLocale('en-US')
  origins.clear()
})

/** Boot and load the page; `apiKeyFrom: 'document'` reads the API key as written in the document. */
async function started(apiKeyFrom: 'env' | 'document' = 'env'): Promise<SettingsSession> {
  const document = { keys: { apiKey: ENV_VALUE, certificate: 'cert-FROM-FILE', token: 'sk-STORED' } }
  if (apiKeyFrom === 'env') origins.set('keys.apiKey', { source: 'env', reference: 'SEARCH_API_KEY' })
  origins.set('keys.certificate', { source: 'file', reference: '/run/secrets/x' })
  origins.set('keys.token', { source: 'store', reference: 'keys.token' })
  const { root, session: open } = await stack.boot({ document, provider: ReferencingStore })
  const fiber: Fiber = root.plugin({ inject: ['settings'], apply: (ctx: Context) => void ctx.settings.register('keys', Keys) })
  await fiber.await()
  const { session } = open()
  session.start()
  await until(session, (state) => state.status === 'ready')
  return session
}

function keys(session: SettingsSession): SectionState {
  const found = session.state.sections.find((candidate) => candidate.form.ns === 'keys')
  if (!found) throw new Error('no section keys')
  return found
}

describe('a secret the document does not hold', () => {
  it('says where the host’s value comes from, in English and in Chinese, and never the value', async () => {
    const session = await started()
    const form = keys(session).form
    const [apiKey, certificate, token] = (['apiKey', 'certificate', 'token'] as const).map((key) => fieldAt(form, [key])!)
    expect(apiKey!.secret).toEqual({ set: true, layer: 'global', source: 'env', reference: 'SEARCH_API_KEY' })
    expect([apiKey, certificate, token].map((field) => isHostSecret(field!))).toEqual([true, true, false])
    expect([apiKey, certificate, token].map((field) => secretOrigin(field!.secret))).toEqual([
      'From the environment: SEARCH_API_KEY',
      'From the file: /run/secrets/x',
      'Kept in the secret store: a new value replaces the stored one.',
    ])
    setPageLocale('zh-CN')
    expect([apiKey, certificate, token].map((field) => secretOrigin(field!.secret))).toEqual(['来自环境变量：SEARCH_API_KEY', '来自文件：/run/secrets/x', '保存在密钥库中：新值会替换库中的值。'])
    expect(secretOrigin({ set: true, source: 'document' })).toBeUndefined()
    expect(secretOrigin({ set: false })).toBeUndefined()
    expect(JSON.stringify(session.state)).not.toContain(ENV_VALUE)
  })

  it('refuses to replace or clear a secret the host supplies, without sending anything', async () => {
    const session = await started()
    const form = keys(session).form
    const edits: Edit[] = [
      { type: 'replace-secret', path: ['apiKey'], value: 'x' },
      { type: 'clear-secret', path: ['certificate'] },
    ]
    for (const edit of edits) {
      expect(planEdit(form, edit)).toMatchObject({ kind: 'refused', code: 'secret-read-only' })
    }
    setPageLocale('zh-CN')
    expect(await session.apply('keys', { type: 'replace-secret', path: ['apiKey'], value: 'sk-TYPED' })).toBe('此密钥来自主机（环境变量或文件），请在那里修改')
  })

  it('replaces a secret kept in the secret store as usual, and it stays there', async () => {
    const session = await started()
    expect(planEdit(keys(session).form, { type: 'replace-secret', path: ['token'], value: 'sk-NEW' })).toEqual({ kind: 'mutate', ops: [{ op: 'set', path: ['token'], value: 'sk-NEW' }] })
    expect(await session.apply('keys', { type: 'replace-secret', path: ['token'], value: 'sk-NEW' })).toBeUndefined()
    await until(session, () => !keys(session).busy)
    expect(keys(session).error).toBeUndefined()
    expect(fieldAt(keys(session).form, ['token'])!.secret).toEqual({ set: true, layer: 'global', source: 'store', reference: 'keys.token' })
  })

  it('shows the store’s refusal of a read-only reference on the section, with its code and message', async () => {
    // The page read the secret as written in the document; the host has since taken it from the environment.
    const stale = await started('document')
    expect(isHostSecret(fieldAt(keys(stale).form, ['apiKey'])!)).toBe(false)
    origins.set('keys.apiKey', { source: 'env', reference: 'SEARCH_API_KEY' })
    expect(await stale.apply('keys', { type: 'replace-secret', path: ['apiKey'], value: 'sk-TYPED-VALUE' })).toBeUndefined()
    await until(stale, () => keys(stale).error !== undefined)
    expect(keys(stale).error).toMatchObject({ code: 'settings/rejected', message: 'settings "keys": $.apiKey comes from the environment variable SEARCH_API_KEY; set it there' })
    expect(JSON.stringify(stale.state)).not.toContain('sk-TYPED-VALUE')
  })
})
