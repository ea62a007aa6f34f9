/**
 * Which export conditions this process resolves packages with: the user ones
 * it was started with. Its own module (no resolver loaded with it), so a
 * command that only passes them on pays for nothing else.
 */

/** Node options that take the next argument as their value, which is then no option of its own. */
const TAKES_CODE = new Set(['-e', '--eval', '-p', '--print'])

/** Split a NODE_OPTIONS string the way Node does: on spaces, with double quotes grouping and `\` escaping inside them. */
function splitNodeOptions(text: string): string[] {
  const words: string[] = []
  let word: string | undefined
  let quoted = false
  for (let index = 0; index < text.length; index++) {
    const char = text[index]!
    if (quoted && char === '\\' && index + 1 < text.length) {
      word = (word ?? '') + text[++index]
    } else if (char === '"') {
      quoted = !quoted
      word ??= ''
    } else if (!quoted && /\s/.test(char)) {
      if (word !== undefined) words.push(word)
      word = undefined
    } else {
      word = (word ?? '') + char
    }
  }
  if (word !== undefined) words.push(word)
  return words
}

/**
 * The user export conditions a Node process runs with: each `--conditions=name`,
 * `--conditions name` and `-C name`, from its NODE_OPTIONS first and then its
 * command-line flags, in that order and without repeats.
 */
export function processConditions(execArgv: readonly string[] = process.execArgv, nodeOptions: string | undefined = process.env.NODE_OPTIONS): string[] {
  const found: string[] = []
  const args = [...splitNodeOptions(nodeOptions ?? ''), ...execArgv]
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!
    if (TAKES_CODE.has(arg)) index++
    else if (arg.startsWith('--conditions=')) found.push(arg.slice('--conditions='.length))
    else if ((arg === '--conditions' || arg === '-C') && index + 1 < args.length) found.push(args[++index]!)
  }
  return [...new Set(found.filter((name) => name !== ''))]
}
