/**
 * What a deployment's file provider stores, as its plugins read it: the
 * document `settings.yaml` of a home, each `!secret name` replaced by its value
 * in `secrets.yaml` beside it (where the provider keeps a secret written to it
 * since issue 37). `!env`/`!file` references stay as their JSON form.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse, type ScalarTag } from 'yaml'

/** The stored document of the home `dir` with its `!secret` references resolved from `secrets.yaml` (an absent document: `{}`). */
export function storedSettings(dir: string): Record<string, any> {
  const secretsFile = join(dir, 'secrets.yaml')
  const secrets = existsSync(secretsFile) ? ((parse(readFileSync(secretsFile, 'utf8')) ?? {}) as Record<string, string>) : {}
  const tags: ScalarTag[] = [
    { tag: '!secret', resolve: (name: string) => (Object.hasOwn(secrets, name) ? secrets[name] : { $secret: name }) as never },
    { tag: '!env', resolve: (name: string) => ({ $env: name }) as never },
    { tag: '!file', resolve: (name: string) => ({ $file: name }) as never },
  ]
  return (parse(readFileSync(join(dir, 'settings.yaml'), 'utf8'), { customTags: tags }) ?? {}) as Record<string, any>
}
