import Schema from 'schemastery'

/** The e2e specs' two example namespaces: a web search with nested objects, secrets and a list, and an assistant with a dict. */
export const SEARCH = Schema.object({
  engine: Schema.union(['bing', 'google', 'duckduckgo']).default('bing').description('Search engine.'),
  limit: Schema.natural().max(50).default(10).description('Results per query.'),
  filters: Schema.object({
    safe: Schema.boolean().default(true),
    region: Schema.string().default('us').description('Region code.'),
  }),
  apiKey: Schema.string().role('secret').description('API key of the engine.'),
  mirrors: Schema.array(Schema.object({ url: Schema.string().role('link'), token: Schema.string().role('secret') })).default([]),
}).description('Web search.')

/** The assistant namespace of the e2e deployments. */
export const ASSISTANT = Schema.object({
  model: Schema.string().default('small').description('Model id.'),
  providers: Schema.dict(Schema.object({ endpoint: Schema.string() })).default({}),
})
