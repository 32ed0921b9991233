'use strict'
// The command table and the option table of `dsh-skills`: adding a command or
// a flag is one entry here plus its handler (a module of `commands/`).

const fs = require('node:fs')
const path = require('node:path')

/** The example workspace of `demo`: part of a source checkout, not of the published package. */
const EXAMPLE_WORKSPACE = path.resolve(__dirname, '..', '..', 'examples', 'workspace')

/**
 * Every option. `key` is the property in the parsed options; `dir` marks a
 * directory option (`'error'`: must exist; `'warn'`: a warning when missing);
 * `choices` lists the values a string option takes; `alias` is a second
 * short form.
 */
const OPTIONS = {
  cwd: {
    type: 'string',
    value: 'DIR',
    dir: 'error',
    help: 'directory to look from (default: the current one); its project root is the nearest ancestor holding .git',
  },
  'dsh-home': {
    type: 'string',
    value: 'DIR',
    dir: 'warn',
    help: 'user DSH home, skills in DIR/skills (default: $DSH_HOME or ~/.dsh)',
  },
  'agents-home': {
    type: 'string',
    value: 'DIR',
    dir: 'warn',
    help: 'user agents home, skills in DIR/skills (default: $DSH_AGENTS_HOME or ~/.agents)',
  },
  'skill-dir': {
    type: 'string',
    value: 'DIR',
    multiple: true,
    key: 'skillDirs',
    dir: 'warn',
    help: 'extra skill root (source "custom"); repeatable',
  },
  'bundled-dir': {
    type: 'string',
    value: 'DIR',
    dir: 'warn',
    help: 'skills shipped with the deployment (default: $DSH_BUNDLED_SKILL_DIR when set)',
  },
  'nested-roots': {
    type: 'boolean',
    help: 'monorepos: also the .dsh/skills and .agents/skills of every directory from --cwd up to the project root, nearest first',
  },
  compat: {
    type: 'string',
    value: 'LIST',
    multiple: true,
    key: 'compat',
    help: 'compatibility roots, comma-separated: claude (<project>/.claude/skills and ~/.claude/skills), codex ($CODEX_HOME/skills or ~/.codex/skills); repeatable',
  },
  'provider-name': { type: 'string', value: 'NAME', help: 'name of the local provider (default: local)' },
  'no-default-roots': {
    type: 'boolean',
    help: 'scan only --skill-dir, --bundled-dir and --compat roots (not the project .dsh/.agents roots, the user roots or $DSH_BUNDLED_SKILL_DIR)',
  },
  'max-length': { type: 'string', value: 'N', help: 'catalog description limit (default 500, minimum 3)' },
  budget: {
    type: 'string',
    value: 'N',
    help: 'most characters the catalog entries may take: descriptions are shortened fairly, then shown by name only, then skills left out with a count (default: no budget)',
  },
  'search-tool': {
    type: 'string',
    value: 'NAME',
    help: "name the harness's search tool (e.g. skill_search) in the last line when --budget leaves skills out",
  },
  limit: { type: 'string', value: 'N', help: 'most skills to show (default 10)' },
  embed: {
    type: 'string',
    value: 'MODEL',
    help: "fuse meaning with words: 'local' (the model folder in $DSH_SKILL_EMBED_MODEL) or a model folder (node scripts/embed-model.mjs makes one); skill vectors are cached, so only the first run embeds every skill",
  },
  pin: {
    type: 'string',
    value: 'NAME',
    multiple: true,
    key: 'pinned',
    help: 'keep skill NAME\'s full description under --budget (first pinned has the highest priority); repeatable',
  },
  off: {
    type: 'string',
    value: '[SOURCE:]NAME',
    override: 'off',
    help:
      'switch skill NAME off (a glob with * matches several; SOURCE:NAME only the copy from that source, so a lower-ranked copy wins); repeatable, a later flag wins',
  },
  'user-only': {
    type: 'string',
    value: '[SOURCE:]NAME',
    override: 'user-only',
    help: 'only users may invoke NAME: left out of the model catalog; repeatable',
  },
  'model-only': {
    type: 'string',
    value: '[SOURCE:]NAME',
    override: 'model-only',
    help: 'only the model may invoke NAME; repeatable',
  },
  on: {
    type: 'string',
    value: '[SOURCE:]NAME',
    override: 'on',
    help: 'NAME as declared again, undoing an earlier --off, --user-only or --model-only; repeatable',
  },
  catalog: { type: 'boolean', help: 'print each new catalog in full too' },
  poll: { type: 'boolean', help: 'poll instead of native filesystem events' },
  json: { type: 'boolean', help: 'machine-readable output' },
  quiet: { type: 'boolean', short: 'q', help: 'do not print warnings, hints or the summary on stderr' },
  verbose: {
    type: 'boolean',
    help: 'print every warning on stderr (default: a count of each kind after the output)',
  },
  color: {
    type: 'string',
    value: 'WHEN',
    choices: ['auto', 'always', 'never'],
    help: 'colour the output: auto (on a terminal, unless NO_COLOR is set), always or never',
  },
  help: { type: 'boolean', short: 'h', help: 'show help (for a command: dsh-skills help COMMAND)' },
  version: { type: 'boolean', short: 'v', alias: 'V', help: 'show the package version' },
}

/** Options every command accepts. */
const GLOBAL = ['color', 'help', 'version']

/** The options that choose the skill roots. */
const ROOTS = [
  'cwd',
  'dsh-home',
  'agents-home',
  'skill-dir',
  'bundled-dir',
  'nested-roots',
  'compat',
  'provider-name',
  'no-default-roots',
]

/** What `--compat` accepts. */
const COMPAT_ROOTS = ['claude', 'codex']

/** The options that add override rules, in command-line order. */
const OVERRIDES = ['off', 'user-only', 'model-only', 'on']

/** The options that lay out the catalog. */
const LAYOUT = ['max-length', 'budget', 'pin', 'search-tool']

/** A command's handler, loaded when the command runs. */
const handler = (file) => (...args) => require(`./commands/${file}.js`).run(...args)

const COMMANDS = {
  list: {
    summary: 'skills that won their name: name, source, provider, invocation',
    details:
      'After the table, one line on stderr counts what discovery found (loaded,\n' +
      'shadowed, broken, ignored) and points at doctor when a skill is broken or\n' +
      'none is listed; hints name skill folders of other tools that are not read.',
    options: [...ROOTS, ...OVERRIDES, 'json', 'quiet', 'verbose'],
    json: 'the snapshot: { skills, complete }',
    examples: ['dsh-skills list', 'dsh-skills list --cwd ~/src/app --compat claude', "dsh-skills list --skill-dir ./skills --json"],
    run: handler('list'),
  },
  catalog: {
    summary: 'the model-facing catalog message and its sha256 digest (characters that hide or reorder text shown escaped; --json is byte-exact)',
    options: [...ROOTS, ...OVERRIDES, ...LAYOUT, 'json', 'quiet', 'verbose'],
    json: '{ complete, message, entries, digest } (and report with --budget), byte-exact',
    examples: ['dsh-skills catalog', "dsh-skills catalog --budget 8000 --pin code-review --pin 'team-*'", 'dsh-skills catalog --off deploy-prod --json'],
    run: handler('catalog'),
  },
  search: {
    args: 'QUERY',
    summary: 'the model-invocable skills a query is about, best first (as search() and the search tool rank them); exits 1 when none matches',
    details:
      'QUERY is free text (several words may be given); a skill named exactly by it comes\n' +
      'first, then by relevance of name and description. When nothing matches: a\n' +
      'did-you-mean.',
    options: [...ROOTS, ...OVERRIDES, 'limit', 'embed', 'json', 'quiet', 'verbose'],
    json: '{ query, skills, total, complete, suggestion? }',
    examples: ['dsh-skills search deploy to kubernetes', "dsh-skills search 'fill pdf forms' --limit 3", 'dsh-skills search review --json'],
    run: handler('search'),
  },
  show: {
    args: 'NAME',
    summary: 'the `skill` tool result for NAME',
    options: [...ROOTS, ...OVERRIDES, 'json', 'quiet'],
    json: '{ definition, toolResult }',
    examples: ['dsh-skills show release-notes', 'dsh-skills show release-notes --json', 'dsh-skills show Deploy_Prod   (a broken folder: which file, why, the fix)'],
    run: handler('show'),
  },
  explain: {
    args: 'NAME',
    summary: 'which copy of skill NAME won and why each other one lost: a lower rank, the same rank but later in order, switched off, or the same skill (identical files: no conflict)',
    details:
      'The copies are the files of the roots the options choose, ranked by root:\n' +
      'project .dsh/skills (100) and .agents/skills (200), --skill-dir (300), the user\n' +
      'roots (400, 500), --bundled-dir (600); nested and --compat roots between them.\n' +
      'The lower rank wins; in one root, the first entry in order. --off, --user-only,\n' +
      '--model-only and --on apply before the merge.',
    options: [...ROOTS, ...OVERRIDES, 'json', 'quiet', 'verbose'],
    json: '{ name, complete, winner, losers }',
    examples: ['dsh-skills explain code-review', 'dsh-skills explain code-review --off project-dsh:code-review', 'dsh-skills explain code-review --json'],
    run: handler('explain'),
  },
  doctor: {
    summary: 'every entry considered: loaded, shadowed (and by what), broken (why, with a fix hint) or ignored (not a skill); exits 1 when a skill is broken',
    details:
      'Ignored, not counted as problems: folders without SKILL.md (node_modules/, .git/, ...),\n' +
      'dot-directories, and flat .md files without frontmatter (README.md). Broken: a\n' +
      'SKILL.md, or a flat .md file with frontmatter, that does not load.\n' +
      'With --budget: a warning (not a failure) when the budget cuts the catalog.\n' +
      'With --off, --user-only, --model-only, --on: what each flag does to a loaded skill.',
    options: [...ROOTS, ...OVERRIDES, ...LAYOUT, 'json', 'quiet'],
    json: 'the diagnosis, each file with its verdict and hints',
    examples: ['dsh-skills doctor', 'dsh-skills doctor --skill-dir ~/collections/skills', 'dsh-skills doctor --budget 8000'],
    run: handler('doctor'),
  },
  watch: {
    summary: 'say what changed each time the skills change, until Ctrl-C',
    details:
      'One line per change: skills added, changed (catalog entry), removed, broken (with\n' +
      'the file and why) and body changed (the file changed, its catalog entry did not).\n' +
      'With --catalog, each new catalog is printed in full as well.\n' +
      'Ctrl-C stops it with exit code 130 (SIGTERM: 143).',
    options: [...ROOTS, ...OVERRIDES, ...LAYOUT, 'catalog', 'poll', 'json', 'quiet', 'verbose'],
    json: 'one JSON object per line and change: { kind, digest, added, removed, changed, broken, bodyChanged }',
    examples: ['dsh-skills watch', 'dsh-skills watch --catalog --budget 8000', 'dsh-skills watch --json --poll'],
    run: handler('watch'),
  },
  demo: {
    summary: 'tour of examples/workspace (source checkout only): list, catalog and doctor with the example\'s own roots; exits 0',
    options: ['json'],
    json: '{ config, snapshot, catalog, diagnosis }',
    examples: ['dsh-skills demo', 'npm run demo'],
    // Listed only where it works: a source checkout.
    hidden: !fs.existsSync(path.join(EXAMPLE_WORKSPACE, '.agents')),
    run: handler('demo'),
  },
  completion: {
    args: 'SHELL',
    summary: 'a completion script for bash, zsh or fish, printed on stdout',
    details:
      'bash: eval "$(dsh-skills completion bash)" in ~/.bashrc\n' +
      'zsh:  eval "$(dsh-skills completion zsh)" in ~/.zshrc (after compinit)\n' +
      'fish: dsh-skills completion fish > ~/.config/fish/completions/dsh-skills.fish',
    options: [],
    examples: ['dsh-skills completion bash', 'dsh-skills completion fish > ~/.config/fish/completions/dsh-skills.fish'],
    run: handler('completion'),
  },
  help: {
    args: '[COMMAND]',
    summary: 'this help, or the help of one command',
    options: [],
    examples: ['dsh-skills help', 'dsh-skills help doctor'],
  },
}

module.exports = { OPTIONS, GLOBAL, ROOTS, COMPAT_ROOTS, OVERRIDES, LAYOUT, COMMANDS, EXAMPLE_WORKSPACE }
