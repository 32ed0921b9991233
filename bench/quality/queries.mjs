// The need-style query set: how a user (or a model on a user's behalf)
// states a need, each with the skills of the corpus (collections.mjs) that
// would serve it. Written from the skills' names and descriptions, without
// looking at what any search ranks first.
//
// - close: the need in words close to the skill's own;
// - paraphrased: the same kind of need in other words (synonyms, everyday
//   terms, no shared keyword required);
// - indirect: a task in which the skill helps, stated as the task.
export const QUERIES = [
  // ── close ──────────────────────────────────────────────────────────────
  { class: 'close', q: 'merge two pdf files into one', answers: ['pdf', 'pdftk-server'] },
  { class: 'close', q: 'create a word document with headings and a table of contents', answers: ['docx', 'md-to-docx'] },
  { class: 'close', q: 'write a conventional commit message for my staged changes', answers: ['conventional-commit', 'git-commit', 'commit', 'commit-message-storyteller', 'gitmoji'] },
  { class: 'close', q: 'optimize a slow SQL query', answers: ['sql-optimization', 'postgresql-optimization'] },
  { class: 'close', q: 'generate meeting minutes with action items', answers: ['meeting-minutes'] },
  { class: 'close', q: 'build an MCP server in Python', answers: ['python-mcp-server-generator', 'mcp-builder'] },
  { class: 'close', q: 'create a changelog from git commits', answers: ['changelog-generator', 'github-release'] },
  { class: 'close', q: 'set up fuzzing for a Rust crate with cargo-fuzz', answers: ['cargo-fuzz'] },
  { class: 'close', q: 'convert markdown to html', answers: ['markdown-to-html'] },
  { class: 'close', q: 'create a new skill for the agent', answers: ['skill-creator', 'writing-skills', 'skill-writer', 'microsoft-skill-creator'] },
  { class: 'close', q: 'STRIDE threat model of our system', answers: ['threat-model-analyst', 'tm7-threat-model'] },
  { class: 'close', q: 'write a custom semgrep rule', answers: ['semgrep-rule-creator', 'semgrep-rule-variant-creator'] },
  { class: 'close', q: 'multi-stage Dockerfile for a Go service', answers: ['multi-stage-dockerfile'] },
  { class: 'close', q: 'draw a flowchart as a draw.io diagram', answers: ['draw-io-diagram-generator', 'drawio', 'excalidraw-diagram-generator'] },
  { class: 'close', q: 'scan smart contracts on Solana for vulnerabilities', answers: ['solana-vulnerability-scanner'] },
  { class: 'close', q: 'parse a SARIF file from a static analysis scan', answers: ['sarif-parsing'] },
  { class: 'close', q: 'add a new language to my next-intl app', answers: ['next-intl-add-language'] },
  { class: 'close', q: 'single-cell RNA-seq clustering with scanpy', answers: ['scanpy', 'scvi-tools', 'anndata'] },
  { class: 'close', q: 'create an animated GIF for Slack', answers: ['slack-gif-creator'] },
  { class: 'close', q: 'write a postmortem for a production incident', answers: ['incident-postmortem'] },

  // ── paraphrased ────────────────────────────────────────────────────────
  { class: 'paraphrased', q: 'make a pdf from markdown', answers: ['pdf', 'md-to-docx', 'markdown-to-html', 'text-to-pdf-automation'] },
  { class: 'paraphrased', q: 'deploy my next.js app', answers: ['deploy-to-vercel', 'vercel-cli-with-tokens'] },
  { class: 'paraphrased', q: 'rewrite my CV so it fits this job ad', answers: ['tailored-resume-generator', 'technical-job-search'] },
  { class: 'paraphrased', q: 'our Microsoft cloud bill is too high, where can we save', answers: ['az-cost-optimize', 'azure-pricing'] },
  { class: 'paraphrased', q: 'is this npm package safe to add as a dependency', answers: ['supply-chain-risk-auditor', 'sandbox-npm-install', 'agent-supply-chain'] },
  { class: 'paraphrased', q: 'a test fails only sometimes and I cannot reproduce it', answers: ['bug-reproduction-brief', 'systematic-debugging'] },
  { class: 'paraphrased', q: 'someone stole the production database: what personal data is exposed', answers: ['data-breach-blast-radius'] },
  { class: 'paraphrased', q: 'translate our documentation site into Spanish', answers: ['mkdocs-translations'] },
  { class: 'paraphrased', q: 'something to hang on the wall at the conference about my research', answers: ['latex-posters', 'pptx-posters', 'canvas-design'] },
  { class: 'paraphrased', q: 'tidy up the mess in my downloads folder', answers: ['file-organizer'] },
  { class: 'paraphrased', q: 'walk a new teammate through how this repository is laid out', answers: ['code-tour', 'acquire-codebase-knowledge', 'repo-story-time', 'folder-structure-blueprint-generator'] },
  { class: 'paraphrased', q: 'click through my web app in a real browser to check it works', answers: ['webapp-testing', 'playwright-explore-website', 'scoutqa-test', 'chrome-devtools', 'playwright-generate-test'] },
  { class: 'paraphrased', q: 'can an attacker learn the key from how long my crypto code takes', answers: ['constant-time-analysis', 'constant-time-testing'] },
  { class: 'paraphrased', q: 'ideas for what to call my startup and which web addresses are free', answers: ['domain-name-brainstormer'] },
  { class: 'paraphrased', q: 'move our Oracle database to Postgres', answers: ['creating-oracle-to-postgres-master-migration-plan', 'migrating-oracle-to-postgres-stored-procedures', 'reviewing-oracle-to-postgres-migration', 'planning-oracle-to-postgres-migration-integration-testing', 'creating-oracle-to-postgres-migration-integration-tests', 'scaffolding-oracle-to-postgres-migration-test-project', 'creating-oracle-to-postgres-migration-bug-report'] },
  { class: 'paraphrased', q: 'draw me a picture from a text prompt', answers: ['generate-image', 'nano-banana-pro-openrouter', 'dreamstudio-automation', 'canvas-design'] },
  { class: 'paraphrased', q: 'the CI checks on my pull request are red, fix them', answers: ['gh-fix-ci', 'iterate-pr'] },
  { class: 'paraphrased', q: 'leaked API keys in our git history', answers: ['secret-scanning'] },
  { class: 'paraphrased', q: 'make the photo sharper and clearer', answers: ['image-enhancer'] },
  { class: 'paraphrased', q: 'spin up a consistent development environment in a container for the team', answers: ['devcontainer-setup'] },
  { class: 'paraphrased', q: 'my react app renders too often and feels sluggish', answers: ['vercel-react-best-practices'] },
  { class: 'paraphrased', q: 'save a video from youtube to my laptop', answers: ['youtube-downloader'] },
  { class: 'paraphrased', q: 'explain which machine learning features drove this prediction', answers: ['shap'] },
  { class: 'paraphrased', q: 'tell me if this text or voice clip was made by AI', answers: ['resemble-detect', 'winston-ai-automation'] },
  { class: 'paraphrased', q: 'put our slides online as a web page anyone can open', answers: ['publish-to-pages'] },

  // ── indirect ───────────────────────────────────────────────────────────
  { class: 'indirect', q: 'the quarterly numbers are in an excel workbook and I need a summary sheet with totals per region', answers: ['xlsx'] },
  { class: 'indirect', q: 'tell the whole company about the reorganisation in this week\'s newsletter', answers: ['internal-comms'] },
  { class: 'indirect', q: 'I am applying for NIH funding next month', answers: ['research-grants'] },
  { class: 'indirect', q: 'my promotion case is due and I cannot remember what I shipped this year', answers: ['brag-sheet', 'performance-review-writer'] },
  { class: 'indirect', q: 'I have to give a talk on our results at a conference next week', answers: ['pptx', 'scientific-slides', 'presentation-creator', 'latex-posters', 'pptx-posters'] },
  { class: 'indirect', q: 'predict next month\'s sales from two years of daily figures', answers: ['timesfm-forecasting', 'statsmodels', 'aeon'] },
  { class: 'indirect', q: 'find what has been published on CRISPR off-target effects', answers: ['literature-review', 'research-lookup', 'paper-lookup', 'bgpt-paper-search', 'citation-management', 'perplexity-search'] },
  { class: 'indirect', q: 'shoebox of receipts to sort before filing taxes', answers: ['invoice-organizer'] },
  { class: 'indirect', q: 'we got our first enterprise customer and the contract is signed, what now', answers: ['gtm-enterprise-onboarding'] },
  { class: 'indirect', q: 'before I tell the user it is fixed I want proof the tests pass', answers: ['verification-before-completion'] },
  { class: 'indirect', q: 'a reviewer left lots of comments on my PR and I need to work through them', answers: ['gh-address-comments', 'receiving-code-review', 'copilot-pr-autopilot', 'iterate-pr'] },
  { class: 'indirect', q: 'our app crashes on launch after we moved to the new Expo SDK', answers: ['expo-upgrade'] },
  { class: 'indirect', q: 'a security researcher emailed us a bug bounty report, is it real', answers: ['vulnerability-triage-brocards', 'fp-check', 'trailmark-finding-triage'] },
  { class: 'indirect', q: 'the board meeting is on Thursday and I need the deck and the investor update', answers: ['gtm-board-and-investor-communication'] },
  { class: 'indirect', q: 'pick three random winners from the giveaway sign-up sheet', answers: ['raffle-winner-picker'] },
]
