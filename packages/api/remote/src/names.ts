/**
 * The grammar of service and method names: a letter, then letters, digits,
 * `_` or `-`. Nothing that needs escaping in a URL path, and no dots, so a
 * name can never walk out of its route.
 */
const NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/

/**
 * Names a service may not take: `events` is the stream's route (and the
 * client's `remote.events`), `then` would make a client proxy look like a
 * promise, and the prototype keys must never become lookup keys.
 */
const RESERVED_SERVICES = new Set(['events', 'then', 'constructor', 'prototype', '__proto__'])

/** Method names that would confuse a client proxy or a lookup. */
const RESERVED_METHODS = new Set(['then', 'constructor', 'prototype', '__proto__'])

/** Whether `name` is a well-formed, unreserved service name. */
export function isServiceName(name: string): boolean {
  return NAME.test(name) && !RESERVED_SERVICES.has(name)
}

/** Whether `name` is a well-formed, unreserved method name. */
export function isMethodName(name: string): boolean {
  return NAME.test(name) && !RESERVED_METHODS.has(name)
}
