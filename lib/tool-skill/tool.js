'use strict'
// The model-facing `skill` tool: loads one skill of the calling agent's view,
// as the harness's `skill` tool does (release 0.1.1-rc.2): the name is
// checked, the summary found in the agent's view and its model policy
// checked before anything is loaded, the definition loaded with the same
// view and its policy checked again; the result is `{ name, provider,
// resourceBase?, content }`, which the tool runtime checks against the
// output schema and renders as the skill content block. Errors are our own
// words.

const { isSkillName, isModelInvocable } = require('../registry.js')
const { renderSkillContent } = require('../content.js')

const TOOL_NAME = 'skill'

/** The output schema: the loaded skill as the tool returns it (the release's shape). */
const OUTPUT_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name: { type: 'string', required: true },
    provider: { type: 'string', required: true },
    resourceBase: {
      oneOf: [
        {
          type: 'object',
          additionalProperties: false,
          properties: {
            kind: { type: 'string', required: true, const: 'directory' },
            path: { type: 'string', required: true },
          },
        },
        {
          type: 'object',
          additionalProperties: false,
          properties: {
            kind: { type: 'string', required: true, const: 'url' },
            url: { type: 'string', required: true },
          },
        },
        {
          type: 'object',
          additionalProperties: false,
          properties: {
            kind: { type: 'string', required: true, const: 'opaque' },
            description: { type: 'string', required: true },
          },
        },
      ],
    },
    content: { type: 'string', required: true },
  },
}

const unavailable = (name) =>
  new Error(`no skill named "${name}" is available now: load one of the skills in the latest list of available skills`)
const userOnly = (name) => new Error(`the skill "${name}" is one a user invokes; it cannot be loaded with the \`skill\` tool`)

/** The lookup of a tool call: the calling agent's cwd and view (the agent is its own scope key). */
function lookupOf(exec) {
  return { cwd: exec?.agent?.session.header.cwd, signal: exec?.signal, scope: exec?.agent }
}

/** The `skill` tool definition (before `defineTool`) over `skills` (a getter of `ctx.skills`). */
function skillToolDefinition(skills) {
  return {
    name: TOOL_NAME,
    description:
      'Load the full instructions of an available skill by its exact name from the list of available skills. Load a skill before acting on a task that names it or that its description clearly matches.',
    parameters: {
      name: { type: 'string', required: true, description: 'The exact name of a skill in the list of available skills.' },
    },
    output: {
      schema: OUTPUT_SCHEMA,
      render: (_args, value) => [{ type: 'text', text: renderSkillContent(value) }],
    },
    async execute(args, exec) {
      const name = args?.name
      if (!isSkillName(name)) {
        throw new Error(`${JSON.stringify(name)} is not a skill name: skill names are lowercase letters and digits in words joined by single hyphens`)
      }
      const lookup = lookupOf(exec)
      const registry = skills()
      const summary = (await registry.list(lookup)).find((skill) => skill.name === name)
      if (summary === undefined) throw unavailable(name)
      if (!isModelInvocable(summary)) throw userOnly(name)
      const skill = await registry.get(name, lookup)
      if (skill === undefined) throw unavailable(name)
      if (!isModelInvocable(skill)) throw userOnly(name)
      return {
        name: skill.name,
        provider: skill.provider,
        ...(skill.resourceBase !== undefined ? { resourceBase: { ...skill.resourceBase } } : {}),
        content: skill.content,
      }
    },
    presentCall(args) {
      return { card: 'generic', title: `Load skill ${args.name}`, kind: 'read', rawInput: args.name }
    },
  }
}

module.exports = { TOOL_NAME, skillToolDefinition }
