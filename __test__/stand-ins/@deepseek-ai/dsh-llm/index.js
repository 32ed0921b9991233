'use strict'
// A stand-in for `@deepseek-ai/dsh-llm`, the harness's LLM package, for the
// tests that install this package the way a harness does without the
// registry: `createUserMessage(input)` gives a frozen user message with a
// fresh id, as the harness's does.

const { randomUUID } = require('node:crypto')

function createUserMessage(input) {
  return Object.freeze({ ...input, role: 'user', id: randomUUID() })
}

module.exports = { createUserMessage }
