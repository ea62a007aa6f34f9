import type { SettingsSchema } from './types.ts'

type AnySchema = SettingsSchema<any>

/** A lazy schema's inner schema, built on first use as schemastery itself does. */
export function unlazy(node: AnySchema): AnySchema {
  while (node.type === 'lazy') {
    if (!node.inner || typeof node.inner !== 'function') {
      node.inner = node.builder!()
      node.inner!.meta = { ...node.meta, ...node.inner!.meta }
    }
    node = node.inner!
  }
  return node
}

/** The child schemas of a node, in declaration order. */
export function childrenOf(node: AnySchema): AnySchema[] {
  const children: AnySchema[] = []
  if (node.sKey) children.push(node.sKey)
  if (node.inner && typeof node.inner === 'function') children.push(node.inner)
  if (node.list) children.push(...node.list)
  if (node.dict) children.push(...Object.values(node.dict))
  return children
}
