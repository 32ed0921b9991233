'use strict'
// The local filesystem provider as Cordis plugins, built for one framework
// copy: `SkillLocal` (the earlier release's `skill-local`, provider `local`)
// and the filesystem module (release 0.1.1-rc.2's `skill-filesystem`,
// provider `filesystem`). Both register `new Provider(ctx, control, config)`
// through `ctx.skills` and turn `fs/observed` writes and edits into
// synchronous invalidations.

const { LocalSkillProvider } = require('../local.js')
const { FileSystemSkillProvider } = require('./filesystem-provider.js')
const { SERVICE_NAME, createLogger, onObserved, overrideRuleSchema } = require('./util.js')

/** The plugin config schema: every provider option; `providerName` defaults to `defaultName`. */
function providerConfig(Schema, defaultName) {
  return Schema.object({
    providerName: Schema.string()
      .default(defaultName)
      .description('Provider name in ctx.skills and on every candidate (several providers need different names).'),
    includeDefaultRoots: Schema.boolean()
      .default(true)
      .description(
        'Scan the project .dsh/.agents roots and the user roots; when off only customSkillDirs, an explicit bundledSkillDir and compatRoots.',
      ),
    nestedRoots: Schema.boolean()
      .default(false)
      .description('Monorepos: the .dsh/skills and .agents/skills of every directory from cwd up to the project root, nearest first.'),
    compatRoots: Schema.array(Schema.union(['claude', 'codex']))
      .default([])
      .description('Compatibility roots: "claude" (<project>/.claude/skills and ~/.claude/skills), "codex" ($CODEX_HOME/skills or ~/.codex/skills).'),
    dshHome: Schema.string().description('User DSH home; skills are read from <dshHome>/skills (default: $DSH_HOME or ~/.dsh).'),
    agentsHome: Schema.string().description(
      'User agents home; skills are read from <agentsHome>/skills (default: $DSH_AGENTS_HOME or ~/.agents).',
    ),
    customSkillDirs: Schema.array(Schema.string())
      .default([])
      .description('Extra skill roots, rank 300 (source "custom"), in this order.'),
    bundledSkillDir: Schema.string().description(
      'Skills shipped with the deployment, rank 600 (default: $DSH_BUNDLED_SKILL_DIR when set, else none).',
    ),
    maxSkillFileBytes: Schema.natural().min(1).description('Largest skill file read (default 1 MiB); bigger files are skipped.'),
    watch: Schema.boolean().default(true).description('Watch the roots and refresh the catalog when skills change.'),
    watchUsePolling: Schema.boolean().default(false).description('Poll instead of native filesystem events.'),
    watchStabilityThresholdMs: Schema.natural()
      .min(1)
      .default(200)
      .description('How long a changed skill file must stay unchanged before it counts.'),
    watchPollIntervalMs: Schema.natural().min(1).default(100).description('Polling interval.'),
    watchMaxProjects: Schema.natural()
      .min(1)
      .default(128)
      .description('Projects watched at once (least recently observed are evicted).'),
    watchFollowSymlinks: Schema.boolean().default(true).description('Follow symlinked skill roots and entries.'),
    // No default: a config without rules stays as it was.
    overrides: Schema.array(overrideRuleSchema(Schema)).default(undefined).description(
      "Override rules for the layer of this plugin's scope (a preset's agents): they apply to every skill those agents see, the nearest scope's matching rule deciding; removed with the plugin. Outside any scope they are ignored with a warning. Default: none.",
    ),
  })
}

/**
 * `apply(ctx, config)` of a provider plugin: registers
 * `new Provider(ctx, control, config)` through `ctx.skills` (it disposes
 * itself, closing its watchers, when the registration goes; the service files
 * it into the layer of `ctx`'s scope) and forwards `fs/observed`.
 */
function providerApply(name, Provider) {
  return function apply(ctx, config = {}) {
    const logger = createLogger(ctx, name)
    const options = {}
    for (const [key, value] of Object.entries(config)) {
      if (value !== undefined && value !== null) options[key] = value
    }
    // The rules are the registration's (for the layer of ctx's scope), not
    // the provider's. No rules (the schema's default is an empty list) carry
    // nothing: they neither warn outside a scope nor replace a layer's rules.
    const overrides = Array.isArray(options.overrides) && options.overrides.length === 0 ? undefined : options.overrides
    delete options.overrides
    let provider
    ctx.skills.registerProvider(
      (control) => {
        provider = new Provider(ctx, control, options)
        return provider
      },
      overrides === undefined ? undefined : { overrides },
    )
    onObserved(ctx, logger, (displayPath) => provider?.observeHostMutation(displayPath))
  }
}

/** `SkillLocal`: the plugin object of the earlier release (`skill-local`, provider `local`). */
function createSkillLocal({ Schema }) {
  return {
    name: 'skill-local',
    inject: [SERVICE_NAME],
    Config: providerConfig(Schema, 'local'),
    apply: providerApply('skill-local', LocalSkillProvider),
  }
}

/**
 * The filesystem plugin module of release 0.1.1-rc.2: `name`
 * (`skill-filesystem`), `inject`, `Config` (provider `filesystem` by default),
 * `apply` and `FileSystemSkillProvider`.
 */
function createFileSystemPlugin({ Schema }) {
  return {
    name: 'skill-filesystem',
    inject: [SERVICE_NAME],
    Config: providerConfig(Schema, 'filesystem'),
    apply: providerApply('skill-filesystem', FileSystemSkillProvider),
    FileSystemSkillProvider,
  }
}

module.exports = { createSkillLocal, createFileSystemPlugin }
