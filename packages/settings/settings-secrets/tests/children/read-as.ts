// Resolves one `!file` reference and prints what came of it as one JSON line; the resolve spec runs it as another user.
import { resolveReference } from '../../src/index.ts'

const path = process.argv[2] ?? ''
try {
  await resolveReference({ kind: 'file', name: path }, { env: {} })
  console.log(JSON.stringify({ resolved: true }))
} catch (error) {
  const { name, code, reason, message } = error as { name: string; code: string; reason: string; message: string }
  console.log(JSON.stringify({ name, code, reason, message }))
}
