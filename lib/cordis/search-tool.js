'use strict'
// The search tool plugin: a model-facing `skill_search` tool that finds
// skills by what they do, in the calling agent's view, for harnesses whose
// catalog is budgeted (a left-out skill stays reachable). Shaped like the
// harness's `skill` tool plugin (`name`, `inject`, `Config`, `apply`); the
// tool is built with the harness's `defineTool` from `@deepseek-ai/dsh-tools`
// (an optional peer, loaded when the plugin is applied) and registered
// through `ctx.tools`.


/** The tool's name (what a catalog's `searchTool` option names). */
const SEARCH_TOOL_NAME = 'skill_search'
const TOOLS_PACKAGE = '@deepseek-ai/dsh-tools'
const DEFAULT_LIMIT = 8
const MAX_LIMIT = 25
const DEFAULT_DESCRIPTION_MAX_LENGTH = 200
/** Longest query searched (the rest is cut: a query is a few words). */
const MAX_QUERY_LENGTH = 1000

/** `text` on one line, cut to `max` UTF-16 units with `...` (a pair never split). */
function cut(text, max) {
  const line = text.replace(/\s+/g, ' ').trim()
  if (line.length <= max) return line
  let end = max - 3
  const code = line.charCodeAt(end - 1)
  if (code >= 0xd800 && code <= 0xdbff) end -= 1
  return `${line.slice(0, end)}...`
}

/** The query as the answer quotes it. */
function quoted(query) {
  return JSON.stringify(cut(query, 200))
}

/** The tool's answer for the model (our own words). */
function renderAnswer(value) {
  if (value.skills.length === 0) {
    const retry = value.suggestion === undefined ? '' : ` Did you mean ${quoted(value.suggestion)}?`
    return `No skill matches ${quoted(value.query)}.${retry} Try other words for the task, or go on without a skill.`
  }
  const shown = value.skills.length
  const head =
    shown === value.total
      ? `${shown === 1 ? '1 skill matches' : `${shown} skills match`} ${quoted(value.query)}, best first:`
      : `${shown} of the ${value.total} skills matching ${quoted(value.query)}, best first:`
  // Plain text: descriptions as written (no markup to escape, so `Q&A` stays `Q&A`).
  const lines = value.skills.map((skill) => `- \`${skill.name}\`: ${skill.description}`)
  return [head, ...lines, 'Load the one that fits with the `skill` tool (pass its exact name) before acting on the task.'].join('\n')
}

let toolsPackage
/** `defineTool` of a loaded `@deepseek-ai/dsh-tools` (CommonJS or an ES module namespace). */
function fromModule(loaded) {
  const defineTool = loaded?.defineTool ?? loaded?.default?.defineTool
  if (typeof defineTool !== 'function') throw new TypeError(`${TOOLS_PACKAGE} does not export defineTool`)
  return (toolsPackage = { defineTool })
}

/** Whether `error` says that `@deepseek-ai/dsh-tools` itself is not installed. */
function isMissing(error) {
  const code = error && error.code
  return (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND') && String(error.message).includes(`'${TOOLS_PACKAGE}'`)
}

/** `@deepseek-ai/dsh-tools`, loaded once: `require` (CommonJS, or an ES module where Node requires them), else `import()`. */
async function loadTools() {
  if (toolsPackage !== undefined) return toolsPackage
  try {
    try {
      return fromModule(require(TOOLS_PACKAGE))
    } catch (error) {
      if (error && (error.code === 'ERR_REQUIRE_ESM' || error.code === 'ERR_REQUIRE_ASYNC_MODULE')) {
        return fromModule(await import(TOOLS_PACKAGE))
      }
      throw error
    }
  } catch (error) {
    if (!isMissing(error)) throw error
    const missing = new Error(
      `the skill search tool needs ${TOOLS_PACKAGE} (the harness's tool package, for defineTool): load this plugin in a harness that has it`,
      { cause: error },
    )
    missing.code = 'ERR_DSH_TOOLS_MISSING'
    throw missing
  }
}

/** The plugin's configuration, checked again after the schema (a config can bypass it). */
function settings(config) {
  const limit = config.limit ?? DEFAULT_LIMIT
  const descriptionMaxLength = config.descriptionMaxLength ?? DEFAULT_DESCRIPTION_MAX_LENGTH
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw new RangeError(`skill search tool: limit must be an integer from 1 to ${MAX_LIMIT} (got ${String(limit)})`)
  }
  if (!Number.isInteger(descriptionMaxLength) || descriptionMaxLength < 3) {
    throw new RangeError(`skill search tool: descriptionMaxLength must be an integer >= 3 (got ${String(descriptionMaxLength)})`)
  }
  return { limit, descriptionMaxLength, embedder: config.embedder }
}

/** The tool definition (before `defineTool`), searching `skills` (`ctx.skills`). */
function searchToolDefinition(skills, config) {
  const { limit, descriptionMaxLength, embedder } = settings(config)
  return {
    name: SEARCH_TOOL_NAME,
    description:
      'Find skills by what they do. The skill catalog may list only some of the available skills: when none of ' +
      'those listed fits the task, describe the task in a few words here; the answer names the best matching ' +
      'skills with a short description. Then load the one that fits with the `skill` tool.',
    parameters: {
      query: { type: 'string', required: true, description: 'A few words about the task or the kind of skill needed; a skill name works too.' },
      limit: { type: 'integer', description: `Most skills to list, 1 to ${MAX_LIMIT} (default ${limit}).` },
    },
    output: {
      schema: {
        type: 'object',
        additionalProperties: false,
        properties: {
          query: { type: 'string', required: true },
          total: { type: 'integer', required: true },
          skills: {
            type: 'array',
            required: true,
            items: {
              type: 'object',
              additionalProperties: false,
              properties: { name: { type: 'string', required: true }, description: { type: 'string', required: true } },
            },
          },
          suggestion: { type: 'string' },
        },
      },
      render: (_args, value) => [{ type: 'text', text: renderAnswer(value) }],
    },
    async execute(args, exec) {
      const query = args?.query
      if (typeof query !== 'string' || query.trim() === '') {
        throw new Error('skill_search needs a query: a few words about the task')
      }
      let count = args.limit ?? limit
      if (typeof count !== 'number' || !Number.isFinite(count)) throw new Error('skill_search: limit must be a number')
      count = Math.min(MAX_LIMIT, Math.max(1, Math.trunc(count)))
      // The agent is its own scope key: the search sees the registry exactly
      // as this agent's composition does, as the `skill` tool's lookups do.
      const lookup = { cwd: exec?.agent?.session.header.cwd, signal: exec?.signal, scope: exec?.agent }
      const text = query.length > MAX_QUERY_LENGTH ? query.slice(0, MAX_QUERY_LENGTH) : query
      const results = await skills.search(text, { ...lookup, limit: count, ...(embedder === undefined ? {} : { embedder }) })
      const value = {
        query: text,
        total: results.total,
        skills: results.skills.map((skill) => ({ name: skill.name, description: cut(skill.description, descriptionMaxLength) })),
      }
      if (results.suggestion !== undefined) value.suggestion = results.suggestion
      return value
    },
    presentCall(args) {
      const query = typeof args?.query === 'string' ? args.query : ''
      return { card: 'generic', title: `Search skills: ${cut(query, 80)}`, kind: 'search', rawInput: query }
    },
  }
}

/**
 * The plugin module for one framework copy: `name` (`skill-search-tool`),
 * `inject` (`tools`, `skills`), `Config` and `apply`.
 */
function createSearchToolPlugin({ Schema }) {
  const Config = Schema.object({
    limit: Schema.natural()
      .min(1)
      .max(MAX_LIMIT)
      .default(DEFAULT_LIMIT)
      .description('Skills listed per search when the model does not say how many.'),
    descriptionMaxLength: Schema.natural()
      .min(3)
      .default(DEFAULT_DESCRIPTION_MAX_LENGTH)
      .description('Description limit (UTF-16 code units) of each skill in an answer.'),
    // A function or an object, passed on as is (the registry checks it).
    embedder: Schema.any().description(
      "Fuse meaning with words in this tool's searches: 'local', { model: folder }, or a function (texts, { signal }) => Promise<Float32Array[]> with a string id (default: the skills service's own).",
    ),
  })
  return {
    name: 'skill-search-tool',
    inject: ['tools', 'skills'],
    Config,
    toolName: SEARCH_TOOL_NAME,
    async apply(ctx, config = {}) {
      const definition = searchToolDefinition(ctx.skills, config)
      const { defineTool } = await loadTools()
      ctx.tools.register(defineTool(definition))
    },
  }
}

module.exports = { SEARCH_TOOL_NAME, createSearchToolPlugin, searchToolDefinition, renderAnswer }
