import { defineConfig } from 'vite'
import { pageConfig } from './src/build.ts'

/** `vite build` / `vite dev` from this folder use the same settings as `buildPage`. */
export default defineConfig(pageConfig())
