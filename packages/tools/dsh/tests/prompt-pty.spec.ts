/**
 * `dsh settings set <ns>.<secret>` in a real terminal: the command runs on a
 * pseudo-terminal (python3's `pty`), asks for the value, and the secret typed
 * there is stored exactly, while the whole terminal transcript (what a person
 * would see, and what a screen recording keeps) holds none of it. Ctrl-C at
 * the prompt stores nothing.
 */
import { spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { useHosts, WORKSPACE } from './hosts.ts'
import { slices } from './stdin.ts'
import { recordCatalog } from './catalog-host.ts'
import { storedSettings } from './stored.ts'

const DEPLOYMENT = 'packages/tools/dsh/tests/fixtures/cordis.yml'
const hosts = useHosts()

/**
 * Runs argv[1:] on a fresh pseudo-terminal; once the prompt shows, types
 * $DSH_PTY_KEYS (kept out of the child's environment) and then prints the
 * whole transcript, exiting with the child's code.
 */
const DRIVER = String.raw`
import os, pty, select, subprocess, sys, time
keys = os.environ.pop('DSH_PTY_KEYS').encode()
master, slave = pty.openpty()
child = subprocess.Popen(sys.argv[1:], stdin=slave, stdout=slave, stderr=slave, close_fds=True, start_new_session=True)
os.close(slave)
transcript, typed, deadline = b'', False, time.time() + 90
while time.time() < deadline:
    ready, _, _ = select.select([master], [], [], 0.1)
    if ready:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        transcript += chunk
    if not typed and b'(typing is not shown): ' in transcript:
        os.write(master, keys)
        typed = True
    if not ready and child.poll() is not None:
        break
if child.poll() is None:
    child.kill()
sys.stdout.buffer.write(transcript)
sys.exit(child.wait())
`

/** `dsh settings set <address>` on a pseudo-terminal, typing `keys` at the prompt: exit code and transcript. */
function onTerminal(home: string, address: string, keys: string): { code: number | null; transcript: string } {
  const ran = spawnSync('python3', ['-c', DRIVER, process.execPath, '--conditions=source', '--import', 'tsx', 'packages/tools/dsh/src/bin.ts', 'settings', 'set', address, '-d', DEPLOYMENT], {
    cwd: WORKSPACE,
    env: { ...process.env, DSH_HOME: home, DSH_PORT: '0', DSH_PTY_KEYS: keys },
    encoding: 'utf8',
    timeout: 120_000,
  })
  return { code: ran.status, transcript: ran.stdout }
}


/** The stored settings, secrets read from the store where the provider keeps them. */
const stored = storedSettings

describe('dsh settings set on a terminal (python3\'s pty, on every machine of this project)', () => {
  it('asks for a secret without echoing it, and stores exactly what was typed', { timeout: 120_000 }, async () => {
    const home = hosts.home('dsh-prompt-pty-', 'packages/tools/dsh/tests/fixtures/clean.yaml')
    await recordCatalog(hosts, home, DEPLOYMENT)
    const secret = `*sk-live-${randomBytes(6).toString('hex')} #4444 `
    const { code, transcript } = onTerminal(home, 'web-search.apiKey', `${secret}\r`)
    expect(transcript).toContain('value for web-search.apiKey (typing is not shown): ')
    expect(transcript).toMatch(/set web-search\.apiKey \(revision \d+, via /)
    expect(code).toBe(0)
    expect(stored(home)['web-search']!.apiKey).toBe(secret)
    for (const slice of slices(secret, 8)) expect(transcript).not.toContain(slice)
  })

  it('stores nothing when the prompt is left with Ctrl-C', { timeout: 120_000 }, async () => {
    const home = hosts.home('dsh-prompt-pty-', 'packages/tools/dsh/tests/fixtures/clean.yaml')
    const before = readFileSync(join(home, 'settings.yaml'), 'utf8')
    const half = `sk-live-${randomBytes(6).toString('hex')}`
    const { code, transcript } = onTerminal(home, 'web-search.apiKey', `${half}\x03`)
    expect(code).toBe(2)
    expect(transcript).toContain('no value entered')
    expect(readFileSync(join(home, 'settings.yaml'), 'utf8')).toBe(before)
    for (const slice of slices(half, 8)) expect(transcript).not.toContain(slice)
  })
})
