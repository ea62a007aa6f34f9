import { Context, Logger, type Plugin } from 'cordis'
import Schema from 'schemastery'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { namedScopeOf } from 'dsh-scope'
import { DeploymentLoader } from '../src/loader.ts'
import { planDeployment } from '../src/plan.ts'
import { deferred, drainMicrotasks, type Deferred } from 'dsh-testing'
import { fibersSettled } from './fibers.ts'

/**
 * Resolve once the microtask queue has run dry. The loader, cordis and the
 * fake modules here only chain promises, so afterwards nothing they started can
 * still be on its way: a check that something has not happened (a replacement
 * plugged while a disposal is held) is then final.
 */

/** What one application of a fake plugin saw. */
interface Instance {
  specifier: string
  /** `specifier#n`: the n-th application of that plugin. */
  id: string
  config: unknown
  scope: string | undefined
}

/**
 * In-memory plugins standing in for modules: `load(specifier)` gives one
 * plugin per specifier that records its applications and disposals.
 */
class FakeModules {
  readonly events: string[] = []
  readonly instances: Instance[] = []
  readonly loads: string[] = []
  /** A disposal of this specifier waits for the promise before it completes. */
  readonly gates = new Map<string, Promise<void>>()
  private readonly arrivals = new Map<string, Deferred>()
  /** Specifiers whose next loads fail. */
  readonly broken = new Set<string>()
  private readonly plugins = new Map<string, Plugin>()

  readonly load = async (specifier: string, baseDir: string): Promise<Plugin> => {
    this.loads.push(`${specifier} from ${baseDir}`)
    await Promise.resolve()
    if (this.broken.has(specifier)) throw new Error(`Cannot find module '${specifier}'`)
    let plugin = this.plugins.get(specifier)
    if (!plugin) this.plugins.set(specifier, (plugin = this.plugin(specifier)))
    return plugin
  }

  private plugin(specifier: string): Plugin {
    const modules = this
    return {
      name: `fake-${specifier}`,
      apply(ctx: Context, config: unknown) {
        const n = modules.instances.filter((instance) => instance.specifier === specifier).length + 1
        const id = `${specifier}#${n}`
        modules.instances.push({ specifier, id, config, scope: namedScopeOf(ctx) })
        modules.events.push(`apply ${id}`)
        ctx.effect(() => () => {
          modules.events.push(`dispose ${id}`)
          const gate = modules.gates.get(specifier)
          if (!gate) return
          modules.arrival(specifier).resolve()
          return gate.then(() => {
            modules.events.push(`disposed ${id}`)
          })
        })
      },
    }
  }

  private arrival(specifier: string): Deferred {
    let arrival = this.arrivals.get(specifier)
    if (!arrival) this.arrivals.set(specifier, (arrival = deferred()))
    return arrival
  }

  /** Settles once a disposal of `specifier` is held at its gate. */
  gateReached(specifier: string): Promise<void> {
    return this.arrival(specifier).promise
  }

  /** The applications of `specifier`, oldest first. */
  of(specifier: string): Instance[] {
    return this.instances.filter((instance) => instance.specifier === specifier)
  }

  /** The ids of the instances applied and not disposed yet, in application order. */
  live(): string[] {
    const disposed = new Set(this.events.filter((event) => event.startsWith('dispose ')).map((event) => event.slice('dispose '.length)))
    return this.instances.map((instance) => instance.id).filter((id) => !disposed.has(id))
  }
}

const BASE = '/deployment/base'

let root: Context
let modules: FakeModules
let loader: DeploymentLoader
let logs: string[]
let heard: Set<() => void>

/** Settles once a captured log line (already captured or still to come) matches. */
function logged(match: (line: string) => boolean): Promise<void> {
  return new Promise((resolve) => {
    const hear = () => {
      if (!logs.some(match)) return
      heard.delete(hear)
      resolve()
    }
    heard.add(hear)
    hear()
  })
}

beforeEach(() => {
  root = new Context()
  logs = []
  heard = new Set()
  const exporter = {
    colors: false as const,
    export: (message: Parameters<typeof Logger.format>[1]) => {
      logs.push(`[${message.type}] ${message.name} ${Logger.format(exporter, message)}`)
      for (const hear of [...heard]) hear()
    },
  }
  root.logger.exporter(exporter)
  modules = new FakeModules()
  loader = new DeploymentLoader(root, { baseDir: BASE, load: modules.load })
})

afterEach(async () => {
  modules.gates.clear()
  await loader.dispose()
})

/** Plan a deployment text, apply it and wait until every plugin it plugged or unplugged has settled. */
async function deploy(text: string): Promise<void> {
  await loader.apply(planDeployment(text, {}))
  await fibersSettled(root)
}

const yaml = (...lines: string[]) => ['plugins:', ...lines, ''].join('\n')

describe('DeploymentLoader: plugging', () => {
  it('plugs every entry in file order with its config, loading specifiers from the base folder', async () => {
    await deploy(yaml('  ./a.mjs:', '    n: 1', '  pkg-b:', '    n: 2', '  ./c.mjs: {}'))
    expect(modules.events).toEqual(['apply ./a.mjs#1', 'apply pkg-b#1', 'apply ./c.mjs#1'])
    expect(modules.instances.map(({ id, config }) => [id, config])).toEqual([
      ['./a.mjs#1', { n: 1 }],
      ['pkg-b#1', { n: 2 }],
      ['./c.mjs#1', {}],
    ])
    expect(modules.loads).toEqual([`./a.mjs from ${BASE}`, `pkg-b from ${BASE}`, `./c.mjs from ${BASE}`])
  })

  it('plugs a labelled entry as a second instance of the same plugin', async () => {
    await deploy(yaml('  pkg-a:', '    n: 1', '  pkg-a:two:', '    n: 2'))
    expect(modules.of('pkg-a').map(({ id, config }) => [id, config])).toEqual([
      ['pkg-a#1', { n: 1 }],
      ['pkg-a#2', { n: 2 }],
    ])
    expect(modules.live()).toEqual(['pkg-a#1', 'pkg-a#2'])
  })

  it('plugs top-level entries in the global scope', async () => {
    await deploy(yaml('  pkg-a: {}'))
    expect(modules.of('pkg-a')[0]!.scope).toBeUndefined()
  })

  it('does nothing when applied again with the same entries', async () => {
    const text = yaml('  pkg-a:', '    n: 1', '  scope:preset/coder:', '    pkg-b: {}')
    await deploy(text)
    await deploy(text)
    expect(modules.events).toEqual(['apply pkg-a#1', 'apply pkg-b#1'])
  })
})

describe('DeploymentLoader: re-plugging', () => {
  it('disposes only the entry whose config changed, awaiting its disposal before plugging the new one', async () => {
    await deploy(yaml('  pkg-a:', '    n: 1', '  pkg-b:', '    n: 1', '  pkg-c:', '    n: 1'))
    const gate = deferred()
    modules.gates.set('pkg-b', gate.promise)

    let applied = false
    const applying = loader.apply(planDeployment(yaml('  pkg-a:', '    n: 1', '  pkg-b:', '    n: 2', '  pkg-c:', '    n: 1'), {})).then(() => {
      applied = true
    })
    await modules.gateReached('pkg-b')
    await drainMicrotasks()
    // The old instance's disposal is still pending: the new one must wait for it.
    expect(modules.of('pkg-b')).toHaveLength(1)
    expect(applied).toBe(false)

    gate.resolve()
    await applying
    await fibersSettled(root)
    expect(modules.events).toEqual(['apply pkg-a#1', 'apply pkg-b#1', 'apply pkg-c#1', 'dispose pkg-b#1', 'disposed pkg-b#1', 'apply pkg-b#2'])
    expect(modules.of('pkg-b')[1]!.config).toEqual({ n: 2 })
    expect(modules.live()).toEqual(['pkg-a#1', 'pkg-c#1', 'pkg-b#2'])
  })

  it('re-plugs an entry whose nested config changed, and not one whose config is deeply equal', async () => {
    await deploy(yaml('  pkg-a:', '    deep: { list: [1, { x: 1 }] }', '  pkg-b:', '    deep: { list: [1, { x: 1 }] }'))
    await deploy(yaml('  pkg-a:', '    deep: { list: [1, { x: 2 }] }', '  pkg-b:', '    deep: { list: [1, { x: 1 }] }'))
    expect(modules.of('pkg-a').map((instance) => instance.config)).toEqual([{ deep: { list: [1, { x: 1 }] } }, { deep: { list: [1, { x: 2 }] } }])
    expect(modules.of('pkg-b')).toHaveLength(1)
    expect(modules.live()).toEqual(['pkg-b#1', 'pkg-a#2'])
  })

  it('disposes an entry removed from the file and leaves the others running', async () => {
    await deploy(yaml('  pkg-a: {}', '  pkg-b: {}', '  pkg-c: {}'))
    await deploy(yaml('  pkg-a: {}', '  pkg-c: {}'))
    expect(modules.events).toEqual(['apply pkg-a#1', 'apply pkg-b#1', 'apply pkg-c#1', 'dispose pkg-b#1'])
    expect(modules.live()).toEqual(['pkg-a#1', 'pkg-c#1'])
  })

  it('disposes an entry that becomes disabled, and plugs it again once it is enabled', async () => {
    await deploy(yaml('  pkg-a: {}', '  pkg-b:', '    n: 1'))
    await deploy(yaml('  pkg-a: {}', '  ~pkg-b:', '    n: 1'))
    expect(modules.live()).toEqual(['pkg-a#1'])
    expect(modules.events).toContain('dispose pkg-b#1')
    await deploy(yaml('  pkg-a: {}', '  pkg-b:', '    n: 1'))
    expect(modules.live()).toEqual(['pkg-a#1', 'pkg-b#2'])
  })

  it('plugs an entry added to the file without touching the running ones', async () => {
    await deploy(yaml('  pkg-a: {}'))
    await deploy(yaml('  pkg-a: {}', '  pkg-b:', '    n: 1'))
    expect(modules.events).toEqual(['apply pkg-a#1', 'apply pkg-b#1'])
    expect(modules.of('pkg-b')[0]!.config).toEqual({ n: 1 })
  })

  it('disposes the changed entries last first before plugging any replacement', async () => {
    await deploy(yaml('  pkg-a:', '    n: 1', '  pkg-b: {}', '  pkg-c:', '    n: 1'))
    await deploy(yaml('  pkg-a:', '    n: 2', '  pkg-b: {}', '  pkg-c:', '    n: 2'))
    expect(modules.events.slice(3)).toEqual(['dispose pkg-c#1', 'dispose pkg-a#1', 'apply pkg-a#2', 'apply pkg-c#2'])
  })
})

/**
 * A config schema that converts what it is given, as dsh-remote's does: a port
 * written as a string becomes a number, and missing fields get defaults.
 * Schemastery writes converted values back into the object it validates.
 */
const ConvertingConfig = Schema.object({
  port: Schema.union([Schema.natural(), Schema.transform(Schema.string().pattern(/^\d+$/), (text) => Number(text))]),
  host: Schema.string().default('localhost'),
})

describe('DeploymentLoader: a plugin whose Config converts its values', () => {
  /** Plugs `converting` (the plugin below) for the specifier `converting`, the fake modules for the rest. */
  let configs: unknown[]
  let local: DeploymentLoader

  beforeEach(() => {
    configs = []
    let applications = 0
    const converting = {
      name: 'converting',
      Config: ConvertingConfig,
      apply(ctx: Context, config: { port: number; host: string; touched?: boolean }) {
        const id = `converting#${++applications}`
        configs.push(structuredClone(config))
        // A plugin may also change the object it was handed; that is no edit of the file either.
        config.touched = true
        modules.events.push(`apply ${id}`)
        ctx.effect(() => () => {
          modules.events.push(`dispose ${id}`)
        })
      },
    } as unknown as Plugin
    const load = (specifier: string, baseDir: string) => (specifier === 'converting' ? Promise.resolve(converting) : modules.load(specifier, baseDir))
    local = new DeploymentLoader(root, { baseDir: BASE, load })
  })

  afterEach(async () => {
    await local.dispose()
  })

  const file = (port: string, n: number, comment = '') => yaml('  converting:', `    port: "${port}"${comment}`, '  pkg-a:', `    n: ${n}`)

  async function deployLocal(text: string): Promise<void> {
    await local.apply(planDeployment(text, {}))
    await fibersSettled(root)
  }

  it('converts in place, which is what made every reload look like an edit', () => {
    const given = { port: '5140' }
    ConvertingConfig(given)
    expect(given).toEqual({ port: 5140 })
  })

  it('hands the plugin the converted config and keeps the caller’s entries as the file said them', async () => {
    const entries = planDeployment(file('5140', 1), {})
    await local.apply(entries)
    await fibersSettled(root)
    expect(configs).toEqual([{ port: 5140, host: 'localhost' }])
    expect(entries[0]).toMatchObject({ key: 'converting', config: { port: '5140' } })
  })

  it('does not re-plug it when the file is read again unchanged, or only a comment changed', async () => {
    await deployLocal(file('5140', 1))
    await deployLocal(file('5140', 1))
    await deployLocal(`# the deployment\n${file('5140', 1, '   # the port')}`)
    expect(modules.events).toEqual(['apply converting#1', 'apply pkg-a#1'])
  })

  it('does not re-plug it when another entry changes, and re-plugs exactly that entry', async () => {
    await deployLocal(file('5140', 1))
    await deployLocal(file('5140', 2))
    expect(modules.events).toEqual(['apply converting#1', 'apply pkg-a#1', 'dispose pkg-a#1', 'apply pkg-a#2'])
  })

  it('re-plugs exactly it when its own entry changes, with the new value converted', async () => {
    await deployLocal(file('5140', 1))
    await deployLocal(file('5141', 1))
    expect(modules.events).toEqual(['apply converting#1', 'apply pkg-a#1', 'dispose converting#1', 'apply converting#2'])
    expect(configs).toEqual([
      { port: 5140, host: 'localhost' },
      { port: 5141, host: 'localhost' },
    ])
    // And it stays put once the edit has been applied.
    await deployLocal(file('5141', 1))
    expect(modules.events).toHaveLength(4)
  })

  it('does not re-plug it inside a scope group either', async () => {
    const grouped = (n: number) => yaml('  scope:preset/coder:', '    converting:', '      port: "5140"', '    pkg-a:', `      n: ${n}`)
    await deployLocal(grouped(1))
    await deployLocal(grouped(2))
    expect(modules.events).toEqual(['apply converting#1', 'apply pkg-a#1', 'dispose pkg-a#1', 'apply pkg-a#2'])
  })
})

describe('DeploymentLoader: scope groups', () => {
  const grouped = (bConfig: string) => yaml('  pkg-a: {}', '  scope:preset/coder:', '    pkg-b:', `      n: ${bConfig}`, '    pkg-c: {}', '  pkg-d: {}')

  it('mounts a group’s entries inside its named scope, in order', async () => {
    await deploy(grouped('1'))
    expect(modules.instances.map(({ id, scope }) => [id, scope])).toEqual([
      ['pkg-a#1', undefined],
      ['pkg-b#1', 'preset/coder'],
      ['pkg-c#1', 'preset/coder'],
      ['pkg-d#1', undefined],
    ])
  })

  it('mounts a nested group inside the inner scope', async () => {
    await deploy(yaml('  scope:preset/coder:', '    pkg-a: {}', '    scope:agent/helper:', '      pkg-b: {}'))
    expect(modules.instances.map(({ id, scope }) => [id, scope])).toEqual([
      ['pkg-a#1', 'preset/coder'],
      ['pkg-b#1', 'agent/helper'],
    ])
  })

  it('plugs the same plugin globally and inside a group as separate instances', async () => {
    await deploy(yaml('  pkg-a:', '    where: global', '  scope:preset/coder:', '    pkg-a:', '      where: coder'))
    expect(modules.of('pkg-a').map(({ config, scope }) => [config, scope])).toEqual([
      [{ where: 'global' }, undefined],
      [{ where: 'coder' }, 'preset/coder'],
    ])
  })

  it('re-plugs only the changed entry inside a group, still inside the scope', async () => {
    await deploy(grouped('1'))
    await deploy(grouped('2'))
    expect(modules.events.slice(4)).toEqual(['dispose pkg-b#1', 'apply pkg-b#2'])
    expect(modules.of('pkg-b')[1]).toMatchObject({ config: { n: 2 }, scope: 'preset/coder' })
    expect(modules.live()).toEqual(['pkg-a#1', 'pkg-c#1', 'pkg-d#1', 'pkg-b#2'])
  })

  it('awaits the disposal of a changed entry inside a group before plugging its replacement', async () => {
    await deploy(grouped('1'))
    const gate = deferred()
    modules.gates.set('pkg-b', gate.promise)
    const applying = loader.apply(planDeployment(grouped('2'), {}))
    await modules.gateReached('pkg-b')
    await drainMicrotasks()
    expect(modules.of('pkg-b')).toHaveLength(1)
    gate.resolve()
    await applying
    await fibersSettled(root)
    expect(modules.events.slice(4)).toEqual(['dispose pkg-b#1', 'disposed pkg-b#1', 'apply pkg-b#2'])
  })

  it('adds and removes entries inside a running group', async () => {
    await deploy(yaml('  scope:preset/coder:', '    pkg-a: {}', '    pkg-b: {}'))
    await deploy(yaml('  scope:preset/coder:', '    pkg-b: {}', '    pkg-c: {}'))
    expect(modules.live()).toEqual(['pkg-b#1', 'pkg-c#1'])
    expect(modules.of('pkg-c')[0]!.scope).toBe('preset/coder')
  })

  it('disposes everything in a group when the group is removed, leaving the rest running', async () => {
    await deploy(grouped('1'))
    await deploy(yaml('  pkg-a: {}', '  pkg-d: {}'))
    expect(modules.events.slice(4).sort()).toEqual(['dispose pkg-b#1', 'dispose pkg-c#1'])
    expect(modules.live()).toEqual(['pkg-a#1', 'pkg-d#1'])
  })

  it('disposes everything in a group when the group is disabled', async () => {
    await deploy(grouped('1'))
    await deploy(yaml('  pkg-a: {}', '  ~scope:preset/coder:', '    pkg-b: {}', '  pkg-d: {}'))
    expect(modules.live()).toEqual(['pkg-a#1', 'pkg-d#1'])
  })

  it('moves entries to a new scope when the group is renamed', async () => {
    await deploy(yaml('  scope:preset/coder:', '    pkg-a: {}'))
    await deploy(yaml('  scope:preset/writer:', '    pkg-a: {}'))
    expect(modules.of('pkg-a').map(({ scope }) => scope)).toEqual(['preset/coder', 'preset/writer'])
    expect(modules.live()).toEqual(['pkg-a#2'])
  })
})

describe('DeploymentLoader: failures', () => {
  it('logs a plugin that fails to load, plugs the others, and retries it on the next apply', async () => {
    modules.broken.add('pkg-missing')
    const text = yaml('  pkg-a: {}', '  pkg-missing:', '    n: 1', '  pkg-c: {}')
    await deploy(text)
    expect(modules.live()).toEqual(['pkg-a#1', 'pkg-c#1'])
    const errors = logs.filter((line) => line.startsWith('[error]'))
    expect(errors).toHaveLength(1)
    expect(errors[0]).toMatch(/^\[error\] loader plugin pkg-missing could not be loaded/)

    modules.broken.delete('pkg-missing')
    await deploy(text)
    expect(modules.live()).toEqual(['pkg-a#1', 'pkg-c#1', 'pkg-missing#1'])
    expect(modules.of('pkg-missing')[0]!.config).toEqual({ n: 1 })
    expect(modules.of('pkg-a')).toHaveLength(1)
  })

  it('logs the reason a plugin could not be loaded', async () => {
    modules.broken.add('pkg-missing')
    await deploy(yaml('  pkg-missing: {}'))
    const error = logs.find((line) => line.startsWith('[error]'))
    expect(error).toContain("Cannot find module 'pkg-missing'")
  })

  it('keeps retrying a plugin that still fails to load, logging each attempt', async () => {
    modules.broken.add('pkg-missing')
    const text = yaml('  pkg-missing: {}')
    await deploy(text)
    await deploy(text)
    expect(logs.filter((line) => line.startsWith('[error]') && line.includes('pkg-missing'))).toHaveLength(2)
    expect(modules.loads.filter((load) => load.startsWith('pkg-missing'))).toHaveLength(2)
  })

  it('logs a plugin whose apply throws and keeps plugging the rest', async () => {
    const failing: Plugin = {
      name: 'failing',
      apply() {
        throw new Error('apply went wrong')
      },
    }
    const load = (specifier: string, baseDir: string) => (specifier === 'pkg-fail' ? Promise.resolve(failing) : modules.load(specifier, baseDir))
    const local = new DeploymentLoader(root, { baseDir: BASE, load })
    await local.apply(planDeployment(yaml('  pkg-fail: {}', '  pkg-a: {}'), {}))
    await fibersSettled(root)
    await logged((line) => line.startsWith('[error]') && line.includes('apply went wrong'))
    expect(modules.live()).toEqual(['pkg-a#1'])
    await local.dispose()
  })
})

describe('DeploymentLoader: dispose', () => {
  it('disposes every entry, last plugged first, groups included', async () => {
    await deploy(yaml('  pkg-a: {}', '  pkg-b: {}', '  scope:preset/coder:', '    pkg-c: {}', '  pkg-d: {}'))
    await loader.dispose()
    expect(modules.events.slice(4)).toEqual(['dispose pkg-d#1', 'dispose pkg-c#1', 'dispose pkg-b#1', 'dispose pkg-a#1'])
    expect(modules.live()).toEqual([])
  })

  it('awaits each disposal before disposing the entry before it', async () => {
    await deploy(yaml('  pkg-a: {}', '  pkg-b: {}'))
    const gate = deferred()
    modules.gates.set('pkg-b', gate.promise)
    let done = false
    const disposing = loader.dispose().then(() => {
      done = true
    })
    await modules.gateReached('pkg-b')
    await drainMicrotasks()
    expect(modules.events).not.toContain('dispose pkg-a#1')
    expect(done).toBe(false)
    gate.resolve()
    await disposing
    expect(modules.events.slice(2)).toEqual(['dispose pkg-b#1', 'disposed pkg-b#1', 'dispose pkg-a#1'])
  })

  it('can be applied again after dispose', async () => {
    const text = yaml('  pkg-a: {}')
    await deploy(text)
    await loader.dispose()
    await deploy(text)
    expect(modules.live()).toEqual(['pkg-a#2'])
  })
})
