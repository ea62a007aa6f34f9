import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parseSettings } from '../src/codec/parse.ts'
import { renderYaml, type Rendered } from '../src/codec/serialize.ts'

// Byte-stable YAML edits, checked against hand-written documents in ./fixtures.
// Every expected text is the original with exactly the intended lines changed
// (`swap` replaces one unique stretch of the original), compared byte for byte.

type Doc = Record<string, any>

function fixture(name: string): string {
  return readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8')
}

function reparse(text: string): Record<string, unknown> {
  return parseSettings(text, 'yaml', 'settings.yaml').data
}

interface Edited {
  original: string
  next: Doc
  result: Rendered
}

/**
 * Render `change` applied to a plain copy of `text`'s data. The copy goes through
 * JSON, not structuredClone: yaml's toJS shares one object between an anchor and
 * its aliases, and a shared copy would edit every user of the anchor at once.
 */
function editText(text: string, change: (next: Doc) => void): Edited {
  const parsed = parseSettings(text, 'yaml', 'settings.yaml')
  const next = JSON.parse(JSON.stringify(parsed.data)) as Doc
  change(next)
  return { original: text, next, result: renderYaml(text, parsed, next) }
}

function edit(name: string, change: (next: Doc) => void): Edited {
  return editText(fixture(name), change)
}

/** `text` with its single occurrence of `from` replaced by `to`. */
function swap(text: string, from: string, to: string): string {
  const at = text.indexOf(from)
  if (at === -1 || text.indexOf(from, at + 1) !== -1) throw new Error(`expected exactly one occurrence of ${JSON.stringify(from)}`)
  return text.slice(0, at) + to + text.slice(at + from.length)
}

/** The edit leaves exactly `expected`, in place (not a fresh render), holding exactly `next`. */
function expectExact({ next, result }: Edited, expected: string): void {
  expect(result.text).toBe(expected)
  expect(result.preserved).toBe(true)
  expect(reparse(result.text)).toStrictEqual(next)
}

/** For edits with more than one sensible rendering: in place, holding `next`, and every listed original stretch kept verbatim. */
function expectInPlaceKeeping({ next, result }: Edited, kept: string[]): void {
  for (const stretch of kept) expect(result.text).toContain(stretch)
  expect(result.preserved).toBe(true)
  expect(reparse(result.text)).toStrictEqual(next)
}

/** For edits with more than one sensible rendering of one value: every byte before `before` and after `after` stays. */
function expectOnlyBetween({ original, next, result }: Edited, before: string, after: string): void {
  const head = original.slice(0, original.indexOf(before) + before.length)
  const tail = original.slice(original.indexOf(after))
  expect(result.text.slice(0, head.length)).toBe(head)
  expect(result.text.slice(-tail.length)).toBe(tail)
  expect(result.preserved).toBe(true)
  expect(reparse(result.text)).toStrictEqual(next)
}

describe('basic.yaml: 2-space indentation, comments, both quote styles, a long plain string', () => {
  const name = 'basic.yaml'
  const original = fixture(name)

  it('returns the text untouched when nothing changed', () => {
    const edited = edit(name, () => {})
    expect(edited.result.text).toBe(original)
    expect(edited.result.preserved).toBe(true)
  })

  it('changes a nested plain scalar and nothing else', () => {
    expectExact(
      edit(name, (next) => (next['web-search'].engine = 'duckduckgo')),
      swap(original, '  engine: bing\n', '  engine: duckduckgo\n'),
    )
  })

  it('keeps the inline comment of a changed value at its column', () => {
    expectExact(
      edit(name, (next) => (next['web-search']['max-results'] = 25)),
      swap(original, '  max-results: 10      # the UI caps this at 50\n', '  max-results: 25      # the UI caps this at 50\n'),
    )
  })

  it('keeps double quotes on a changed double-quoted string', () => {
    expectExact(
      edit(name, (next) => (next['web-search'].endpoint = 'https://other.example.com/q')),
      swap(original, '  endpoint: "https://search.example.com/v1/query?format=json"\n', '  endpoint: "https://other.example.com/q"\n'),
    )
  })

  it("keeps single quotes on a changed single-quoted string, doubling the apostrophe", () => {
    expectExact(
      edit(name, (next) => (next['web-search']['user-agent'] = "bob's agent")),
      swap(original, "  user-agent: 'dsh/1.0 (it''s me)'\n", "  user-agent: 'bob''s agent'\n"),
    )
  })

  it('writes a long replacement string on one line, never folding it at 80 columns', () => {
    const banner =
      'A replacement banner that is also far longer than eighty columns, because users paste whole sentences here and expect them kept whole'
    expect(banner.length).toBeGreaterThan(120)
    expectExact(
      edit(name, (next) => (next['web-search'].banner = banner)),
      swap(
        original,
        '  banner: This is a deliberately long plain string that a user pasted into their settings file without any quotes or folding at all, ever\n',
        `  banner: ${banner}\n`,
      ),
    )
  })

  it('writes a multi-line string over a double-quoted one as one escaped line', () => {
    expectExact(
      edit(name, (next) => (next.chat['system-prompt'] = 'Line one\nLine two')),
      swap(original, '  system-prompt: "You are a helpful assistant.\\nAnswer briefly."\n', '  system-prompt: "Line one\\nLine two"\n'),
    )
  })

  it('quotes a string that would otherwise read back as a boolean or a number', () => {
    expectExact(
      edit(name, (next) => {
        next['web-search'].engine = 'true'
        next['web-search']['max-results'] = '25'
      }),
      swap(
        swap(original, '  engine: bing\n', '  engine: "true"\n'),
        '  max-results: 10      #',
        '  max-results: "25"      #',
      ),
    )
  })

  it("adds a key to a nested map at that map's indentation, after its last value and before the blank line", () => {
    expectExact(edit(name, (next) => (next['web-search'].timeout = 5)), swap(original, '    - eu\n\nchat:\n', '    - eu\n  timeout: 5\n\nchat:\n'))
  })

  it('adds a new root section at the end of the document', () => {
    expectExact(edit(name, (next) => (next.logging = { level: 'debug' })), original + 'logging:\n  level: debug\n')
  })

  it('adds a key to a section inside a scope', () => {
    expectExact(
      edit(name, (next) => (next.scopes['preset/coder'].chat['max-tokens'] = 4096)),
      swap(original, '      temperature: 0\n', '      temperature: 0\n      max-tokens: 4096\n'),
    )
  })

  it('adds a whole new scope after the existing ones', () => {
    expectExact(
      edit(name, (next) => (next.scopes['preset/writer'] = { chat: { model: 'claude', temperature: 0.7 } })),
      original + '  preset/writer:\n    chat:\n      model: claude\n      temperature: 0.7\n',
    )
  })

  it('removes a key by deleting exactly its line', () => {
    expectExact(
      edit(name, (next) => delete next['web-search']['safe-search']),
      swap(original, '  engine: bing\n  safe-search: true\n', '  engine: bing\n'),
    )
  })

  it('removes a key whose line carries an inline comment', () => {
    expectExact(
      edit(name, (next) => delete next['web-search']['max-results']),
      swap(original, '  max-results: 10      # the UI caps this at 50\n', ''),
    )
  })

  it('grows a block list by one item line', () => {
    expectExact(edit(name, (next) => next['web-search'].regions.push('ap')), swap(original, '    - eu\n', '    - eu\n    - ap\n'))
  })

  it('shrinks a block list by deleting the dropped item line', () => {
    expectExact(edit(name, (next) => (next['web-search'].regions = ['us'])), swap(original, '    - us\n    - eu\n', '    - us\n'))
  })

  it('edits one element of a block list', () => {
    expectExact(edit(name, (next) => (next['web-search'].regions[1] = 'apac')), swap(original, '    - eu\n', '    - apac\n'))
  })

  it('empties a section to {} on its key line', () => {
    expectExact(
      edit(name, (next) => (next.chat = {})),
      swap(original, 'chat:\n  model: gpt-4o\n  temperature: 0.2\n  system-prompt: "You are a helpful assistant.\\nAnswer briefly."\n', 'chat: {}\n'),
    )
  })

  it('empties a section inside a scope to {}', () => {
    expectExact(
      edit(name, (next) => (next.scopes['preset/coder']['web-search'] = {})),
      swap(original, '    web-search:\n      engine: google\n', '    web-search: {}\n'),
    )
  })

  it('applies edits in several sections at once, each in place', () => {
    expectExact(
      edit(name, (next) => {
        next['web-search'].engine = 'kagi'
        delete next['web-search']['safe-search']
        next.chat.model = 'gpt-4.1'
        next.scopes['preset/coder']['web-search'].engine = 'bing'
      }),
      `# dsh settings: edited by hand, and by the settings UI.
# Keep secrets out of version control.

web-search:            # global section
  engine: kagi
  max-results: 10      # the UI caps this at 50

  # where queries go when the engine is "custom"
  endpoint: "https://search.example.com/v1/query?format=json"
  user-agent: 'dsh/1.0 (it''s me)'
  banner: This is a deliberately long plain string that a user pasted into their settings file without any quotes or folding at all, ever
  regions:
    - us
    - eu

chat:
  model: gpt-4.1
  temperature: 0.2
  system-prompt: "You are a helpful assistant.\\nAnswer briefly."

scopes:
  preset/coder:        # the sections this preset overrides
    web-search:
      engine: bing
    chat:
      model: o3
      temperature: 0
`,
    )
  })
})

describe('four-space.yaml: 4-space indentation', () => {
  const name = 'four-space.yaml'
  const original = fixture(name)

  it('changes a deeply nested scalar', () => {
    expectExact(edit(name, (next) => (next.editor.font.size = 14)), swap(original, '        size: 13\n', '        size: 14\n'))
  })

  it('keeps double quotes, escaping inner quotes', () => {
    expectExact(
      edit(name, (next) => (next.editor.font.family = 'Fira "Code"')),
      swap(original, '        family: "JetBrains Mono"\n', '        family: "Fira \\"Code\\""\n'),
    )
  })

  it('adds a key to a 4-space nested map at 8 spaces', () => {
    expectExact(edit(name, (next) => (next.editor.font.weight = 'bold')), swap(original, '        size: 13\n', '        size: 13\n        weight: bold\n'))
  })

  it('adds a nested map holding a list with 4-space steps all the way down', () => {
    expectExact(
      edit(name, (next) => (next.editor.keymap = { save: 'ctrl+s', chords: ['ctrl+k', 'ctrl+s'] })),
      swap(
        original,
        '    tab-width: 4\n',
        '    tab-width: 4\n    keymap:\n        save: ctrl+s\n        chords:\n            - ctrl+k\n            - ctrl+s\n',
      ),
    )
  })

  it('adds a new root section with 4-space indentation', () => {
    expectExact(
      edit(name, (next) => (next.git = { signing: { key: 'ABC123', enabled: true } })),
      original + 'git:\n    signing:\n        key: ABC123\n        enabled: true\n',
    )
  })

  it('adds a section to an existing scope with 4-space indentation', () => {
    expectExact(
      edit(name, (next) => (next.scopes['preset/coder'].terminal = { shell: '/bin/bash' })),
      original + '        terminal:\n            shell: /bin/bash\n',
    )
  })

  it('adds a new scope with 4-space indentation', () => {
    expectExact(
      edit(name, (next) => (next.scopes['workspace/notes'] = { editor: { theme: 'solarized' } })),
      original + '    workspace/notes:\n        editor:\n            theme: solarized\n',
    )
  })

  it('replaces a list with a shorter one', () => {
    expectExact(
      edit(name, (next) => (next.terminal.history = ['make'])),
      swap(original, '        - ls -la\n        - git status\n', '        - make\n'),
    )
  })

  it('replaces a map with a scalar on the key line', () => {
    expectExact(
      edit(name, (next) => (next.editor.font = 'Fira Code')),
      swap(original, '    font:\n        family: "JetBrains Mono"\n        size: 13\n', '    font: Fira Code\n'),
    )
  })

  it('replaces a scalar with a map one 4-space step deeper', () => {
    expectExact(
      edit(name, (next) => (next.editor.theme = { name: 'dark', contrast: 'high' })),
      swap(original, '    theme: dark\n', '    theme:\n        name: dark\n        contrast: high\n'),
    )
  })

  it('removes a nested map with all its lines', () => {
    expectExact(
      edit(name, (next) => delete next.terminal.env),
      swap(original, '    env:\n        TERM: xterm-256color\n        LANG: en_US.UTF-8\n', ''),
    )
  })
})

describe('zero-indent.yaml: sequences with unindented dashes', () => {
  const name = 'zero-indent.yaml'
  const original = fixture(name)

  it('appends to a zero-indented list with the dash at the key column', () => {
    expectExact(edit(name, (next) => next.tools.enabled.push('search')), swap(original, '  - editor\n', '  - editor\n  - search\n'))
  })

  it('shrinks a zero-indented list', () => {
    expectExact(edit(name, (next) => (next.tools.enabled = ['shell'])), swap(original, '  - shell\n  - browser\n  - editor\n', '  - shell\n'))
  })

  it('edits one element of a zero-indented list', () => {
    expectExact(edit(name, (next) => (next.tools.enabled[2] = 'ide')), swap(original, '  - editor\n', '  - ide\n'))
  })

  it('turns one scalar element into a map aligned after its dash', () => {
    expectExact(
      edit(name, (next) => (next.tools.enabled[0] = { name: 'shell', sandbox: true })),
      swap(original, '  - shell\n', '  - name: shell\n    sandbox: true\n'),
    )
  })

  it('edits a value inside a list-item map', () => {
    expectExact(edit(name, (next) => (next.servers[1].command = 'git-mcp')), swap(original, '  command: mcp-git\n', '  command: git-mcp\n'))
  })

  it('edits the value on the dash line, keeping its inline comment', () => {
    expectExact(
      edit(name, (next) => (next.servers[1].name = 'git2')),
      swap(original, '- name: git   # the git server\n', '- name: git2   # the git server\n'),
    )
  })

  it('edits an element of a nested zero-indented list', () => {
    expectExact(edit(name, (next) => (next.servers[0].args[1] = '~/work')), swap(original, '  - ~/projects\n', '  - ~/work\n'))
  })

  it('grows a nested zero-indented list', () => {
    expectExact(
      edit(name, (next) => next.servers[0].args.push('--readonly')),
      swap(original, '  - ~/projects\n', '  - ~/projects\n  - --readonly\n'),
    )
  })

  it("adds a key to a list-item map at the item's indentation", () => {
    expectExact(
      edit(name, (next) => (next.servers[0].env = { DEBUG: '1' })),
      swap(original, '  - ~/projects\n', '  - ~/projects\n  env:\n    DEBUG: "1"\n'),
    )
  })

  it('adds a key to the last list-item map before the blank line', () => {
    expectExact(
      edit(name, (next) => (next.servers[1].timeout = 30)),
      swap(original, '  args: []\n\nnotify', '  args: []\n  timeout: 30\n\nnotify'),
    )
  })

  it('removes a key whose value is a zero-indented list', () => {
    expectExact(edit(name, (next) => delete next.tools.disabled), swap(original, '  disabled:\n  - email\n', ''))
  })

  it('removes a later key of a list-item map', () => {
    expectExact(edit(name, (next) => delete next.servers[1].command), swap(original, '  command: mcp-git\n', ''))
  })

  it("removes the first key of a list-item map, keeping the item's dash", () => {
    expectExact(
      edit(name, (next) => delete next.servers[0].name),
      swap(original, '- name: files\n  command: mcp-files\n', '- command: mcp-files\n'),
    )
  })

  it('appends a map to a list of maps without rewriting the items already there', () => {
    expectExact(
      edit(name, (next) => next.servers.push({ name: 'web', command: 'mcp-web' })),
      swap(original, '  args: []\n\nnotify', '  args: []\n- name: web\n  command: mcp-web\n\nnotify'),
    )
  })

  it('changes a root scalar on the last line', () => {
    expectExact(edit(name, (next) => (next.notify = true)), swap(original, 'notify: false\n', 'notify: true\n'))
  })
})

describe('flow.yaml: flow maps and flow lists', () => {
  const name = 'flow.yaml'
  const original = fixture(name)
  const layout = 'layout: {sidebar: left, width: 280, panels: [files, search, git]}\n'

  it('changes a value inside a flow map', () => {
    expectExact(edit(name, (next) => (next.layout.width = 320)), swap(original, layout, 'layout: {sidebar: left, width: 320, panels: [files, search, git]}\n'))
  })

  it('keeps each quote style inside a flow map', () => {
    expectExact(
      edit(name, (next) => {
        next.shortcuts.save = 'cmd+s'
        next.shortcuts.quit = 'cmd+q'
      }),
      swap(original, `shortcuts: {save: 'ctrl+s', quit: "ctrl+q"}\n`, `shortcuts: {save: 'cmd+s', quit: "cmd+q"}\n`),
    )
  })

  it('edits one element of a flow list nested in a flow map', () => {
    expectExact(edit(name, (next) => (next.layout.panels[1] = 'find')), swap(original, layout, 'layout: {sidebar: left, width: 280, panels: [files, find, git]}\n'))
  })

  it('edits one element of a flow list, keeping its inline comment', () => {
    expectExact(
      edit(name, (next) => (next.recent[1] = 'delta')),
      swap(original, 'recent: [alpha, beta, gamma]   # most recent first\n', 'recent: [alpha, delta, gamma]   # most recent first\n'),
    )
  })

  it('appends to a flow list nested in a flow map', () => {
    expectExact(
      edit(name, (next) => next.layout.panels.push('debug')),
      swap(original, layout, 'layout: {sidebar: left, width: 280, panels: [files, search, git, debug]}\n'),
    )
  })

  it('adds a key at the end of a flow map', () => {
    expectExact(
      edit(name, (next) => (next.layout.theme = 'dark')),
      swap(original, layout, 'layout: {sidebar: left, width: 280, panels: [files, search, git], theme: dark}\n'),
    )
  })

  it('adds a nested map to a flow map in flow style', () => {
    expectExact(
      edit(name, (next) => (next.limits.rate.window = { unit: 's', size: 60 })),
      swap(original, '  rate: {per-minute: 60, burst: 10}\n', '  rate: {per-minute: 60, burst: 10, window: {unit: s, size: 60}}\n'),
    )
  })

  it('removes the first key of a flow map with its separator', () => {
    expectExact(edit(name, (next) => delete next.layout.sidebar), swap(original, layout, 'layout: {width: 280, panels: [files, search, git]}\n'))
  })

  it('removes the last key of a flow map with its separator', () => {
    expectExact(edit(name, (next) => delete next.layout.panels), swap(original, layout, 'layout: {sidebar: left, width: 280}\n'))
  })

  it('removes two leading keys of a flow map', () => {
    expectExact(
      edit(name, (next) => {
        delete next.layout.sidebar
        delete next.layout.width
      }),
      swap(original, layout, 'layout: {panels: [files, search, git]}\n'),
    )
  })

  it('removes two trailing keys of a flow map', () => {
    expectExact(
      edit(name, (next) => {
        delete next.layout.width
        delete next.layout.panels
      }),
      swap(original, layout, 'layout: {sidebar: left}\n'),
    )
  })

  it('replaces a flow list with one of another length, keeping flow style and the inline comment', () => {
    expectExact(
      edit(name, (next) => (next.recent = ['delta', 'alpha'])),
      swap(original, 'recent: [alpha, beta, gamma]   # most recent first\n', 'recent: [delta, alpha]   # most recent first\n'),
    )
  })

  it('gives an empty flow map its first key in flow style', () => {
    expectExact(edit(name, (next) => (next['empty-map'].a = 1)), swap(original, 'empty-map: {}\n', 'empty-map: {a: 1}\n'))
  })

  it('empties a flow map to {}', () => {
    expectExact(edit(name, (next) => (next.layout = {})), swap(original, layout, 'layout: {}\n'))
  })

  it('quotes a new string value holding a comma inside a flow map, which stays a flow map', () => {
    expectExact(
      edit(name, (next) => (next.layout.sidebar = 'left, right')),
      swap(original, layout, 'layout: {sidebar: "left, right", width: 280, panels: [files, search, git]}\n'),
    )
  })

  it('quotes a new key holding a comma inside a flow map, which stays a flow map', () => {
    expectExact(
      edit(name, (next) => (next.shortcuts['split,vertical'] = 'ctrl+shift+v')),
      swap(original, `shortcuts: {save: 'ctrl+s', quit: "ctrl+q"}\n`, `shortcuts: {save: 'ctrl+s', quit: "ctrl+q", "split,vertical": ctrl+shift+v}\n`),
    )
  })
})

describe('anchors.yaml: anchors, aliases and << merge keys', () => {
  const name = 'anchors.yaml'
  const original = fixture(name)

  it('resolves anchors, aliases and merge keys on read', () => {
    const data = reparse(original) as Doc
    expect(data.providers.openai).toStrictEqual({
      timeout: 30,
      retries: 3,
      proxy: 'http://proxy.internal:3128',
      'base-url': 'https://api.openai.com/v1',
      'api-key': 'sk-placeholder',
    })
    expect(data.providers.anthropic.timeout).toBe(60)
    expect(data.downloads).toStrictEqual({
      proxy: 'http://proxy.internal:3128',
      mirror: 'https://mirror.example.com',
      fallback: 'https://mirror.example.com',
    })
    expect(data['audit-log']).toStrictEqual({ level: 'info', format: 'json' })
  })

  it("changes a merging map's own key, keeping its comment", () => {
    expectExact(
      edit(name, (next) => (next.providers.anthropic.timeout = 90)),
      swap(original, '    timeout: 60           # slower model, longer timeout\n', '    timeout: 90           # slower model, longer timeout\n'),
    )
  })

  it('sets a value reached through a merge as a concrete key of that map only', () => {
    expectExact(
      edit(name, (next) => (next.providers.openai.timeout = 45)),
      swap(original, '    api-key: sk-placeholder\n', '    api-key: sk-placeholder\n    timeout: 45\n'),
    )
  })

  it('sets a value reached through a merge inside a scope', () => {
    expectExact(
      edit(name, (next) => (next.scopes['preset/coder'].providers.openai.retries = 5)),
      swap(original, '        model: gpt-4.1\n', '        model: gpt-4.1\n        retries: 5\n'),
    )
  })

  it('replaces an alias with a concrete value, leaving the anchor alone', () => {
    expectExact(edit(name, (next) => (next.downloads.proxy = 'http://other:8080')), swap(original, '  proxy: *proxy\n', '  proxy: http://other:8080\n'))
  })

  it('replaces an alias of an anchored scalar without touching the anchored one', () => {
    expectExact(
      edit(name, (next) => (next.downloads.fallback = 'https://fallback.example.com')),
      swap(original, '  fallback: *mirror-url\n', '  fallback: https://fallback.example.com\n'),
    )
  })

  it('changes an anchored scalar, keeping the anchor and the old value for its alias', () => {
    expectExact(
      edit(name, (next) => (next.downloads.mirror = 'https://mirror2.example.com')),
      swap(
        original,
        '  mirror: &mirror-url https://mirror.example.com\n  fallback: *mirror-url\n',
        '  mirror: &mirror-url https://mirror2.example.com\n  fallback: https://mirror.example.com\n',
      ),
    )
  })

  it('changes a key of the anchored map, giving its merging users their old value concretely', () => {
    let expected = swap(original, '  timeout: 30\n  retries: 3\n', '  timeout: 20\n  retries: 3\n')
    expected = swap(expected, '    api-key: sk-placeholder\n', '    api-key: sk-placeholder\n    timeout: 30\n')
    expected = swap(expected, '        model: gpt-4.1\n', '        model: gpt-4.1\n        timeout: 30\n')
    expectExact(
      edit(name, (next) => (next.defaults.timeout = 20)),
      expected,
    )
  })

  it('changes a value in a map reached through an alias, making only that key concrete', () => {
    expectExact(
      edit(name, (next) => (next['audit-log'].level = 'debug')),
      swap(original, 'audit-log: *logging\n', 'audit-log:\n  level: debug\n  format: json\n'),
    )
  })

  it("changes a value in the anchored map, keeping the alias's old value concretely", () => {
    expectExact(
      edit(name, (next) => (next.logging.level = 'warn')),
      swap(
        original,
        'logging: &logging\n  level: info\n  format: json\naudit-log: *logging\n',
        'logging: &logging\n  level: warn\n  format: json\naudit-log:\n  level: info\n  format: json\n',
      ),
    )
  })

  it('deletes a key reached through a merge by writing the remaining merged keys concretely', () => {
    expectExact(
      edit(name, (next) => delete next.providers.openai.retries),
      swap(original, '  openai:\n    <<: *defaults\n', '  openai:\n    timeout: 30\n    proxy: http://proxy.internal:3128\n'),
    )
  })

  it('deletes an own key that overrides a merged key, writing the merged rest concretely', () => {
    expectExact(
      edit(name, (next) => delete next.providers.anthropic.timeout),
      swap(
        original,
        '  anthropic:\n    <<: *defaults\n    timeout: 60           # slower model, longer timeout\n',
        '  anthropic:\n    retries: 3\n    proxy: http://proxy.internal:3128\n',
      ),
    )
  })

  it('deletes an anchored section another key aliases, writing the alias out concretely', () => {
    expectExact(
      edit(name, (next) => delete next.logging),
      swap(original, 'logging: &logging\n  level: info\n  format: json\naudit-log: *logging\n', 'audit-log:\n  level: info\n  format: json\n'),
    )
  })

  it('deletes an anchored scalar another key aliases, in place and holding the next data', () => {
    expectInPlaceKeeping(
      edit(name, (next) => delete next.defaults.proxy),
      ['# Shared connection defaults, reused through anchors and merge keys.\ndefaults: &defaults\n', '    timeout: 60           # slower model, longer timeout\n', '  mirror: &mirror-url https://mirror.example.com\n  fallback: *mirror-url\n'],
    )
  })

  it("adds a key to the anchored map without dropping its other users' comments", () => {
    expectInPlaceKeeping(edit(name, (next) => (next.defaults.verify = true)), [
      '  proxy: &proxy http://proxy.internal:3128\n  verify: true\n',
      '    timeout: 60           # slower model, longer timeout\n',
      'downloads:\n  proxy: *proxy\n',
    ])
  })
})

describe('scopes.yaml: global sections and a scopes map', () => {
  const name = 'scopes.yaml'
  const original = fixture(name)
  const quiet = '  quiet-hours: { start: "22:00", end: "07:00" }\n'

  it('changes a scoped value, keeping its inline comment', () => {
    expectExact(
      edit(name, (next) => (next.scopes['preset/coder']['web-search'].engine = 'kagi')),
      swap(original, '      engine: google   # better for code\n', '      engine: kagi   # better for code\n'),
    )
  })

  it('adds a key to a scoped section', () => {
    expectExact(
      edit(name, (next) => (next.scopes['preset/coder']['web-search'].locale = 'de-DE')),
      swap(original, '      engine: google   # better for code\n', '      engine: google   # better for code\n      locale: de-DE\n'),
    )
  })

  it('adds a section to a scope before the blank line that separates scopes', () => {
    expectExact(
      edit(name, (next) => (next.scopes['preset/coder'].chat = { model: 'o3' })),
      swap(original, '      enabled: false\n\n', '      enabled: false\n    chat:\n      model: o3\n\n'),
    )
  })

  it('adds a new scope section at the end of the scopes map', () => {
    expectExact(
      edit(name, (next) => (next.scopes['preset/writer'] = { reminders: { enabled: true } })),
      `# Presets and workspaces override global sections under \`scopes\`.

web-search:
  engine: bing
  locale: en-US

reminders:
  enabled: true
  quiet-hours: { start: "22:00", end: "07:00" }

scopes:
  # the coding preset
  preset/coder:
    web-search:
      engine: google   # better for code
    reminders:
      enabled: false

  workspace/home:
    reminders:
      quiet-hours: { start: "23:00", end: "08:00" }
  preset/writer:
    reminders:
      enabled: true
`,
    )
  })

  it('empties a scope to {}, keeping the comment above it', () => {
    expectExact(
      edit(name, (next) => (next.scopes['preset/coder'] = {})),
      swap(original, '  preset/coder:\n    web-search:\n      engine: google   # better for code\n    reminders:\n      enabled: false\n', '  preset/coder: {}\n'),
    )
  })

  it('removes a whole scope, leaving its siblings', () => {
    expectExact(
      edit(name, (next) => delete next.scopes['workspace/home']),
      swap(original, '  workspace/home:\n    reminders:\n      quiet-hours: { start: "23:00", end: "08:00" }\n', ''),
    )
  })

  it('changes a value in a padded flow map, keeping the padding and quotes', () => {
    expectExact(
      edit(name, (next) => (next.reminders['quiet-hours'].end = '06:30')),
      swap(original, quiet, '  quiet-hours: { start: "22:00", end: "06:30" }\n'),
    )
  })

  it('changes a value in a flow map inside a scope', () => {
    expectExact(
      edit(name, (next) => (next.scopes['workspace/home'].reminders['quiet-hours'].start = '21:30')),
      swap(original, '      quiet-hours: { start: "23:00", end: "08:00" }\n', '      quiet-hours: { start: "21:30", end: "08:00" }\n'),
    )
  })

  it('removes a key from a padded flow map', () => {
    expectExact(edit(name, (next) => delete next.reminders['quiet-hours'].start), swap(original, quiet, '  quiet-hours: { end: "07:00" }\n'))
  })

  it("adds a key to a padded flow map after its last value, keeping the map's padding", () => {
    expectExact(
      edit(name, (next) => (next.reminders['quiet-hours'].days = ['sat', 'sun'])),
      swap(original, quiet, '  quiet-hours: { start: "22:00", end: "07:00", days: [sat, sun] }\n'),
    )
  })

  it("replaces every key of a padded flow map on that map's own line", () => {
    expectOnlyBetween(
      edit(name, (next) => (next.reminders['quiet-hours'] = { from: '21:00' })),
      '  enabled: true\n',
      '\nscopes:\n',
    )
  })
})

describe('prompts.yaml: a document marker and block scalars', () => {
  const name = 'prompts.yaml'
  const original = fixture(name)

  it('edits siblings of block scalars, keeping the blocks and the document marker', () => {
    expectExact(
      edit(name, (next) => {
        next.chat.greeting = 'hi'
        next.ui.theme = 'dark'
      }),
      swap(swap(original, '  greeting: hello # shown at start\n', '  greeting: hi # shown at start\n'), '  theme: system\n', '  theme: dark\n'),
    )
  })

  it('adds a key to a map that holds block scalars', () => {
    expectExact(
      edit(name, (next) => (next.chat.farewell = 'bye')),
      swap(original, '  greeting: hello # shown at start\n', '  greeting: hello # shown at start\n  farewell: bye\n'),
    )
  })

  it('removes a key whose value is a literal block, with all its lines', () => {
    expectExact(edit(name, (next) => delete next.chat.system), swap(original, '  system: |\n    You are a careful assistant.\n    Cite sources.\n', ''))
  })

  it('adds a line to a literal block scalar, keeping it a literal block', () => {
    expectExact(
      edit(name, (next) => (next.chat.system = 'You are a careful assistant.\nCite sources.\nNever guess.\n')),
      swap(original, '    Cite sources.\n', '    Cite sources.\n    Never guess.\n'),
    )
  })

  it('replaces a literal block scalar with a one-line string, touching only that value', () => {
    expectOnlyBetween(edit(name, (next) => (next.chat.system = 'Be brief.')), '  system:', '  summary: >\n')
  })

  it('replaces a folded block scalar with a one-line string, touching only that value', () => {
    expectOnlyBetween(edit(name, (next) => (next.chat.summary = 'Keep it short.')), '  summary:', '  greeting: hello # shown at start\n')
  })

  it("turns a commented scalar into a map, keeping the comment on the key's line", () => {
    expectExact(
      edit(name, (next) => (next.chat.greeting = { en: 'hi', fr: 'salut' })),
      swap(original, '  greeting: hello # shown at start\n', '  greeting: # shown at start\n    en: hi\n    fr: salut\n'),
    )
  })
})

describe('documents at the edges', () => {
  it('writes the first sections of an empty document', () => {
    expectExact(
      editText('', (next) => (next.chat = { model: 'o3' })),
      'chat:\n  model: o3\n',
    )
  })

  it("keeps a comment-only document's comment when the first section lands", () => {
    expectExact(
      editText('# my settings\n', (next) => (next.chat = { model: 'o3' })),
      '# my settings\nchat:\n  model: o3\n',
    )
  })

  it('keeps the document marker of a marker-only document when the first section lands', () => {
    expectExact(
      editText('---\n', (next) => (next.chat = { model: 'o3' })),
      '---\nchat:\n  model: o3\n',
    )
  })

  it('adds a key to a document without a final newline, ending the old last line', () => {
    expectExact(
      editText('chat:\n  model: o3', (next) => (next.chat.temperature = 0)),
      'chat:\n  model: o3\n  temperature: 0\n',
    )
  })

  it('changes the last value of a document without a final newline, adding none', () => {
    expectExact(
      editText('chat:\n  model: o3', (next) => (next.chat.model = 'o4')),
      'chat:\n  model: o4',
    )
  })

  it('quotes added keys that would otherwise read as other keys or types', () => {
    expectExact(
      editText('flags:\n  plain: 1\n', (next) => {
        next.flags['a: b'] = 2
        next.flags.null = 3
      }),
      'flags:\n  plain: 1\n  "a: b": 2\n  "null": 3\n',
    )
  })
})

describe('line endings', () => {
  it('writes new lines with the CRLF endings of a CRLF document', () => {
    const text = 'a:\r\n  x: 1  # c\r\n  y: 2\r\nb: [1, 2]\r\n'
    const parsed = parseSettings(text, 'yaml', 'crlf.yaml')
    const next = JSON.parse(JSON.stringify(parsed.data)) as { a: Record<string, unknown>; c?: string }
    next.a.x = 5
    next.a.z = { k: 1 }
    next.c = 'new'
    const result = renderYaml(text, parsed, next)
    expect(result.text).toBe('a:\r\n  x: 5  # c\r\n  y: 2\r\n  z:\r\n    k: 1\r\nb: [1, 2]\r\nc: new\r\n')
    expect(result.preserved).toBe(true)
  })
})
