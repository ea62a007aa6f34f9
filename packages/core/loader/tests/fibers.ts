import type { Context } from 'cordis'

/**
 * Resolve once every fiber under `ctx` has finished loading or unloading,
 * fibers that start meanwhile included: what a deployment plugged (or
 * unplugged) has then applied (or been disposed), or failed.
 */
export async function fibersSettled(ctx: Context): Promise<void> {
  for (;;) {
    const busy = [...ctx.registry.values()].flatMap((runtime) => [...runtime.fibers]).filter((fiber) => fiber.inertia)
    if (!busy.length) return
    await Promise.allSettled(busy.map((fiber) => fiber.await()))
  }
}
