/**
 * The value commands with no host running (issue 35): they never import or
 * apply a plugin of the deployment; they judge values by the schemas the host
 * recorded in its catalog, trusted only as the user's own private file of
 * this deployment, naming plugins upgraded since; a read leaves every file as
 * it was (a section waiting to be migrated included) and a write to such a
 * section is refused; a write is recorded as the command's; and without a
 * schema, values are read and written as stored, labelled unchecked.
 */
import { spawnSync } from 'node:child_process'
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { fingerprint, recordCatalog } from './catalog-host.ts'
import { dsh, useHosts, WORKSPACE } from './hosts.ts'

const FIXTURES = 'packages/tools/dsh/tests/fixtures'
const DEPLOYMENT = `${FIXTURES}/no-host.cordis.yml`
const hosts = useHosts()

/** A home holding the clean example document, with the catalog its host wrote. */
async function recorded(): Promise<string> {
  const dir = hosts.home('dsh-no-host-', `${FIXTURES}/clean.yaml`)
  await recordCatalog(hosts, dir, DEPLOYMENT)
  return dir
}

const run = (dir: string, ...args: string[]) => dsh(dir, 'settings', ...args, '-d', DEPLOYMENT)
const traces = globalThis as { __dshMarkerImported?: number; __dshMarkerApplied?: number }

describe('value commands with no host running', () => {
  it('never import or apply a plugin of the deployment, with a catalog or without one', async () => {
    const dir = await recorded()
    // The host ran the plugin: this is what its code leaves.
    expect(readFileSync(join(dir, 'marker.txt'), 'utf8')).toBe('APPLIED\n')
    rmSync(join(dir, 'marker.txt'))
    rmSync(join(dir, 'imported.txt'))
    const printed: string[] = []
    const commands = [
      ['get', 'marker'],
      ['get', 'web-search.limit'],
      ['set', 'web-search.limit', '12'],
      ['set', 'marker.level', '3'],
      ['unset', 'web-search.limit'],
      ['reset', 'marker'],
      ['history'],
    ]
    for (const args of commands) {
      const result = await run(dir, ...args)
      expect({ args, code: result.code }).toEqual({ args, code: 0 })
      printed.push(...result.out, ...result.err)
    }
    const oldest = (await run(dir, 'history')).out.at(-1)!.split(' ')[0]!
    for (const args of [['diff', oldest], ['restore', oldest, 'web-search'], ['restore', oldest]]) {
      const result = await run(dir, ...args)
      expect({ args, code: result.code }).toEqual({ args, code: 0 })
      printed.push(...result.out, ...result.err)
    }
    rmSync(join(dir, 'settings-catalog.json'))
    for (const args of [['get', 'marker'], ['set', 'marker.level', '4'], ['history']]) printed.push(...(await run(dir, ...args)).err)
    // The installed command in a process of its own, where the plugin's module would write imported.txt at its top level.
    // With no schema recorded, only --show-secrets prints the stored values (no plugin says which are secrets).
    const child = spawnSync(process.execPath, ['--conditions=source', '--import', 'tsx', 'packages/tools/dsh/src/bin.ts', 'settings', 'get', 'marker', '--show-secrets', '-d', DEPLOYMENT], { cwd: WORKSPACE, env: { ...process.env, DSH_HOME: dir, DSH_PORT: '0' }, encoding: 'utf8' })
    expect(child.status).toBe(0)
    printed.push(child.stdout, child.stderr)
    expect(existsSync(join(dir, 'marker.txt'))).toBe(false)
    expect(existsSync(join(dir, 'imported.txt'))).toBe(false)
    expect(traces.__dshMarkerImported).toBeUndefined()
    expect(traces.__dshMarkerApplied).toBeUndefined()
    expect(printed.join('\n')).not.toContain('APPLIED')
  })

  it('resolve values from the recorded schemas and bases, and judge writes by them as a host would', async () => {
    const dir = await recorded()
    expect((await run(dir, 'get', 'web-search.limit')).out).toEqual(['25'])
    expect((await run(dir, 'get', 'web-search.limit', '--scope', 'preset/coder')).out).toEqual(['30'])
    // The marker plugin's base (its cordis.yml entry made it) gives level 2 and a secret, recorded as set, never as its value.
    expect((await run(dir, 'get', 'marker', '--json')).out.join('\n')).toBe(JSON.stringify({ level: 2, key: { secret: true, set: true } }, null, 2))
    const refused = await run(dir, 'set', 'web-search.limit', '500')
    expect(refused.code).toBe(1)
    expect(refused.err.join('\n')).toMatch(/limit.*50|50.*limit/)
    expect((await run(dir, 'unset', 'web-search.engine')).code).toBe(0)
    // The base of the deployment file, as recorded: engine bing.
    expect((await run(dir, 'get', 'web-search.engine')).out).toEqual(['bing'])
    expect(JSON.stringify(readFileSync(join(dir, 'settings-catalog.json'), 'utf8'))).not.toContain('marker-base-key-5f1c')
  })

  it('leave the document, its history and every other file as they were on a read, a section waiting to be migrated included, and refuse to write that section', async () => {
    const dir = await recorded()
    // A section an older release of the plugin wrote (version 0), put there while no host ran.
    const document = join(dir, 'settings.yaml')
    writeFileSync(document, `${readFileSync(document, 'utf8')}versioned:\n  apiKey: versioned-secret-6e1d\n  server:\n    host: db.example:5432\n`)
    expect((await run(dir, 'set', 'web-search.limit', '26')).code).toBe(0)
    const before = fingerprint(dir)
    const got = await run(dir, 'get', 'versioned')
    expect(got.code).toBe(0)
    // Shown as stored: the renamed key is no longer declared (so withheld), the host not yet split.
    expect(got.out.join('\n')).toContain('host: db.example:5432')
    expect(got.err).toContain("note: versioned is stored at version 0 and its plugin's settings are at version 2 (rename $.apiKey to $.token; splitHost): shown as stored, not migrated; start the host once to migrate it")
    const oldest = (await run(dir, 'history')).out.at(-1)!.split(' ')[0]!
    for (const args of [['get', 'versioned', '--json'], ['get', 'web-search'], ['history'], ['diff', oldest], ['get', 'versioned.server.host', '--show-secrets']]) {
      const result = await run(dir, ...args)
      expect({ args, code: result.code }).toEqual({ args, code: 0 })
    }
    expect(fingerprint(dir)).toEqual(before)
    const write = await run(dir, 'set', 'versioned.server.port', '9')
    expect(write.code).toBe(1)
    expect(write.err.join('\n')).toContain('start the host once to migrate it')
    expect(fingerprint(dir)).toEqual(before)
    expect(JSON.stringify(got)).not.toContain('versioned-secret-6e1d')
  })

  it('record a write in the history as made by the command', async () => {
    const dir = await recorded()
    expect((await run(dir, 'set', 'web-search.limit', '31')).code).toBe(0)
    expect((await run(dir, 'set', 'web-search.limit', '32')).code).toBe(0)
    const history = await run(dir, 'history')
    expect(history.out[0]).toMatch(/^\S+ {2}written \S+ {2}by command {2}web-search$/)
  })

  it('name in one note line the plugins whose installed version is not the one the host ran', async () => {
    const dir = await recorded()
    const file = join(dir, 'settings-catalog.json')
    const catalog = JSON.parse(readFileSync(file, 'utf8')) as { deployment: { packages: Record<string, string> } }
    catalog.deployment.packages['dsh-example-web-search'] = '0.0.1'
    delete catalog.deployment.packages['./plugins/bot.mjs']
    writeFileSync(file, JSON.stringify(catalog))
    const got = await run(dir, 'get', 'web-search.limit')
    expect(got.out).toEqual(['25'])
    const notes = got.err.filter((line) => line.includes('changed since the host last ran'))
    expect(notes).toHaveLength(1)
    expect(notes[0]).toContain('dsh-example-web-search (0.0.1 → 0.1.0)')
    expect(notes[0]).toContain('./plugins/bot.mjs (not recorded)')
  })

  it('read and write values as stored, labelled unchecked, with no catalog, one not the user\'s own private file, or one of another deployment', async () => {
    const dir = hosts.home('dsh-no-host-', `${FIXTURES}/clean.yaml`)
    // A scope id the seam refuses is refused as a host refuses it, before anything is read.
    expect(await run(dir, 'get', 'web-search.limit', '--scope', 'Not A Scope')).toMatchObject({ code: 1, out: [] })
    // No schema says which values are secrets: a plain get refuses and says how to read them anyway.
    const refused = await run(dir, 'get', 'web-search')
    expect(refused).toMatchObject({ code: 1, out: [] })
    expect(refused.err.join('\n')).toContain('--show-secrets')
    const none = await run(dir, 'get', 'web-search.limit', '--show-secrets')
    expect(none.out).toEqual(['25'])
    // Named alone when the command asks for its namespace only; with every stored one when it describes them all.
    expect(none.err.join('\n')).toContain(`: ${join(dir, 'settings-catalog.json')} does not exist;`)
    expect(none.err.join('\n')).toMatch(/^\(unchecked: no schema recorded for web-search[,:]/m)
    // Unjudged: the schema's maximum of 50 is not known here.
    const set = await run(dir, 'set', 'web-search.limit', '500')
    expect(set.code).toBe(0)
    expect(set.err.join('\n')).toContain('(unchecked: no schema recorded for web-search')
    const recordedDir = await recorded()
    chmodSync(join(recordedDir, 'settings-catalog.json'), 0o644)
    expect((await run(recordedDir, 'get', 'web-search.limit', '--show-secrets')).err.join('\n')).toContain('may be read or written by other users')
    chmodSync(join(recordedDir, 'settings-catalog.json'), 0o600)
    const other = await dsh(recordedDir, 'settings', 'get', 'web-search.limit', '--show-secrets', '-d', `${FIXTURES}/cordis.yml`)
    expect(other.err.join('\n')).toContain(`was written by the host of ${join(WORKSPACE, DEPLOYMENT)}`)
  })
})
