// moveSecrets (issue 37 "Done when"): every inline secret of the document and of every kept version leaves for the
// store; grep finds no value in settings.yaml or history/, and every plugin still gets its values.
import { spawnSync } from 'node:child_process'
import { readdir, readFile, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import Schema from 'schemastery'
import { describe, expect, it } from 'vitest'
import type { SettingsScope } from 'dsh-settings'
import FileSettingsProvider from 'dsh-settings-file'
import { bootFile, fileFixture, type FileHarness } from './file-harness.ts'

const schema = () => Schema.object({ engine: Schema.string().default('bing'), apiKey: Schema.string().role('secret'), nested: Schema.object({ token: Schema.string().role('secret') }) })
type Section = ReturnType<ReturnType<typeof schema>>

const fx = fileFixture()
const SECRETS = ['sk-move-one-1111', 'sk-move-two-2222', 'sk-move-old-3333', 'sk-move-scoped-4444'] as const

async function register(h: FileHarness, ns: string): Promise<SettingsScope<Section>> {
  let scope!: SettingsScope<Section>
  await h.root.inject(['settings'], (ctx) => {
    scope = ctx.settings.register(ns, schema())
  })
  return scope
}

function grep(value: string, ...paths: string[]): string {
  const found = spawnSync('grep', ['-r', '-F', '-l', value, ...paths], { encoding: 'utf8' })
  return found.stdout.trim()
}

describe('moveSecrets', () => {
  it('moves every inline secret of the document and of history/ to secrets.yaml; plugins keep their values', async () => {
    const file = join(fx.dir, 'settings.yaml')
    // Inline (secrets: inline) first, so the document and its kept versions hold the values as an old deployment's do.
    fx.harness = await bootFile({ path: file, watch: false, secrets: 'inline' })
    const alpha = await register(fx.harness, 'alpha')
    const beta = await register(fx.harness, 'beta')
    await alpha.update({ apiKey: SECRETS[2] })
    await alpha.update({ apiKey: SECRETS[0], engine: 'google' })
    await beta.update({ nested: { token: SECRETS[1] } })
    await fx.harness.settings.update('alpha', { apiKey: SECRETS[3] }, undefined, 'preset/coder')
    await fx.harness.dispose()
    const before = await readFile(file, 'utf8')
    expect(before).toContain(SECRETS[0])
    expect(grep(SECRETS[2], join(fx.dir, 'history'))).not.toBe('')
    const keptBefore = await readdir(join(fx.dir, 'history'))
    const modes = new Map(await Promise.all(keptBefore.map(async (name) => [name, await stat(join(fx.dir, 'history', name))] as const)))

    fx.harness = await bootFile({ path: file, watch: false })
    const alpha2 = await register(fx.harness, 'alpha')
    const beta2 = await register(fx.harness, 'beta')
    const provider = fx.harness.settings as unknown as FileSettingsProvider
    const historyBefore = await provider.history()
    expect(await provider.moveSecrets()).toEqual({ moved: 3 })

    for (const secret of SECRETS) expect(grep(secret, file, join(fx.dir, 'history'))).toBe('')
    expect(await readFile(file, 'utf8')).toContain('apiKey: !secret alpha.apiKey')
    expect(await readFile(file, 'utf8')).toContain('token: !secret beta.nested.token')
    expect(await readFile(file, 'utf8')).toContain('apiKey: !secret preset/coder/alpha.apiKey')
    expect(alpha2.get()).toMatchObject({ apiKey: SECRETS[0], engine: 'google' })
    expect(beta2.get()).toMatchObject({ nested: { token: SECRETS[1] } })
    // Kept versions keep their names, modes and dates (their order); history lists as before.
    const drift: string[] = []
    for (const [name, info] of modes) {
      if (name.endsWith('.journal.jsonl')) continue
      const now = await stat(join(fx.dir, 'history', name))
      if (now.mode !== info.mode || Math.abs(now.mtimeMs - info.mtimeMs) >= 0.01) drift.push(`${name} ${now.mode.toString(8)} ${info.mode.toString(8)} ${now.mtimeMs - info.mtimeMs}`)
    }
    expect(drift).toEqual([])
    // History lists what it did, and the version the move replaced (already without values: it was scrubbed too).
    const ids = (await provider.history()).map((version) => version.id)
    expect(ids).toEqual(expect.arrayContaining(historyBefore.map((version) => version.id)))
    // No value anywhere a user sees: logs, the journal, the editor schema.
    const journal = await readdir(join(fx.dir, 'history'))
    for (const secret of SECRETS) {
      expect(fx.harness.logs.join('\n')).not.toContain(secret)
      expect(JSON.stringify(fx.harness.settings.describe({ redactSecrets: true }))).not.toContain(secret)
      for (const name of journal) expect(await readFile(join(fx.dir, 'history', name), 'utf8')).not.toContain(secret)
    }

    // Again: nothing left to move; and a restart still gives every plugin its values.
    expect(await provider.moveSecrets()).toEqual({ moved: 0 })
    await fx.harness.dispose()
    fx.harness = await bootFile({ path: file, watch: false })
    expect((await register(fx.harness, 'alpha')).get()).toMatchObject({ apiKey: SECRETS[0] })
    expect((await register(fx.harness, 'beta')).get()).toMatchObject({ nested: { token: SECRETS[1] } })
  })

  it("is refused with secrets: 'inline'", async () => {
    await writeFile(join(fx.dir, 'settings.yaml'), 'alpha:\n  apiKey: sk-x\n')
    fx.harness = await bootFile({ path: join(fx.dir, 'settings.yaml'), watch: false, secrets: 'inline' })
    await expect((fx.harness.settings as unknown as FileSettingsProvider).moveSecrets()).rejects.toMatchObject({ code: 'SETTINGS_SECRETS_INLINE' })
  })
})
