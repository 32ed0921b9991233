// The public skill collections the need-style search evaluation runs on
// (bench/quality/README.md). Each is pinned to a commit; `corpus.mjs`
// copies every `<dir>/SKILL.md` of it into one folder per collection (a
// custom root each, in this order: the first root wins a duplicate name).
//
// Nothing of these collections is committed here: their licences differ
// (MIT, Apache-2.0, CC BY-SA 4.0, and some with no licence at all), so the
// corpus is assembled on demand into the git-ignored bench/quality/.corpus.
export const COLLECTIONS = [
  { repo: 'anthropics/skills', commit: '9d2f1ae187231d8199c64b5b762e1bdf2244733d' },
  { repo: 'github/awesome-copilot', commit: 'ab7544d03d4c49fdd07f5958e1888ad39c4118e2' },
  { repo: 'obra/superpowers', commit: '44c9b2d6e889982ac18c27d05a19fefe335194e1' },
  { repo: 'openai/skills', commit: 'f6b8344b4e519f964d8884d6f60b57991f3f4993' },
  { repo: 'vercel-labs/agent-skills', commit: 'b9c8ee0643d87d3c5a953d1e22382ff2ead39229' },
  { repo: 'getsentry/skills', commit: '6abccd60c704f669423d6a06ff0809fa39513ce8' },
  { repo: 'expo/skills', commit: '472d040092900dc8bbf84dc7efb0c90abff77a0d' },
  { repo: 'trailofbits/skills', commit: '293fb74c3151cceda32a85a545fe8acd67f8f5c6' },
  { repo: 'K-Dense-AI/claude-scientific-skills', commit: '899a51bfbd63218153b272c9459dcb4a7ae88da6' },
  // The noise case: ~830 templated "Automate X tasks via Rube MCP" skills.
  { repo: 'ComposioHQ/awesome-claude-skills', commit: 'f2b5e29bc315f04c8e09591ba275f4c4f7d4b8fe' },
]
