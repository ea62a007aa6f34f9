import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DEFAULT_TYPESCRIPT_SUPPORT, prepareTypeScript, TypeScriptLoaderError, type TypeScriptSupport } from '../src/typescript.ts'

/** A support whose answers the test sets, counting the calls. */
function fakeSupport(answers: { loadable: boolean; registers: boolean }) {
  const calls = { loadable: 0, register: [] as string[] }
  const support: TypeScriptSupport = {
    loadable: async () => {
      calls.loadable++
      return answers.loadable
    },
    register: async (baseDir) => {
      calls.register.push(baseDir)
      return answers.registers
    },
  }
  return { support, calls, answers }
}

let dir: string

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-loader-ts-spec-')))
})

afterEach(() => {
  rmSync(dir, { recursive: true, force: true })
  delete (globalThis as { fakeTsxRegistered?: string }).fakeTsxRegistered
})

describe('prepareTypeScript', () => {
  it('leaves JavaScript entries alone', async () => {
    const { support, calls } = fakeSupport({ loadable: false, registers: false })
    await prepareTypeScript('/app/plugin.mjs', '/app', support)
    await prepareTypeScript('/app/node_modules/pkg/dist/index.js', '/app', support)
    expect(calls).toEqual({ loadable: 0, register: [] })
  })

  it('registers nothing in a process that loads TypeScript already', async () => {
    const { support, calls } = fakeSupport({ loadable: true, registers: true })
    await prepareTypeScript('/app/plugin.ts', '/app', support)
    expect(calls).toEqual({ loadable: 1, register: [] })
  })

  it('registers the project’s loader once, from the deployment folder, for every TypeScript entry after', async () => {
    const { support, calls } = fakeSupport({ loadable: false, registers: true })
    await Promise.all([prepareTypeScript('/app/a.ts', '/app', support), prepareTypeScript('/app/b.mts', '/app', support)])
    await prepareTypeScript('/app/c.tsx', '/app', support)
    expect(calls).toEqual({ loadable: 1, register: ['/app'] })
  })

  it('refuses a TypeScript entry with no loader by a typed error that says what to install, and tries again later', async () => {
    const fake = fakeSupport({ loadable: false, registers: false })
    const refused = await prepareTypeScript('/app/plugin.ts', '/app', fake.support).catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(TypeScriptLoaderError)
    expect(refused).toMatchObject({ name: 'TypeScriptLoaderError', code: 'DSH_TYPESCRIPT_LOADER_MISSING', file: '/app/plugin.ts' })
    expect((refused as Error).message).toContain('/app/plugin.ts is TypeScript')
    expect((refused as Error).message).toContain('npm install --save-dev tsx')
    // The user installs tsx and edits the deployment: the next TypeScript entry is tried afresh.
    fake.answers.registers = true
    await prepareTypeScript('/app/plugin.ts', '/app', fake.support)
    expect(fake.calls.register).toEqual(['/app', '/app'])
  })
})

describe('the default support', () => {
  it('finds that this test runner loads TypeScript', async () => {
    expect(await DEFAULT_TYPESCRIPT_SUPPORT.loadable()).toBe(true)
  })

  it('registers the tsx that the deployment folder resolves, and answers false where it resolves none', async () => {
    const app = join(dir, 'app')
    const tsx = join(app, 'node_modules', 'tsx')
    mkdirSync(join(tsx, 'esm'), { recursive: true })
    writeFileSync(join(tsx, 'package.json'), JSON.stringify({ name: 'tsx', type: 'module', exports: { './esm/api': { import: './esm/api.js' } } }))
    writeFileSync(join(tsx, 'esm', 'api.js'), `export function register() { globalThis.fakeTsxRegistered = ${JSON.stringify(dir)} }\n`)
    const empty = join(dir, 'empty')
    mkdirSync(empty)
    expect(await DEFAULT_TYPESCRIPT_SUPPORT.register(empty)).toBe(false)
    expect((globalThis as { fakeTsxRegistered?: string }).fakeTsxRegistered).toBeUndefined()
    expect(await DEFAULT_TYPESCRIPT_SUPPORT.register(app)).toBe(true)
    expect((globalThis as { fakeTsxRegistered?: string }).fakeTsxRegistered).toBe(dir)
  })
})
