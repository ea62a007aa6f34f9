import { describe, expect, it } from 'vitest'
import { DeploymentError, planDeployment, planEntries, type Entry } from '../src/plan.ts'

/** The keys of a plan, nested groups as `[key, [...children]]`. */
function keys(entries: Entry[]): unknown[] {
  return entries.map((entry) => (entry.kind === 'scope' ? [entry.key, keys(entry.entries)] : entry.key))
}

/** The error `run` throws (fails the test when it throws nothing). */
function failure(run: () => unknown): Error {
  try {
    run()
  } catch (error) {
    return error as Error
  }
  throw new Error('expected a failure')
}

describe('planDeployment: layout', () => {
  it('keeps the entries in file order with their specifiers and configs', () => {
    const entries = planDeployment(
      ['plugins:', '  dsh-settings-file:', '    home: /srv/dsh', '  ./local/plugin.mjs:', '    a: 1', '  dsh-example-assistant:', '    model: small', ''].join('\n'),
      {},
    )
    expect(entries).toEqual([
      { kind: 'plugin', key: 'dsh-settings-file', specifier: 'dsh-settings-file', config: { home: '/srv/dsh' } },
      { kind: 'plugin', key: './local/plugin.mjs', specifier: './local/plugin.mjs', config: { a: 1 } },
      { kind: 'plugin', key: 'dsh-example-assistant', specifier: 'dsh-example-assistant', config: { model: 'small' } },
    ])
  })

  it('keeps file order even when keys would sort differently', () => {
    const entries = planDeployment('plugins:\n  zeta: {}\n  alpha: {}\n  scope:preset/b: {}\n  mid: {}\n', {})
    expect(keys(entries)).toEqual(['zeta', 'alpha', ['scope:preset/b', []], 'mid'])
  })

  it('gives an entry without a value an empty config', () => {
    expect(planDeployment('plugins:\n  dsh-example-assistant:\n', {})).toEqual([
      { kind: 'plugin', key: 'dsh-example-assistant', specifier: 'dsh-example-assistant', config: {} },
    ])
  })

  it('splits a :label off the specifier so one plugin can be plugged twice', () => {
    const entries = planDeployment(
      ['plugins:', '  dsh-example-web-search:', '    engine: bing', '  dsh-example-web-search:second:', '    engine: google', '  ./probe.mjs:a-2:', '    x: 1', ''].join('\n'),
      {},
    )
    expect(entries).toEqual([
      { kind: 'plugin', key: 'dsh-example-web-search', specifier: 'dsh-example-web-search', config: { engine: 'bing' } },
      { kind: 'plugin', key: 'dsh-example-web-search:second', specifier: 'dsh-example-web-search', label: 'second', config: { engine: 'google' } },
      { kind: 'plugin', key: './probe.mjs:a-2', specifier: './probe.mjs', label: 'a-2', config: { x: 1 } },
    ])
  })

  it('keeps a colon that is not followed by a label as part of the specifier', () => {
    const [entry] = planDeployment('plugins:\n  "node:Upper_Case": {}\n', {})
    expect(entry).toEqual({ kind: 'plugin', key: 'node:Upper_Case', specifier: 'node:Upper_Case', config: {} })
  })

  it('leaves out entries disabled with ~, plugins and scope groups alike', () => {
    const entries = planDeployment(
      [
        'plugins:',
        '  dsh-settings-file: {}',
        '  ~dsh-example-web-search:',
        '    engine: bing',
        '  ~scope:preset/off:',
        '    dsh-example-assistant: {}',
        '  scope:preset/coder:',
        '    ~dsh-example-assistant: {}',
        '    dsh-example-web-search: {}',
        '  dsh-example-assistant: {}',
        '',
      ].join('\n'),
      {},
    )
    expect(keys(entries)).toEqual(['dsh-settings-file', ['scope:preset/coder', ['dsh-example-web-search']], 'dsh-example-assistant'])
  })

  it('does not interpolate a disabled entry, so its unset variables are no error', () => {
    expect(planDeployment('plugins:\n  ~dsh-x:\n    token: ${NOT_SET_ANYWHERE}\n', {})).toEqual([])
  })

  it('reads scope:<id> as a named scope group holding its own entries', () => {
    const entries = planDeployment(
      [
        'plugins:',
        '  dsh-example-web-search:',
        '    engine: bing',
        '  scope:preset/coder:',
        '    dsh-example-web-search:',
        '      engine: duckduckgo',
        '    dsh-example-assistant:extra:',
        '      model: large',
        '    scope:agent/helper:',
        '      dsh-example-assistant: {}',
        '  dsh-example-assistant: {}',
        '',
      ].join('\n'),
      {},
    )
    expect(entries).toEqual([
      { kind: 'plugin', key: 'dsh-example-web-search', specifier: 'dsh-example-web-search', config: { engine: 'bing' } },
      {
        kind: 'scope',
        key: 'scope:preset/coder',
        name: 'preset/coder',
        entries: [
          { kind: 'plugin', key: 'dsh-example-web-search', specifier: 'dsh-example-web-search', config: { engine: 'duckduckgo' } },
          { kind: 'plugin', key: 'dsh-example-assistant:extra', specifier: 'dsh-example-assistant', label: 'extra', config: { model: 'large' } },
          {
            kind: 'scope',
            key: 'scope:agent/helper',
            name: 'agent/helper',
            entries: [{ kind: 'plugin', key: 'dsh-example-assistant', specifier: 'dsh-example-assistant', config: {} }],
          },
        ],
      },
      { kind: 'plugin', key: 'dsh-example-assistant', specifier: 'dsh-example-assistant', config: {} },
    ])
  })

  it('reads an empty scope group as a group with no entries', () => {
    expect(planDeployment('plugins:\n  scope:preset/empty:\n', {})).toEqual([{ kind: 'scope', key: 'scope:preset/empty', name: 'preset/empty', entries: [] }])
  })

  it.each(['scope:coder', 'scope:Preset/Coder', 'scope:preset/', 'scope:', 'scope:preset/coder/extra', 'scope:-x/y'])('refuses %s, which does not name a valid scope id', (key) => {
    const error = failure(() => planDeployment(`plugins:\n  "${key}":\n    dsh-example-assistant: {}\n`, {}))
    expect(error).toBeInstanceOf(DeploymentError)
    expect((error as DeploymentError).code).toBe('DEPLOYMENT_INVALID')
    expect(error.message).toContain(`"${key}"`)
    expect(error.message).toMatch(/valid scope id/)
  })

  it('refuses an invalid scope id nested in a group and names where it is', () => {
    const error = failure(() => planDeployment('plugins:\n  scope:preset/coder:\n    scope:bad:\n      x: {}\n', {}))
    expect(error).toBeInstanceOf(DeploymentError)
    expect(error.message).toContain('plugins.scope:preset/coder')
    expect(error.message).toContain('"scope:bad"')
  })

  it('refuses a scope group whose value is not a map', () => {
    const error = failure(() => planDeployment('plugins:\n  scope:preset/coder:\n    - dsh-example-assistant\n', {}))
    expect(error).toBeInstanceOf(DeploymentError)
    expect(error.message).toMatch(/plugins\.scope:preset\/coder must be a map/)
  })
})

describe('planDeployment: interpolation', () => {
  it('replaces ${VAR} and ${VAR:-default} in config strings from the env it is given', () => {
    const entries = planDeployment(
      [
        'plugins:',
        '  dsh-settings-file:',
        '    home: ${DSH_HOME:-.dsh}',
        '    path: ${DOC_DIR}/settings.yaml',
        '  scope:preset/coder:',
        '    dsh-example-web-search:',
        '      engine: ${ENGINE:-bing}',
        '      mirrors:',
        '        - url: https://${HOST}/search',
        '',
      ].join('\n'),
      { DOC_DIR: '/srv/docs', HOST: 'example.org', ENGINE: 'google' },
    )
    expect(entries).toEqual([
      { kind: 'plugin', key: 'dsh-settings-file', specifier: 'dsh-settings-file', config: { home: '.dsh', path: '/srv/docs/settings.yaml' } },
      {
        kind: 'scope',
        key: 'scope:preset/coder',
        name: 'preset/coder',
        entries: [
          {
            kind: 'plugin',
            key: 'dsh-example-web-search',
            specifier: 'dsh-example-web-search',
            config: { engine: 'google', mirrors: [{ url: 'https://example.org/search' }] },
          },
        ],
      },
    ])
  })

  it('reads the variables from the given env, not from process.env', () => {
    const name = 'DSH_LOADER_PLAN_SPEC_ONLY_IN_PROCESS'
    process.env[name] = 'from-process'
    try {
      expect(planDeployment(`plugins:\n  x:\n    v: \${${name}:-fallback}\n`, {})).toEqual([{ kind: 'plugin', key: 'x', specifier: 'x', config: { v: 'fallback' } }])
      expect(planDeployment(`plugins:\n  x:\n    v: \${${name}:-fallback}\n`, { [name]: 'given' })[0]).toMatchObject({ config: { v: 'given' } })
    } finally {
      delete process.env[name]
    }
  })

  it('reads process.env when no env is given', () => {
    const name = 'DSH_LOADER_PLAN_SPEC_DEFAULT_ENV'
    process.env[name] = 'from-process'
    try {
      expect(planDeployment(`plugins:\n  x:\n    v: \${${name}}\n`)[0]).toMatchObject({ config: { v: 'from-process' } })
    } finally {
      delete process.env[name]
    }
  })

  it('leaves keys, numbers and booleans as they are', () => {
    const [entry] = planDeployment('plugins:\n  x:\n    ${KEY}: ${VALUE}\n    limit: 10\n    on: true\n    none: null\n', { KEY: 'k', VALUE: 'v' })
    expect(entry).toMatchObject({ config: { '${KEY}': 'v', limit: 10, on: true, none: null } })
  })

  it('reads $${ as a literal ${', () => {
    const [entry] = planDeployment('plugins:\n  x:\n    template: "$${NAME} is ${NAME}"\n', { NAME: 'dsh' })
    expect(entry).toMatchObject({ config: { template: '${NAME} is dsh' } })
  })

  it('refuses an unset variable without a fallback, naming the variable and the entry', () => {
    const error = failure(() => planDeployment('plugins:\n  dsh-settings-file:\n    home: ${DSH_MISSING_HOME}\n', {}))
    expect(error).toBeInstanceOf(DeploymentError)
    expect((error as DeploymentError).code).toBe('DEPLOYMENT_INVALID')
    expect(error.message).toContain('DSH_MISSING_HOME')
    expect(error.message).toContain('plugins.dsh-settings-file')
    expect(error.message).toMatch(/not set/)
  })

  it('names the scope group of an entry whose variable is unset', () => {
    const error = failure(() => planDeployment('plugins:\n  scope:preset/coder:\n    dsh-example-web-search:\n      engine: ${ENGINE}\n', {}))
    expect(error.message).toContain('plugins.scope:preset/coder.dsh-example-web-search')
    expect(error.message).toContain('ENGINE')
  })
})

describe('planDeployment: malformed files', () => {
  it('reports the position of unparsable YAML', () => {
    const error = failure(() => planDeployment('plugins:\n  dsh-example-web-search:\n    engine: [bing\n    limit: 3\n', {}))
    expect(error).toBeInstanceOf(DeploymentError)
    expect(error.message).toMatch(/not valid YAML at line \d+, column \d+/)
  })

  it('reports the line of a bad indentation', () => {
    const error = failure(() => planDeployment('plugins:\n  a: 1\n b: 2\n', {}))
    expect(error).toBeInstanceOf(DeploymentError)
    expect(error.message).toMatch(/at line 3, column \d+/)
  })

  it('refuses a duplicate key with its position', () => {
    const error = failure(() => planDeployment('plugins:\n  a: {}\n  a: {}\n', {}))
    expect(error).toBeInstanceOf(DeploymentError)
    expect(error.message).toMatch(/line 3, column \d+/)
  })

  it.each([
    ['a list', 'plugins:\n  - dsh-settings-file\n  - dsh-example-assistant\n'],
    ['a string', 'plugins: dsh-settings-file\n'],
    ['a number', 'plugins: 3\n'],
  ])('refuses plugins that is %s', (_, text) => {
    const error = failure(() => planDeployment(text, {}))
    expect(error).toBeInstanceOf(DeploymentError)
    expect(error.message).toMatch(/plugins must be a map/)
  })

  it.each([
    // A list is cordis's own form (list-form.spec.ts): a list of strings is not one.
    ['a list of strings', '- a\n- b\n', /cordis\.yml\[0\]: an entry must be a map with id and name/],
    ['a string', 'just text\n', /must be a map with a plugins key, or a list of cordis loader entries/],
  ])('refuses a file whose root is %s', (_, text, message) => {
    const error = failure(() => planDeployment(text, {}))
    expect(error).toBeInstanceOf(DeploymentError)
    expect(error.message).toMatch(message)
  })

  it.each([
    ['an empty file', ''],
    ['a file of comments', '# nothing here yet\n'],
    ['a file without plugins', 'other: 1\n'],
    ['an empty plugins key', 'plugins:\n'],
    ['an empty plugins map', 'plugins: {}\n'],
    ['plugins that are all disabled', 'plugins:\n  ~a: {}\n  ~scope:preset/x: {}\n'],
  ])('plans nothing for %s', (_, text) => {
    expect(planDeployment(text, {})).toEqual([])
  })
})

describe('planEntries', () => {
  it('plans a plugins-style map directly, in order', () => {
    expect(planEntries({ b: { x: '${X:-1}' }, a: null, 'scope:preset/p': { c: {} } }, {})).toEqual([
      { kind: 'plugin', key: 'b', specifier: 'b', config: { x: '1' } },
      { kind: 'plugin', key: 'a', specifier: 'a', config: {} },
      { kind: 'scope', key: 'scope:preset/p', name: 'preset/p', entries: [{ kind: 'plugin', key: 'c', specifier: 'c', config: {} }] },
    ])
  })

  it.each([null, undefined])('plans nothing for %s', (map) => {
    expect(planEntries(map, {})).toEqual([])
  })

  it.each([[['a']], ['a'], [7], [true]])('refuses %j, which is not a map', (map) => {
    expect(() => planEntries(map, {})).toThrow(DeploymentError)
  })

  it('names the location it is given in its errors', () => {
    expect(() => planEntries([], {}, 'somewhere')).toThrow(/^somewhere must be a map/)
    expect(() => planEntries({ a: '${UNSET_X}' }, {}, 'somewhere')).toThrow(/somewhere\.a: .*UNSET_X/)
  })

  it('refuses an entry with an empty key, which names no module', () => {
    expect(() => planDeployment('plugins:\n  "": {}\n', {})).toThrow(/an entry needs a module specifier/)
  })
})
