import { resolve } from 'node:path'
import { expandHome, resolveHome } from 'dsh-settings-home'
import Schema from 'schemastery'

/** One directory that holds agent presets, one sub-directory per preset id. */
export interface PresetRoot {
  /** The directory; `~` is expanded and a relative path is taken from the settings home. */
  path: string
  /** Whether presets here belong to the user and may be opened for editing; `false` for presets shipped with the deployment. */
  writable?: boolean
}

/** Configuration of the `SettingsController` plugin. */
export interface SettingsControllerConfig {
  /** The settings home; defaults to `$DSH_HOME`, else `~/.dsh`. The default preset root and the catalog live there. */
  home?: string
  /**
   * The native opener: a command and its leading arguments, to which the path
   * is appended as the last argument. `false` means this host has none.
   * Defaults by platform: `open` on macOS, `cmd /c start ""` on Windows,
   * `xdg-open` elsewhere when a desktop session is visible.
   */
  opener?: string[] | false
  /** Preset roots, searched in order; defaults to one writable root `<home>/presets`. */
  presets?: PresetRoot[]
  /**
   * Offer the settings page of `dsh-settings-page-assets`, when installed, to the
   * remote server to serve at `/` (a `static` folder configured there wins). Default `true`.
   */
  page?: boolean
  /**
   * Keep `<home>/settings-catalog.json` (every registered kind's sanitized schema, version and
   * redacted base), from which the `dsh` command judges values while no host runs. Default `true`.
   */
  catalog?: boolean
  /**
   * Who this controller's writes are recorded as in the document's history: `wire` (default) for a
   * host's configuration surfaces, `command` for the `dsh` command's own controller when no host runs.
   */
  origin?: 'wire' | 'command'
}

/** The configuration schema cordis validates the plugin's entry with. */
export const SettingsControllerConfig: Schema<SettingsControllerConfig> = Schema.object({
  home: Schema.string().description('Settings home for the default preset root; defaults to $DSH_HOME, else ~/.dsh.'),
  opener: Schema.union([Schema.array(Schema.string()), Schema.const(false)]).description(
    'Native opener command and leading arguments (the path is appended), or false for none. Defaults by platform.',
  ),
  // A bare `Schema.array` would turn an absent list into `[]`, which must stay distinguishable from "no roots".
  presets: Schema.union([
    Schema.array(
      Schema.object({
        path: Schema.string().required().description('A directory of presets, one sub-directory per preset id.'),
        writable: Schema.boolean().default(false).description('Whether presets here may be opened for editing.'),
      }),
    ),
    Schema.const(undefined),
  ]).description('Preset roots, searched in order. Defaults to one writable root <home>/presets.'),
  page: Schema.boolean().default(true).description('Serve the settings page of dsh-settings-page-assets at / when it is installed.'),
  catalog: Schema.boolean().default(true).description('Keep settings-catalog.json in the home: the registered schemas, for the dsh command when no host runs.'),
  origin: Schema.union(['wire', 'command']).default('wire').description('Who writes through this controller, for the history: wire (a host) or command (the dsh command).'),
}) as Schema<SettingsControllerConfig>

/** A preset root after resolution: an absolute path. */
export interface ResolvedPresetRoot {
  path: string
  writable: boolean
}

/** The controller's configuration with every default applied. */
export interface ResolvedConfig {
  /** The opener command, or `false` when this host has none. */
  opener: readonly string[] | false
  presets: readonly ResolvedPresetRoot[]
  /** Whether to offer the settings page to the remote server. */
  page: boolean
  /** The settings home, absolute. */
  home: string
  /** Whether to keep the catalog in the home. */
  catalog: boolean
  /** The origin of this controller's writes. */
  origin: 'wire' | 'command'
}

/**
 * The platform's default opener. On Linux and other Unix-likes an opener only
 * helps where a desktop can show what it opens, so without a display (or WSL)
 * there is none and preset directories are answered as text instead.
 */
export function defaultOpener(platform: NodeJS.Platform = process.platform, env: NodeJS.ProcessEnv = process.env): readonly string[] | false {
  if (platform === 'darwin') return ['open']
  // `start` takes its first quoted argument as a window title: pass an empty one so the path is never mistaken for it.
  if (platform === 'win32') return ['cmd', '/c', 'start', '']
  if (env.DISPLAY || env.WAYLAND_DISPLAY || env.WSL_DISTRO_NAME) return ['xdg-open']
  return false
}

/**
 * Apply defaults and check the configuration. Done here as well as by the
 * schema so a controller constructed without cordis's config pass still behaves.
 * @throws {TypeError} for an empty opener or a preset root without a path.
 */
export function resolveConfig(config: SettingsControllerConfig = {}, env: NodeJS.ProcessEnv = process.env): ResolvedConfig {
  const home = resolveHome(config.home, env)
  let opener: readonly string[] | false
  if (config.opener === undefined) opener = defaultOpener(process.platform, env)
  else if (config.opener === false) opener = false
  else {
    if (!Array.isArray(config.opener) || !config.opener.length || !config.opener.every((part) => typeof part === 'string') || !config.opener[0]) {
      throw new TypeError('settings-controller: opener must be false or a non-empty array of strings starting with a command')
    }
    opener = Object.freeze([...config.opener])
  }
  const roots = config.presets ?? [{ path: 'presets', writable: true }]
  const presets = roots.map((root, index) => {
    if (typeof root?.path !== 'string' || !root.path.trim()) throw new TypeError(`settings-controller: presets[${index}].path must be a directory path`)
    return Object.freeze({ path: resolve(home, expandHome(root.path.trim())), writable: root.writable === true })
  })
  if (config.page !== undefined && typeof config.page !== 'boolean') throw new TypeError('settings-controller: page must be true or false')
  if (config.catalog !== undefined && typeof config.catalog !== 'boolean') throw new TypeError('settings-controller: catalog must be true or false')
  if (config.origin !== undefined && config.origin !== 'wire' && config.origin !== 'command') throw new TypeError("settings-controller: origin must be 'wire' or 'command'")
  return { opener, presets: Object.freeze(presets), page: config.page ?? true, home, catalog: config.catalog ?? true, origin: config.origin ?? 'wire' }
}
