// Runs a list of operations on a KeyringSecretStore and prints their outcomes as one JSON line after a marker.
// The keyring spec starts it under dbus-run-session, with or without an unlocked gnome-keyring.
import { KeyringSecretStore } from '../../src/index.ts'

type Op = ({ op: 'get' | 'delete'; name: string } | { op: 'set'; name: string; value: string } | { op: 'names' }) & { deployment?: string }

const deployment = process.argv[2] ?? ''
const ops = JSON.parse(process.argv[3] ?? '[]') as Op[]
const outcomes: unknown[] = []
for (const op of ops) {
  // An op may name another deployment, to show that stores of two deployments do not meet.
  const store = new KeyringSecretStore(op.deployment ?? deployment)
  try {
    const answer =
      op.op === 'get'
        ? await store.get(op.name)
        : op.op === 'set'
          ? await store.set(op.name, op.value)
          : op.op === 'delete'
            ? await store.delete(op.name)
            : await store.names()
    outcomes.push({ op: op.op, answer: answer === undefined ? null : answer })
  } catch (error) {
    const { name, code, reason, service, message } = error as Record<string, unknown>
    outcomes.push({ op: op.op, error: { name, code, reason, service, message } })
  }
}
console.log(`KEYRING-OUTCOMES ${JSON.stringify(outcomes)}`)
