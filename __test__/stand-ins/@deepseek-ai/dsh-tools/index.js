'use strict'
// A stand-in for `@deepseek-ai/dsh-tools`, the harness's tool package (on npm
// since 0.1.0-rc.8; the tests run offline). `defineTool(definition)` checks the
// shape the harness's tools have (name, description, parameters, output
// `{ schema, render }`, `execute(args, exec)`, optional `presentCall`) and
// returns the definition; `ToolRegistry` is what `ctx.tools` does with it in
// a test: `register(tool)` (a disposer), `get(name, agent)` (the very
// definition registered), and `call(name, args, exec)`, which checks the
// arguments against `parameters`, runs `execute`, checks the value against
// `output.schema` (`INVALID_TOOL_OUTPUT`) and renders it.

const TYPES = new Set(['string', 'integer', 'number', 'boolean', 'array', 'object'])

class ToolError extends Error {
  constructor(code, message) {
    super(message)
    this.code = code
  }
}

function defineTool(definition) {
  if (definition === null || typeof definition !== 'object') throw new TypeError('defineTool: a definition object is needed')
  const { name, description, parameters, output, execute, presentCall } = definition
  if (typeof name !== 'string' || !/^[a-z][a-z0-9_]*$/.test(name)) throw new TypeError(`defineTool: bad tool name ${JSON.stringify(name)}`)
  if (typeof description !== 'string' || description === '') throw new TypeError(`defineTool: ${name} needs a description`)
  if (parameters === null || typeof parameters !== 'object') throw new TypeError(`defineTool: ${name} needs parameters`)
  for (const [key, spec] of Object.entries(parameters)) {
    if (!TYPES.has(spec?.type)) throw new TypeError(`defineTool: ${name}.${key} has no known type`)
    if (spec.required !== undefined && typeof spec.required !== 'boolean') throw new TypeError(`defineTool: ${name}.${key}.required is not a boolean`)
    if (typeof spec.description !== 'string') throw new TypeError(`defineTool: ${name}.${key} needs a description`)
  }
  if (typeof output?.render !== 'function' || output.schema === null || typeof output.schema !== 'object') {
    throw new TypeError(`defineTool: ${name} needs output { schema, render }`)
  }
  if (typeof execute !== 'function') throw new TypeError(`defineTool: ${name} needs execute(args, exec)`)
  if (presentCall !== undefined && typeof presentCall !== 'function') throw new TypeError(`defineTool: ${name}.presentCall is not a function`)
  return definition
}

function typeOk(type, value) {
  switch (type) {
    case 'string':
      return typeof value === 'string'
    case 'integer':
      return Number.isInteger(value)
    case 'number':
      return typeof value === 'number'
    case 'boolean':
      return typeof value === 'boolean'
    case 'array':
      return Array.isArray(value)
    case 'object':
      return value !== null && typeof value === 'object' && !Array.isArray(value)
    default:
      return true
  }
}

/** Checks `value` against a schema of the harness's shape; the first problem, or undefined. */
function problem(schema, value, at) {
  if (schema.type !== undefined && !typeOk(schema.type, value)) return `${at} is not ${schema.type}`
  if (schema.type === 'object' && schema.properties) {
    for (const [key, spec] of Object.entries(schema.properties)) {
      if (value[key] === undefined) {
        if (spec.required) return `${at}.${key} is missing`
        continue
      }
      const p = problem(spec, value[key], `${at}.${key}`)
      if (p) return p
    }
    if (schema.additionalProperties === false) {
      for (const key of Object.keys(value)) if (!Object.hasOwn(schema.properties, key)) return `${at}.${key} is not allowed`
    }
  }
  if (schema.type === 'array' && schema.items) {
    for (let i = 0; i < value.length; i++) {
      const p = problem(schema.items, value[i], `${at}[${i}]`)
      if (p) return p
    }
  }
  return undefined
}

class ToolRegistry {
  #tools = new Map()

  register(tool) {
    if (this.#tools.has(tool.name)) throw new Error(`tool ${tool.name} is already registered`)
    this.#tools.set(tool.name, tool)
    return () => {
      if (this.#tools.get(tool.name) === tool) this.#tools.delete(tool.name)
    }
  }

  get(name, _agent) {
    return this.#tools.get(name)
  }

  /** What the model sees of the tools: name, description and parameters. */
  schemas() {
    return [...this.#tools.values()].map(({ name, description, parameters }) => ({ name, description, parameters }))
  }

  async call(name, args, exec) {
    const tool = this.#tools.get(name)
    if (tool === undefined) throw new ToolError('TOOL_NOT_FOUND', `no tool ${name}`)
    const argProblem = problem({ type: 'object', properties: tool.parameters, additionalProperties: false }, args, 'args')
    if (argProblem) throw new ToolError('INVALID_TOOL_INPUT', argProblem)
    let value
    try {
      value = await tool.execute(args, exec)
    } catch (error) {
      throw new ToolError('TOOL_FAILED', error instanceof Error ? error.message : String(error))
    }
    const outProblem = problem(tool.output.schema, value, 'value')
    if (outProblem) throw new ToolError('INVALID_TOOL_OUTPUT', outProblem)
    return { view: tool.presentCall?.(args), content: tool.output.render(args, value) }
  }
}

module.exports = { defineTool, ToolRegistry, ToolError }
