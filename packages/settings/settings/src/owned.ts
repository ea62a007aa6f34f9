/**
 * Containers a provider gave the seam alone (see `transferToSeam` in
 * document.ts) that hold nothing but plain data and no prototype key at any
 * depth. They are the seam's own: never copied, and never walked again for
 * prototype keys. One mark per container, made by the one walk that checks it.
 */
const owned = new WeakSet<object>()

/** Record that `node` and everything below it is plain, prototype-key-free data the seam owns. */
export function markOwned(node: object): void {
  owned.add(node)
}

/** Whether `value` is a container {@link markOwned} recorded. */
export function isOwned(value: unknown): boolean {
  return typeof value === 'object' && value !== null && owned.has(value)
}
