/**
 * The way to a running host of a deployment, trusted only as far as it proves
 * itself. The record its remote server keeps in the home says where it runs;
 * the record and the token file are read only if they are the user's own
 * regular files, mode 0600, opened without following a link (`readOwnFile`
 * of dsh-settings-home judges the open descriptor); the record must
 * name a loopback URL and this very deployment. Then the listener there must
 * answer a fresh nonce with a proof made with the token, for that URL and this
 * deployment (`POST /remote/hello`), before any request carries the token.
 * Every refusal is one `note:` line, and the command goes on without a host.
 */
import { unlink } from 'node:fs/promises'
import { join } from 'node:path'
import { readOwnFile, resolveHome, type OwnFileRefusal } from 'dsh-settings-home'
import { createRemote, greetHost, HostProofError, type PostLike } from 'dsh-remote/client'
import { HOST_FILE, TOKEN_FILE, type HostRecord } from 'dsh-remote/host-record'
import type { PluginEntry } from 'dsh-loader/plan'
import type { SettingsRemote } from 'dsh-settings-controller'
import { httpPost } from './http-post.ts'
import { NODE_CRYPTO } from './node-crypto.ts'
import type { SettingsAccess } from './access.ts'
import { configField, planValues, type ValuePlan } from './deployment-plan.ts'

/** How long one call to a running host may take. */
const HOST_CALL_MS = 30_000
/** How long a host that answers may take to put `settings` on its wire after it started. */
const SETTINGS_EXPOSED_MS = 5_000
/** How long the listener a record names may take to answer the hello. */
const HELLO_MS = 3_000

/**
 * Network failures that show nothing of ours listens at a record's URL: the
 * port is closed, or a listener there dropped the connection. A timeout is
 * not one of them (a busy host may be slow), so its record stays.
 */
const GONE = new Set(['ECONNREFUSED', 'ECONNRESET', 'UND_ERR_SOCKET'])

/** What {@link findHost} needs of the deployment's plan: its realpath, and its remote and controller entries. */
export type HostPlan = Pick<ValuePlan, 'real' | 'remote' | 'controller'>

/** Why a record or token file was not read, as said after its name. */
const UNTRUSTED: Record<OwnFileRefusal, string> = {
  missing: 'it does not exist',
  symlink: 'it is a symbolic link',
  'not-a-file': 'it is not a regular file',
  'not-yours': 'it belongs to another user',
  'open-to-others': 'other users may read or write it (only a file of mode 0600 is trusted)',
  unreadable: 'it cannot be read',
}

/** A loopback `http:` base URL with a port, as a server writes it (`http://127.0.0.1:5140`). */
const LOOPBACK_URL = /^http:\/\/(localhost|\[::1\]|127\.\d{1,3}\.\d{1,3}\.\d{1,3}):(\d{1,5})$/

/** Whether `url` is a loopback `http:` base URL with a port (127.0.0.0/8, `::1`, `localhost`). */
function isLoopbackUrl(url: string): boolean {
  const match = LOOPBACK_URL.exec(url)
  if (!match || Number(match[2]) < 1 || Number(match[2]) > 65535) return false
  // The URL parser refuses octets over 255.
  return URL.canParse(url)
}

/** The record's fields, or why it is not one this command takes for this deployment. */
function judgeRecord(text: string, deployment: string): HostRecord | string {
  let record: Partial<HostRecord>
  try {
    record = JSON.parse(text) as Partial<HostRecord>
  } catch {
    return 'it is not JSON'
  }
  if (typeof record !== 'object' || record === null || typeof record.url !== 'string') return 'it names no URL'
  if (!isLoopbackUrl(record.url)) return 'its URL is not http: on a loopback address (127.0.0.0/8, ::1, localhost) with a port'
  if (typeof record.deployment !== 'string') return 'it names no deployment (its host was not started by dsh start)'
  if (record.deployment !== deployment) return `its host serves another deployment, ${JSON.stringify(record.deployment)}`
  return { url: record.url, pid: typeof record.pid === 'number' ? record.pid : 0, deployment: record.deployment }
}

/** The token to check a host's proof with: the deployment's configured one, else the home's token file (read as the record is). */
async function tokenOf(remote: PluginEntry, home: string): Promise<{ token: string } | { refused: string }> {
  const configured = configField(remote, 'token')?.trim()
  if (configured) return { token: configured }
  const file = join(home, TOKEN_FILE)
  const read = readOwnFile(file)
  if ('refused' in read) return { refused: read.refused === 'missing' ? `there is no token file ${file} to check its host with` : `the token file ${file}: ${UNTRUSTED[read.refused]}` }
  const token = read.text.trim()
  return token ? { token } : { refused: `the token file ${file} is empty` }
}

/** Remove a stale record, unless it no longer holds what was read (a host that started since replaced it). */
async function removeStale(path: string, seen: string): Promise<string> {
  const now = readOwnFile(path)
  // Another command that found it stale at the same moment may have removed it first.
  if ('refused' in now && now.refused === 'missing') return '; removed as stale'
  if (!('text' in now) || now.text !== seen) return '; it was replaced meanwhile, so it stays'
  try {
    await unlink(path)
    return '; removed it as stale'
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    return code === 'ENOENT' ? '; removed as stale' : `; it could not be removed (${code ?? 'error'})`
  }
}

/** Whether a failed hello shows the record is stale: nothing of ours listens there, or whatever does cannot prove it. */
function showsStale(error: HostProofError): boolean {
  if (error.code === 'unreachable') return error.detail !== undefined && GONE.has(error.detail)
  return error.code !== 'timeout' && error.code !== 'deployment'
}

/**
 * The running host of the deployment in `file`, if one proves itself: its
 * record in the home names its URL; the token is the config's or the home's.
 * Nothing carries the token until the listener at that URL answers the hello
 * with a proof for that URL and this deployment. Each refusal is one `note`
 * line; a record whose listener is gone or cannot prove itself is removed.
 * Only a deployment that mounts both `dsh-remote` and the controller has a
 * host serving `settings`; its plan is read from the file alone (no plugin is
 * imported) unless the caller has it already.
 * @param note - where refusals are said; standard error by default.
 * @param plan - the deployment's plan when the caller has read it (`planValues`).
 */
export async function findHost(
  file: string,
  env: NodeJS.ProcessEnv,
  note: (line: string) => void = (line) => void process.stderr.write(`${line}\n`),
  plan?: HostPlan,
): Promise<SettingsAccess | undefined> {
  // A file that does not plan answers nothing here; reaching the deployment the other way reports why.
  const planned = plan ?? (await planValues(file, env, []).catch(() => undefined))
  const remote = planned?.controller ? planned.remote : undefined
  if (!planned || !remote) return undefined
  const deployment = planned.real
  const home = resolveHome(configField(remote, 'home'), env)
  const path = join(home, HOST_FILE)
  const refuse = (why: string) => void note(`note: not using the host record ${path}: ${why}`)
  const read = readOwnFile(path)
  if ('refused' in read) return read.refused === 'missing' ? undefined : refuse(UNTRUSTED[read.refused])
  const record = judgeRecord(read.text, deployment)
  if (typeof record === 'string') return refuse(record)
  const token = await tokenOf(remote, home)
  if ('refused' in token) return refuse(token.refused)
  try {
    await greetHost({ url: record.url, token: token.token, deployment, timeoutMs: HELLO_MS, post: httpPost, crypto: NODE_CRYPTO })
  } catch (error) {
    if (!(error instanceof HostProofError)) throw error
    return refuse(`${error.message}${showsStale(error) ? await removeStale(path, read.text) : ''}`)
  }
  return hostAccess(record.url, token.token)
}

/**
 * The settings of a host that proved itself, over its wire (redirects are
 * never followed). A host that has just started may not have put `settings`
 * on its wire yet: each call gets a moment for that (no call is spent asking
 * first), after which it fails as the host answered.
 */
function hostAccess(url: string, token: string): SettingsAccess {
  const post: PostLike = (target, request) => httpPost(target, { ...request, timeoutMs: HOST_CALL_MS })
  const settings = createRemote<{ settings: SettingsRemote }>({ url, token, post }).settings
  const patient = async <T>(call: () => Promise<T>): Promise<T> => {
    const deadline = Date.now() + SETTINGS_EXPOSED_MS
    for (;;) {
      try {
        return await call()
      } catch (error) {
        if ((error as { code?: unknown }).code !== 'remote/not-found' || Date.now() >= deadline) throw error
        await new Promise((done) => setTimeout(done, 100))
      }
    }
  }
  return {
    via: 'host',
    where: url,
    describe: (scope, namespaces) => patient(() => settings.describe(scope ?? null, namespaces ?? null)),
    mutate: (ns, ops, expectedRevision, scope) => patient(() => settings.mutate(ns, ops, expectedRevision, scope)),
    replace: (ns, section, expectedRevision, scope) => patient(() => settings.replace(ns, section, expectedRevision, scope)),
    history: (query) => patient(() => settings.history(query ?? {})),
    compare: (version) => patient(() => settings.compare(version)),
    restore: (version, options) => patient(() => settings.restore(version, options ?? {})),
    close: async () => {},
  }
}
