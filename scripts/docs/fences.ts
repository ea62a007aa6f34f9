/**
 * Fenced code blocks of a Markdown file, found the way CommonMark finds them
 * (no Markdown parser is a dependency here, and fences are all the docs test
 * needs): an opening run of three or more backticks or tildes, indented by
 * any number of spaces (a fence inside a list item is indented), an info
 * string whose first word is the language, and a closing run of the same
 * character at least as long with nothing after it. A fence left open runs to
 * the end of the file, as CommonMark says.
 */

/** One fenced block. */
export interface Fence {
  /** The Markdown file, as the caller named it. */
  file: string
  /** The 1-based line of the opening fence. */
  line: number
  /** The info string's first word, lower case (`ts`, `sh`, `yaml`); `''` when there is none. */
  lang: string
  /** The rest of the info string, trimmed. */
  meta: string
  /** The block's text, with the fence's own indentation taken off each line; ends without a newline. */
  body: string
}

const OPENING = /^( *)(`{3,}|~{3,})(.*)$/

/** Take up to `indent` leading spaces off a content line, as CommonMark does for an indented fence. */
function dedent(line: string, indent: number): string {
  let cut = 0
  while (cut < indent && line[cut] === ' ') cut++
  return line.slice(cut)
}

/** Every fenced block of `text`, in order. */
export function extractFences(text: string, file: string): Fence[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n')
  const fences: Fence[] = []
  for (let index = 0; index < lines.length; index++) {
    const opening = OPENING.exec(lines[index]!)
    if (!opening) continue
    const [, indentText, marker, infoText] = opening as unknown as [string, string, string, string]
    // A backtick fence's info string may hold no backtick (that is inline code, not a fence).
    if (marker[0] === '`' && infoText.includes('`')) continue
    const closing = new RegExp(`^ *${marker[0] === '`' ? '`' : '~'}{${marker.length},} *$`)
    const body: string[] = []
    let end = index + 1
    for (; end < lines.length && !closing.test(lines[end]!); end++) body.push(dedent(lines[end]!, indentText.length))
    const info = infoText.trim()
    const [lang = '', ...meta] = info.split(/\s+/)
    fences.push({ file, line: index + 1, lang: lang.toLowerCase(), meta: meta.join(' '), body: body.join('\n') })
    index = end
  }
  return fences
}
