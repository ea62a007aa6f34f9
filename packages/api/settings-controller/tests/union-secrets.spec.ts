/**
 * Secrets of the other union branches (issue 10), end to end through the real controller.
 *
 * What these tests prove: after a secret is set through one branch of a union and the
 * discriminator is switched to a branch that does not declare it (by `mutate`, as the page's
 * select does, or by an outside edit of the stored document), the secret stays stored (so the
 * checks are not vacuous) but never reaches the `mutate` answer, a global or scoped `describe`
 * (`value`, `user`, `base`, `inherited`) or a `settings/*` event, while `secrets` still lists
 * the slot as set, so a page can render its write-only input. The same holds for a secret nested
 * under a key the new branch treats as plain, and for an intersection where one part marks a
 * key secret that another part declares plain.
 */
import { afterEach, describe, expect, it } from 'vitest'
import Schema from 'schemastery'
import type { Fiber } from 'cordis'
import type { SettingsNamespaceView } from 'dsh-settings'
import { boot, expectNoSecrets, plugServer, type Booted, type FakeRemoteServer } from './harness.ts'

const SCOPE = 'preset/coder'
const TOKEN = 'sk-union-TOKEN'
const SCOPED_TOKEN = 'sk-union-SCOPED'
const EDITED_TOKEN = 'sk-union-EDITED'
const PASSWORD = 'pw-union-NESTED'
const BASE_TOKEN = 'sk-union-BASE'
const SECRETS = [TOKEN, SCOPED_TOKEN, EDITED_TOKEN, PASSWORD, BASE_TOKEN]

const secret = () => Schema.string().role('secret')

/** The issue's shape, with a nested secret under a key branch `b` treats as a plain dict. */
const Connection = Schema.union([
  Schema.object({
    kind: Schema.const('a').required(),
    token: secret(),
    conn: Schema.object({ host: Schema.string(), password: secret() }),
  }),
  Schema.object({ kind: Schema.const('b').required(), url: Schema.string(), conn: Schema.dict(Schema.string()) }),
])

let booted: Booted | undefined
const fibers: Fiber[] = []

afterEach(async () => {
  for (const fiber of fibers.splice(0).reverse()) await fiber.dispose()
  await booted?.controllerFiber.dispose()
  await booted?.providerFiber.dispose()
  booted = undefined
})


/** `conn` registered globally and in {@link SCOPE}, with the recording server plugged. */
async function setup(schema: Schema<any> = Connection, base?: Record<string, unknown>): Promise<{ b: Booted; server: FakeRemoteServer }> {
  const b = (booted = await boot())
  const { server } = await plugServer(b, fibers)
  await b.register('conn', schema, base === undefined ? undefined : { base })
  await b.register('conn', schema, undefined, SCOPE)
  return { b, server }
}

/** The one view of a describe answer. */
function only(b: Booted, scope?: string): SettingsNamespaceView {
  const { namespaces } = b.controller.describe(scope)
  expect(namespaces).toHaveLength(1)
  return namespaces[0]!
}

/** The slot a view reports for `path`. */
function slot(view: SettingsNamespaceView, path: string[]) {
  return view.secrets.find((entry) => JSON.stringify(entry.path) === JSON.stringify(path))
}

describe('a union switched away from the branch that marks a key secret', () => {
  it('keeps the token out of the mutate answer, both describes and every event, and lists it as set', async () => {
    const { b, server } = await setup()
    const written = await b.controller.update('conn', { kind: 'a', token: TOKEN, conn: { host: 'db', password: PASSWORD } })
    expectNoSecrets(written, SECRETS)

    const answer = await b.controller.mutate('conn', [{ op: 'set', path: ['kind'], value: 'b' }], written.revision)
    // The switch keeps what branch `a` wrote: the leak the redactor must close is really there.
    expect(b.provider.document()).toEqual({ conn: { kind: 'b', token: TOKEN, conn: { host: 'db', password: PASSWORD } } })
    expect(JSON.stringify(b.provider.describe())).toContain(TOKEN)

    expectNoSecrets(answer, SECRETS)
    expect(answer.value).toEqual({ kind: 'b', conn: { host: 'db' } })
    expect(answer.user).toEqual({ kind: 'b', conn: { host: 'db' } })
    expect(slot(answer, ['token'])).toEqual({ path: ['token'], set: true, layer: 'global', source: 'document' })
    expect(slot(answer, ['conn', 'password'])).toEqual({ path: ['conn', 'password'], set: true, layer: 'global', source: 'document' })

    const global = b.controller.describe()
    expectNoSecrets(global, SECRETS)
    expect(slot(only(b), ['token'])).toMatchObject({ set: true, layer: 'global' })

    const scoped = b.controller.describe(SCOPE)
    expectNoSecrets(scoped, SECRETS)
    const view = only(b, SCOPE)
    expect(view.inherited).toEqual({ kind: 'b', conn: { host: 'db' } })
    expect(view.value).toEqual({ kind: 'b', conn: { host: 'db' } })
    expect(slot(view, ['token'])).toMatchObject({ set: true, layer: 'global' })

    expect(server.events.length).toBeGreaterThan(0)
    expectNoSecrets(server.events, SECRETS)
  })

  it('keeps a scoped token out of the scoped mutate answer and describe after a scoped switch', async () => {
    const { b, server } = await setup()
    await b.controller.update('conn', { kind: 'a', token: TOKEN })
    await b.controller.update('conn', { kind: 'a', token: SCOPED_TOKEN }, null, SCOPE)
    const answer = await b.controller.mutate('conn', [{ op: 'set', path: ['kind'], value: 'b' }, { op: 'set', path: ['url'], value: 'https://x' }], null, SCOPE)
    expect(JSON.stringify(b.provider.document())).toContain(SCOPED_TOKEN)

    expectNoSecrets(answer, SECRETS)
    expect(answer.scope).toBe(SCOPE)
    expect(answer.user).toEqual({ kind: 'b', url: 'https://x' })
    expect(slot(answer, ['token'])).toEqual({ path: ['token'], set: true, layer: 'scope', source: 'document' })

    const view = only(b, SCOPE)
    expectNoSecrets(b.controller.describe(SCOPE), SECRETS)
    // The global section still resolves through branch `a` (resolution adds the empty `conn`): its token is dropped as before.
    expect(view.inherited).toEqual({ kind: 'a', conn: {} })
    expect(slot(view, ['token'])).toMatchObject({ set: true, layer: 'scope' })
    expectNoSecrets(b.controller.describe(), SECRETS)
    expectNoSecrets(server.events, SECRETS)
  })

  it('keeps the token out after an outside edit of the stored document switched the branch', async () => {
    const { b, server } = await setup()
    await b.provider.edit({
      conn: { kind: 'b', url: 'https://global', token: EDITED_TOKEN },
      scopes: { [SCOPE]: { conn: { kind: 'b', conn: { host: 'h', password: PASSWORD } } } },
    })
    // The verbatim in-process view shows the leftovers: the redacted checks below are not vacuous.
    expect(JSON.stringify(b.provider.describe({ scope: SCOPE }))).toContain(EDITED_TOKEN)
    expect(JSON.stringify(b.provider.describe({ scope: SCOPE }))).toContain(PASSWORD)

    const global = only(b)
    expectNoSecrets(b.controller.describe(), SECRETS)
    expect(global.value).toEqual({ kind: 'b', url: 'https://global', conn: {} })
    expect(global.user).toEqual({ kind: 'b', url: 'https://global' })
    expect(slot(global, ['token'])).toEqual({ path: ['token'], set: true, layer: 'global', source: 'document' })

    const scoped = only(b, SCOPE)
    expectNoSecrets(b.controller.describe(SCOPE), SECRETS)
    expect(scoped.inherited).toEqual({ kind: 'b', url: 'https://global', conn: {} })
    expect(scoped.user).toEqual({ kind: 'b', conn: { host: 'h' } })
    expect(scoped.value).toEqual({ kind: 'b', url: 'https://global', conn: { host: 'h' } })
    expect(slot(scoped, ['token'])).toMatchObject({ set: true, layer: 'global' })
    expect(slot(scoped, ['conn', 'password'])).toMatchObject({ set: true, layer: 'scope' })

    expect(server.events.map((entry) => entry.event)).toContain('settings/updated')
    expectNoSecrets(server.events, SECRETS)
  })

  it('keeps a base token out after the user section switched the branch', async () => {
    const { b } = await setup(Connection, { kind: 'a', token: BASE_TOKEN })
    const answer = await b.controller.mutate('conn', [{ op: 'set', path: ['kind'], value: 'b' }])
    expect(JSON.stringify(b.provider.describe())).toContain(BASE_TOKEN)
    expectNoSecrets(answer, SECRETS)
    expect(answer.base).toEqual({ kind: 'a' })
    expect(answer.value).toEqual({ kind: 'b', conn: {} })
    expect(slot(answer, ['token'])).toEqual({ path: ['token'], set: true, layer: 'base' })
    expectNoSecrets(b.controller.describe(), SECRETS)
  })
})

describe('an intersection where one part marks a key secret', () => {
  const Keyed = Schema.intersect([
    Schema.object({ url: Schema.string(), token: Schema.string() }),
    Schema.object({ token: secret() }),
  ])

  it('keeps the token out of the write answers, both describes and every event, and lists it as set', async () => {
    const { b, server } = await setup(Keyed)
    const written = await b.controller.update('conn', { url: 'https://x', token: TOKEN })
    const mutated = await b.controller.mutate('conn', [{ op: 'set', path: ['token'], value: SCOPED_TOKEN }], null, SCOPE)
    expect(JSON.stringify(b.provider.document())).toContain(TOKEN)
    expect(JSON.stringify(b.provider.document())).toContain(SCOPED_TOKEN)

    for (const view of [written, mutated]) expectNoSecrets(view, SECRETS)
    expect(written.value).toEqual({ url: 'https://x' })
    expect(slot(written, ['token'])).toEqual({ path: ['token'], set: true, layer: 'global', source: 'document' })
    expect(slot(mutated, ['token'])).toEqual({ path: ['token'], set: true, layer: 'scope', source: 'document' })

    expectNoSecrets(b.controller.describe(), SECRETS)
    expectNoSecrets(b.controller.describe(SCOPE), SECRETS)
    expect(only(b, SCOPE).inherited).toEqual({ url: 'https://x' })
    expectNoSecrets(server.events, SECRETS)
  })
})
