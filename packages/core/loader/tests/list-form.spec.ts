/**
 * cordis 4's own `cordis.yml`: a list of loader entries `{ id, name, config,
 * disabled, group }` as the `cordis` command writes it. Planned like the map
 * form (file order, `${VAR:-fallback}`), with ids as identities, disabled
 * entries and groups left out, group children in place, and every key or
 * expression dsh-loader cannot honor refused by name.
 */
import { describe, expect, it } from 'vitest'
import { DeploymentError, planDeployment, type Entry } from '../src/plan.ts'

/** A list-form file as cordis's loader writes it: ids, a disabled entry, a group with a disabled child. */
const CORDIS_WRITTEN = `
- id: q1w2e3
  name: dsh-settings-file
  config:
    home: \${DSH_HOME:-.dsh}
- id: r4t5y6
  name: dsh-remote
  config:
    port: \${DSH_PORT:-5140}
- id: u7i8o9
  name: dsh-settings-controller
- id: grp001
  name: cordis/group
  group: true
  config:
    - id: a1
      name: dsh-example-web-search
      config:
        engine: bing
    - id: a2
      name: dsh-example-assistant
      disabled: true
- id: off001
  name: cordis/group
  group: true
  disabled: true
  config:
    - id: b1
      name: dsh-example-assistant
- id: p9
  name: ./local.mjs
  disabled: false
`

function failure(run: () => unknown): DeploymentError {
  try {
    run()
  } catch (error) {
    return error as DeploymentError
  }
  throw new Error('expected a failure')
}

describe('planDeployment: cordis 4 list form', () => {
  it('plans the entries as cordis writes them: ids as keys, interpolated configs, disabled entries and groups left out', () => {
    const entries = planDeployment(CORDIS_WRITTEN, { DSH_PORT: '6000' })
    expect(entries).toEqual<Entry[]>([
      { kind: 'plugin', key: 'q1w2e3', specifier: 'dsh-settings-file', config: { home: '.dsh' } },
      { kind: 'plugin', key: 'r4t5y6', specifier: 'dsh-remote', config: { port: '6000' } },
      { kind: 'plugin', key: 'u7i8o9', specifier: 'dsh-settings-controller', config: {} },
      { kind: 'plugin', key: 'grp001/a1', specifier: 'dsh-example-web-search', config: { engine: 'bing' } },
      { kind: 'plugin', key: 'p9', specifier: './local.mjs', config: {} },
    ])
  })

  it('mounts a group with scope: <kind>/<id> inside that named scope', () => {
    const entries = planDeployment('- id: g\n  name: cordis/group\n  group: true\n  scope: preset/coder\n  config:\n    - id: s\n      name: dsh-example-web-search\n', {})
    expect(entries).toEqual<Entry[]>([{ kind: 'scope', key: 'g', name: 'preset/coder', entries: [{ kind: 'plugin', key: 'g/s', specifier: 'dsh-example-web-search', config: {} }] }])
  })

  it('refuses, naming the entry, what it cannot run as written', () => {
    const cases: [string, RegExp][] = [
      ['- plain string\n', /cordis\.yml\[0\]: an entry must be a map/],
      ['- id: a\n  name: x\n  intercept:\n    foo: 1\n', /"intercept" is a cordis loader feature dsh-loader does not run/],
      ['- id: a\n  name: x\n  isolate: {}\n', /"isolate"/],
      ['- id: a\n  name: x\n- id: a\n  name: y\n', /cordis\.yml\[1\] \(id "a"\): the id is used twice/],
      ['- id: a\n', /\(id "a"\): an entry needs a name/],
      ['- config: {}\n', /an entry needs an id/],
      ['- id: g\n  group: true\n  config: {}\n', /a group's config must be the list of its entries/],
      ['- id: a\n  name: x\n  disabled: sometimes\n', /disabled must be true, false or null/],
      ['- id: a\n  name: x\n  scope: preset/coder\n', /only a group \(group: true\) takes a scope/],
      ['- id: g\n  group: true\n  scope: nope\n  config: []\n', /scope must be a valid scope id/],
      ['- id: a\n  name: x\n  config:\n    token: ${{ env.TOKEN }}\n', /config\.token holds a cordis \$\{\{ … \}\} expression/],
      ['- id: a\n  name: x\n  config:\n    token: ${UNSET_FOR_TEST}\n', /\(id "a"\): environment variable UNSET_FOR_TEST is not set/],
      ['- id: g\n  group: true\n  config:\n    - id: inner\n      name: x\n      inject: [a]\n', /grp|cordis\.yml\[0\] \(id "g"\)\.config\[0\]: "inject"/],
    ]
    for (const [text, message] of cases) {
      const error = failure(() => planDeployment(text, {}))
      expect(error).toBeInstanceOf(DeploymentError)
      expect({ text, message: error.message }).toEqual({ text, message: expect.stringMatching(message) })
    }
  })

  it('still reads the map form, and refuses a file that is neither', () => {
    expect(planDeployment('plugins:\n  a: {}\n', {})).toEqual([{ kind: 'plugin', key: 'a', specifier: 'a', config: {} }])
    expect(failure(() => planDeployment('just text', {})).message).toContain('a list of cordis loader entries')
  })
})
