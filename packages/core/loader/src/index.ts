export { DeploymentLoader, type DeploymentLoaderOptions } from './loader.ts'
export { deploymentFacts, pluginVersion, provideFacts, specifiersOf, type DeploymentFacts } from './facts.ts'
export { importPlugin, processConditions, resolveSpecifier, type ResolveOptions } from './import-plugin.ts'
export { InterpolationError, interpolate } from './interpolate.ts'
export { DeploymentError, planData, planDeployment, planEntries, type Entry, type PluginEntry, type ScopeEntry } from './plan.ts'
export { runDeployment, type Deployment, type RunOptions } from './run.ts'
export { TypeScriptLoaderError } from './typescript.ts'
/** How the deployment's console shows a logged value (errors with name, code, stack and causes), for tools that print as it does. */
export { formatLogValue } from './log-format.ts'
