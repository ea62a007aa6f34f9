/**
 * The boot bench's shapes: each document is about the size asked, is the
 * shape it says, and is accepted whole by the schema its plugin registers
 * (a refused document would make the provider boot on defaults, and fast).
 */
import { describe, expect, it } from 'vitest'
import { load } from 'js-yaml'
import { SHAPE_NAMESPACE, SHAPES, shapeDocument, shapeSchema } from './shapes.ts'

const BYTES = 256 * 1024

describe('boot bench shapes', () => {
  it.each(SHAPES)('%s: about the size asked, accepted unchanged by its schema', (shape) => {
    const text = shapeDocument(shape, BYTES)
    expect(Buffer.byteLength(text)).toBeGreaterThanOrEqual(BYTES * 0.97)
    expect(Buffer.byteLength(text)).toBeLessThan(BYTES * 1.05)
    const data = (load(text) as Record<string, unknown>)[SHAPE_NAMESPACE]
    expect(shapeSchema(shape)(data)).toEqual(data)
  })

  it('writes each shape as it names it', () => {
    const data = (shape: (typeof SHAPES)[number]) => (load(shapeDocument(shape, BYTES)) as Record<string, any>)[SHAPE_NAMESPACE]
    expect(data('block-list').items[0]).toEqual({ id: 1, name: 'item 1 of the list' })
    expect(shapeDocument('flow-lists', BYTES)).toMatch(/^ {4}g00001: \[.*\]$/m)
    expect(Object.keys(data('map-10k').keys)).toHaveLength(10_000)
    let depth = 0
    for (let node = data('deep').tree.t0; node && typeof node === 'object' && !('name' in node); node = node.n0) depth++
    expect(depth).toBe(8)
  })

  it('gives no two samples the same bytes', () => {
    expect(shapeDocument('deep', 4096, 1)).not.toBe(shapeDocument('deep', 4096, 2))
  })
})
