/**
 * settingsErrorOf: each refusal of the codec and of the store becomes the
 * public Settings* error the provider has always raised for it (same name,
 * code, refusal, fields and message), with the stack of where it was raised;
 * anything else passes through untouched.
 */
import { SettingsStoreError } from 'dsh-settings'
import { describe, expect, it } from 'vitest'
import { DocumentCannotHoldError, DocumentError, DocumentNotAMapError, DocumentTooLargeError } from '../src/codec/errors.ts'
import { FileTooLargeError, HistoryUnavailableError, LockTimeoutError, NotAFileError, PathLoopError, UnsafeHistoryFileError } from '../src/store/errors.ts'
import {
  SettingsDocumentCannotHoldError,
  SettingsDocumentError,
  SettingsDocumentTooLargeError,
  SettingsHistoryUnavailableError,
  SettingsLockTimeoutError,
  SettingsNotAFileError,
  SettingsNotAMapError,
  settingsErrorOf,
  SettingsUnsafeHistoryFileError,
} from '../src/provider/errors.ts'

const FILE = '/home/u/.dsh/settings.yaml'

/** What a test compares of an error: everything but its stack. */
function shape(error: unknown): Record<string, unknown> {
  const { name, message } = error as Error
  return { ...(error as object), name, message, class: (error as object).constructor.name }
}

describe('settingsErrorOf', () => {
  it.each([
    ['a parse failure', new DocumentError(FILE, 'is not valid YAML: BAD_INDENT at line 2, column 3', { line: 2, column: 3 }), new SettingsDocumentError(`settings document ${FILE} is not valid YAML: BAD_INDENT at line 2, column 3`, FILE, { line: 2, column: 3 })],
    ['a root that is not a map', new DocumentNotAMapError(FILE, 'its root is a sequence', { line: 1, column: 1 }), new SettingsNotAMapError(`settings document ${FILE} is not a map of namespace sections: its root is a sequence, at line 1, column 1`, FILE, { line: 1, column: 1 })],
    ['a text over the cap', new DocumentTooLargeError(FILE, 2048, 1024), new SettingsDocumentTooLargeError(FILE, 2048, 1024)],
    ['a next text over the cap', new DocumentTooLargeError(FILE, 2048, 1024, true), new SettingsDocumentTooLargeError(FILE, 2048, 1024, true)],
    ['a file over the cap', new FileTooLargeError(FILE, 2048, 1024), new SettingsDocumentTooLargeError(FILE, 2048, 1024)],
    ['something other than a file', new NotAFileError(FILE, 'FIFO', '/elsewhere/fifo'), new SettingsNotAFileError(FILE, 'FIFO', '/elsewhere/fifo')],
    ['a symlink loop', new PathLoopError(`settings document ${FILE} is a symlink that leads back to itself`, FILE), new SettingsDocumentError(`settings document ${FILE} is a symlink that leads back to itself`, FILE)],
    ['a lock held too long', new LockTimeoutError(FILE, { pid: 7, hostname: 'h', boot: 'b' } as never, 500), new SettingsLockTimeoutError(FILE, { pid: 7, hostname: 'h', boot: 'b' } as never, 500)],
    ['an unsafe history file', new UnsafeHistoryFileError(`${FILE}.v1`, 'symlink', 'is a symlink'), new SettingsUnsafeHistoryFileError(`${FILE}.v1`, 'symlink', 'is a symlink')],
    ['an unusable history folder', new HistoryUnavailableError('/h', 'its mode 0555 gives its owner no write permission'), new SettingsHistoryUnavailableError('/h', 'its mode 0555 gives its owner no write permission')],
  ])('turns %s into the Settings* error the provider raised for it', (_what, raised, expected) => {
    expect(raised).not.toBeInstanceOf(SettingsStoreError)
    const converted = settingsErrorOf(raised)
    expect(converted).toBeInstanceOf(SettingsStoreError)
    expect(shape(converted)).toStrictEqual(shape(expected))
    // The stack points at where the refusal was raised, under the public error's own heading.
    const stack = (converted as Error).stack!.split('\n')
    expect(stack[0]).toBe(`${(expected as Error).name}: ${(expected as Error).message}`)
    expect(stack.slice(1)).toStrictEqual(raised.stack!.split('\n').slice(1))
  })

  it('places data YAML cannot hold in its section and scope, as a validation error is', () => {
    const global = settingsErrorOf(new DocumentCannotHoldError(FILE, ['web-search', 'list', 0]))
    expect(global).toBeInstanceOf(SettingsDocumentCannotHoldError)
    expect(global).toMatchObject({ code: 'SETTINGS_DOCUMENT_CANNOT_HOLD', refusal: 'rejected', ns: 'web-search', path: ['list', '0'], documentPath: ['web-search', 'list', '0'] })
    expect((global as Error).message).toBe(`settings document ${FILE} cannot hold the value at $.list[0] of section "web-search": written as YAML it does not read back the same; nothing was written`)
    const scoped = settingsErrorOf(new DocumentCannotHoldError(FILE, ['scopes', 'work', 'web-search', 'key']))
    expect(scoped).toMatchObject({ ns: 'web-search', scope: 'work', path: ['key'], documentPath: ['scopes', 'work', 'web-search', 'key'] })
    expect((scoped as Error).message).toContain('at $.key of section "web-search" in scope work:')
    const whole = settingsErrorOf(new DocumentCannotHoldError(FILE, []))
    expect(whole).toMatchObject({ path: [], documentPath: [] })
    expect((whole as SettingsDocumentCannotHoldError).ns).toBeUndefined()
    expect((whole as Error).message).toContain('at $ of the document:')
  })

  it('gives anything else back as it is, a Settings* error included', () => {
    const settings = new SettingsDocumentError('settings document x is broken', 'x')
    const plain = new Error('EACCES')
    expect(settingsErrorOf(settings)).toBe(settings)
    expect(settingsErrorOf(plain)).toBe(plain)
    expect(settingsErrorOf('text')).toBe('text')
    expect(settingsErrorOf(undefined)).toBe(undefined)
  })

  it('keeps codec and store messages free of the word settings: they know nothing of it', () => {
    for (const error of [new DocumentError('f.yaml', 'is not valid YAML'), new DocumentTooLargeError('f.yaml', 9, 1), new DocumentCannotHoldError('f.yaml', ['a']), new NotAFileError('f.yaml', 'socket'), new LockTimeoutError('f.yaml', undefined, 5), new HistoryUnavailableError('h', 'r')]) {
      expect(error.message).not.toMatch(/settings/i)
      expect(error).toMatchObject({ name: error.constructor.name })
    }
  })
})
