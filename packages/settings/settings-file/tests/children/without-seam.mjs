// `--import` this after tsx: registered last, its hooks run first (see without-seam-hooks.mjs).
import { register } from 'node:module'

register(new URL('./without-seam-hooks.mjs', import.meta.url))
